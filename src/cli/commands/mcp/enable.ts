/** @module cli/commands/mcp/enable */
import { toggleCommand } from "./toggle.ts";
export default toggleCommand(true);
