/** @module cli/commands/mcp/disable */
import { toggleCommand } from "./toggle.ts";
export default toggleCommand(false);
