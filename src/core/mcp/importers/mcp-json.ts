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
import { accept, badEntry, commonFields, eachServer, loadEach, msValue, serverMap, strList, type Importer } from "./common.ts";

export const mcpJson: Importer = {
  id: "mcp-json",
  projectFiles: (cwd) => [join(cwd, "mcp.json"), join(cwd, ".mcp.json")],
  userFiles: () => [],
  load: (_ie, files) =>
    loadEach("mcp-json", files, "json", (root, file, level, out) => {
      const map = serverMap(root, "mcpServers", file, `mcp-json:${level}`, out.diagnostics);
      if (!map) return;
      eachServer(
        map,
        (name, raw, index) =>
          accept(
            "mcp-json",
            {
              name,
              index,
              file,
              level,
              vars: "editor",
              mapped: { ...commonFields(raw), timeout_ms: msValue(raw.timeout) },
              toolGlobs: { enabled: strList(raw.enabledTools), disabled: strList(raw.disabledTools) },
            },
            out,
          ),
        (name, index) => badEntry("mcp-json", level, file, name, index, out),
      );
    }),
};
