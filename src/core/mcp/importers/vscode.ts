/**
 * @module mcp/importers/vscode
 * VS Code / GitHub Copilot. `.vscode/mcp.json` (JSONC, comments and trailing commas allowed):
 *
 *   { "inputs": [ { "type": "promptString", "id": "api-key", "password": true } ],
 *     "servers": { "<name>": { "type": "stdio"|"http"|"sse", "command", "args", "env",
 *       "envFile"?, "cwd"?, "url", "headers" } } }
 *
 * The legacy nested `{"mcp": {"servers": …}}` is read too. `inputs` are never prompted: an entry
 * using `${input:…}` is skipped. User file: `~/.copilot/mcp-config.json` (`COPILOT_HOME`
 * honoured), Copilot CLI's `mcpServers` map with the same fields (its `local` type is stdio).
 */
import { join } from "node:path";
import { commonFields, isObject, loadEach, serverMap, type Importer, type Obj, locationValue } from "./common.ts";
import { loadEditorFile } from "./cursor.ts";

function fields(raw: Obj): Obj {
  const f = commonFields(raw);
  if (f.type === "local") f.type = "stdio";
  return f;
}

export const vscode: Importer = {
  id: "vscode",
  projectFiles: (cwd) => [join(cwd, ".vscode", "mcp.json")],
  userFiles: (home, env) => {
    const dir = locationValue(env, "COPILOT_HOME") ?? join(home, ".copilot");
    return [join(dir, "mcp-config.json")];
  },
  load: (ie, files) =>
    loadEach("vscode", files, "jsonc", async (root, file, level, out) => {
      const source = `vscode:${level}`;
      let map: Obj | null;
      if (level === "user") map = serverMap(root, "mcpServers", file, source, out.diagnostics);
      else if (isObject(root) && root.servers === undefined && isObject(root.mcp))
        map = serverMap(root.mcp, "servers", file, source, out.diagnostics);
      else map = serverMap(root, "servers", file, source, out.diagnostics);
      if (map) await loadEditorFile("vscode", ie, map, file, level, out, fields);
    }),
};
