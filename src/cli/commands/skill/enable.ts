/** @module cli/commands/skill/enable */
import { toggleCommand } from "./toggle.ts";
export default toggleCommand(true);
