/**
 * @module mcp/importers/omp
 * oh-my-pi (omp). Format (JSON), per its docs:
 *
 *   { "mcpServers": { "<name>": { "type"?: "stdio"|"http"|"sse", "command", "args", "env", "cwd",
 *       "url", "headers", "enabled"?, "timeout"?: ms | "ms", "enabledTools"?: [glob],
 *       "disabledTools"?: [glob] } },
 *     "disabledServers"?: [name], "enabledServers"?: [name] }
 *
 * Files: `C/.omp/mcp.json`, `C/.omp/.mcp.json`; user `~/.omp/agent/mcp.json` and `.mcp.json`,
 * read by default. `disabledServers` / `enabledServers` apply to every imported source.
 */
import { join } from "node:path";
import { accept, badEntry, commonFields, eachServer, isObject, loadEach, msValue, serverMap, strList, type Importer } from "./common.ts";

export const omp: Importer = {
  id: "omp",
  userByDefault: true,
  projectFiles: (cwd) => [join(cwd, ".omp", "mcp.json"), join(cwd, ".omp", ".mcp.json")],
  userFiles: (home) => [join(home, ".omp", "agent", "mcp.json"), join(home, ".omp", "agent", ".mcp.json")],
  load: (_ie, files) =>
    loadEach("omp", files, "json", (root, file, level, out) => {
      if (isObject(root) && (root.disabledServers !== undefined || root.enabledServers !== undefined))
        (out.serverLists ??= []).push({ file, enabled: strList(root.enabledServers), disabled: strList(root.disabledServers) });
      const map = serverMap(root, "mcpServers", file, `omp:${level}`, out.diagnostics);
      if (!map) return;
      eachServer(
        map,
        (name, raw, index) =>
          accept(
            "omp",
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
        (name, index) => badEntry("omp", level, file, name, index, out),
      );
    }),
};
