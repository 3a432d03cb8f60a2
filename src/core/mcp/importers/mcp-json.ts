/**
 * @module mcp/importers/mcp-json
 * A bare `mcp.json` / `.mcp.json` in the project (Claude Desktop shape), JSON:
 *
 *   { "mcpServers": { "<name>": { "command", "args", "env", "cwd", "url", "headers", "type"?,
 *       "enabled"?, "timeout"?: ms, "enabledTools"?: [glob], "disabledTools"?: [glob] } } }
 *
 * Project files only: `C/mcp.json`, then `C/.mcp.json`.
 */
import { join } from "node:path";
import { acceptDesktopMap, loadEach, type Importer } from "./common.ts";

export const mcpJson: Importer = {
  id: "mcp-json",
  projectFiles: (cwd) => [join(cwd, "mcp.json"), join(cwd, ".mcp.json")],
  userFiles: () => [],
  load: (_ie, files) =>
    loadEach("mcp-json", files, "json", (root, file, level, out) => {
      acceptDesktopMap("mcp-json", root, file, level, out);
    }),
};
