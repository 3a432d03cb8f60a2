/**
 * @module mcp/importers/cursor
 * Cursor. `mcp.json` (JSON):
 *
 *   { "mcpServers": { "<name>": { "type"?: "stdio"|"http"|"sse"|"streamableHttp", "command",
 *       "args", "env", "envFile"?: "<dotenv path relative to C>", "url", "headers" } } }
 *
 * Files: `C/.cursor/mcp.json`; user `~/.cursor/mcp.json`.
 */
import { join, resolve } from "node:path";
import {
  accept,
  badEntry,
  commonFields,
  eachServer,
  loadEach,
  serverMap,
  type ImportEnv,
  type ImportResult,
  type Importer,
  type Obj,
} from "./common.ts";
import { diagnostic } from "../../diagnostics.ts";
import { OUTSIDE_PROJECT, referencedFile } from "./confine.ts";
import { withEnvFile } from "./envfile.ts";
import type { ProviderId, SourceLevel } from "../types.ts";
import { expandString } from "../expand.ts";

/** The Cursor/Windsurf loader; `map` turns a raw entry into lemon fields. */
export async function loadEditorFile(
  id: ProviderId,
  ie: ImportEnv,
  map: Obj,
  file: string,
  level: SourceLevel,
  out: ImportResult,
  fields: (raw: Obj) => Obj,
): Promise<void> {
  const pending: Promise<void>[] = [];
  const mapped: { name: string; index: number; m: Obj }[] = [];
  eachServer(
    map,
    (name, raw, index) => {
      const m = fields(raw);
      if (typeof raw.envFile === "string" && raw.envFile !== "") {
        const vars = { env: ie.ctx.env, cwd: ie.cwd, homeDir: ie.ctx.homeDir };
        const path = resolve(ie.cwd, expandString(raw.envFile, "editor", vars, new Set()));
        const at = { path: file, source: `${id}:${level}`, key: name };
        // A project file's envFile must stay inside C (mcp.md §4.3; see confine.ts).
        const ref = referencedFile(path, level, ie.cwd);
        if (!ref.ok && ref.problem === "outside")
          out.diagnostics.push(diagnostic("warn", "env_file", `server '${name}': envFile ${OUTSIDE_PROJECT}`, at));
        else
          pending.push(
            withEnvFile(m.env, ref.ok ? ref.path : path, at, out.diagnostics).then((env) => {
              m.env = env;
            }),
          );
      }
      mapped.push({ name, index, m });
    },
    (name, index) => mapped.push({ name, index, m: { __bad: true } }),
  );
  await Promise.all(pending);
  for (const { name, index, m } of mapped) {
    if (m.__bad === true) badEntry(id, level, file, name, index, out);
    else accept(id, { name, index, file, level, vars: "editor", mapped: m }, out);
  }
}

export const cursor: Importer = {
  id: "cursor",
  projectFiles: (cwd) => [join(cwd, ".cursor", "mcp.json")],
  userFiles: (home) => [join(home, ".cursor", "mcp.json")],
  load: (ie, files) =>
    loadEach("cursor", files, "json", async (root, file, level, out) => {
      const map = serverMap(root, "mcpServers", file, `cursor:${level}`, out.diagnostics);
      if (map) await loadEditorFile("cursor", ie, map, file, level, out, commonFields);
    }),
};
