/**
 * @module mcp/importers/gemini
 * Gemini CLI. `settings.json` (JSON):
 *
 *   { "mcpServers": { "<name>": { "command", "args", "env", "cwd", "httpUrl"?: streamable HTTP,
 *       "url"?: SSE, "headers", "timeout"?: ms, "includeTools"?: [tool], "excludeTools"?: [tool],
 *       "trust"?: bool, "oauth"?: {…} } } }
 *
 * `httpUrl` → http; `url` → sse unless `type` says otherwise. `trust` never bypasses approval and
 * `oauth` is not imported. Files: `C/.gemini/settings.json`; user `~/.gemini/settings.json`.
 */
import { join } from "node:path";
import {
  accept,
  badEntry,
  commonFields,
  eachServer,
  loadEach,
  msValue,
  serverMap,
  type Importer,
  type Obj,
} from "./common.ts";

function fields(raw: Obj): Obj {
  const f = commonFields(raw);
  if (typeof raw.httpUrl === "string") {
    f.url = raw.httpUrl;
    f.type ??= "http";
  } else if (raw.url !== undefined) f.type ??= "sse";
  return { ...f, timeout_ms: msValue(raw.timeout), allow_tools: raw.includeTools, block_tools: raw.excludeTools };
}

export const gemini: Importer = {
  id: "gemini",
  projectFiles: (cwd) => [join(cwd, ".gemini", "settings.json")],
  userFiles: (home) => [join(home, ".gemini", "settings.json")],
  load: (_ie, files) =>
    loadEach("gemini", files, "json", (root, file, level, out) => {
      const map = serverMap(root, "mcpServers", file, `gemini:${level}`, out.diagnostics);
      if (!map) return;
      eachServer(
        map,
        (name, raw, index) => accept("gemini", { name, index, file, level, vars: "editor", mapped: fields(raw) }, out),
        (name, index) => badEntry("gemini", level, file, name, index, out),
      );
    }),
};
