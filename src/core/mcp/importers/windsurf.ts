/**
 * @module mcp/importers/windsurf
 * Windsurf (Codeium). `mcp_config.json` (JSON), as Cursor plus:
 *
 *   { "mcpServers": { "<name>": { "command", "args", "env", "envFile"?, "serverUrl" | "url",
 *       "headers", "disabled"?: bool, "disabledTools"?: [tool] } } }
 *
 * `serverUrl` is preferred over `url`; `disabledTools` are exact names (→ `block_tools`).
 * Files: `C/.windsurf/mcp_config.json`; user `~/.codeium/windsurf/mcp_config.json`.
 */
import { join } from "node:path";
import { commonFields, loadEach, serverMap, type Importer, type Obj } from "./common.ts";
import { loadEditorFile } from "./cursor.ts";

function fields(raw: Obj): Obj {
  return { ...commonFields(raw), url: raw.serverUrl ?? raw.url, block_tools: raw.disabledTools };
}

export const windsurf: Importer = {
  id: "windsurf",
  projectFiles: (cwd) => [join(cwd, ".windsurf", "mcp_config.json")],
  userFiles: (home) => [join(home, ".codeium", "windsurf", "mcp_config.json")],
  load: (ie, files) =>
    loadEach("windsurf", files, "json", async (root, file, level, out) => {
      const map = serverMap(root, "mcpServers", file, `windsurf:${level}`, out.diagnostics);
      if (map) await loadEditorFile("windsurf", ie, map, file, level, out, fields);
    }),
};
