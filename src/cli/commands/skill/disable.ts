/** @module cli/commands/skill/disable */
import { toggleCommand } from "./toggle.ts";
export default toggleCommand(false);
