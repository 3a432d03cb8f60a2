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
import { acceptDesktopMap, isObject, loadEach, strList, type Importer } from "./common.ts";

export const omp: Importer = {
  id: "omp",
  userByDefault: true,
  projectFiles: (cwd) => [join(cwd, ".omp", "mcp.json"), join(cwd, ".omp", ".mcp.json")],
  userFiles: (home) => [join(home, ".omp", "agent", "mcp.json"), join(home, ".omp", "agent", ".mcp.json")],
  load: (_ie, files) =>
    loadEach("omp", files, "json", (root, file, level, out) => {
      if (isObject(root) && (root.disabledServers !== undefined || root.enabledServers !== undefined))
        (out.serverLists ??= []).push({
          file,
          enabled: strList(root.enabledServers),
          disabled: strList(root.disabledServers),
        });
      acceptDesktopMap("omp", root, file, level, out);
    }),
};
