/**
 * @module mcp/importers/claude
 * Claude Code. Entries (JSON) are `{ "type"?: "stdio"|"http"|"sse", "command", "args", "env",
 * "url", "headers" }` under `mcpServers`; `timeout` is ignored, OAuth blocks are not imported.
 *
 * Files: project `C/.claude/.mcp.json`, else `C/.claude/mcp.json`. User (opt-in, or whenever
 * `CLAUDE_CONFIG_DIR` is set, which then holds the files): `~/.claude.json`, whose
 * `projects["<abs C>"].mcpServers` (Claude's "local" scope) come first and its top-level
 * `mcpServers` ("user" scope) second; only when `~/.claude.json` is absent, `~/.claude/mcp.json`.
 */
import { join } from "node:path";
import type { SourceLevel } from "../types.ts";
import {
  accept,
  badEntry,
  commonFields,
  eachServer,
  emptyResult,
  isObject,
  merge,
  readProviderFile,
  serverMap,
  type ImportResult,
  type Importer,
  type Obj,
  locationValue,
} from "./common.ts";

function addMap(map: Obj, file: string, level: SourceLevel, out: ImportResult, offset: number): number {
  let n = 0;
  eachServer(
    map,
    (name, raw, i) => {
      n++;
      accept("claude", { name, index: offset + i, file, level, vars: "editor", mapped: commonFields(raw) }, out);
    },
    (name, i) => {
      n++;
      badEntry("claude", level, file, name, offset + i, out);
    },
  );
  return n;
}

/** The first existing file of `candidates`, read as a plain `mcpServers` file. */
async function firstExisting(candidates: string[], level: SourceLevel, out: ImportResult): Promise<void> {
  for (const file of candidates) {
    const read = await readProviderFile(file, "json", `claude:${level}`, out.diagnostics);
    if (read.state === "missing") continue;
    if (read.state === "ok") {
      const map = serverMap(read.root, "mcpServers", file, `claude:${level}`, out.diagnostics);
      if (map) addMap(map, file, level, out, 0);
    }
    return;
  }
}

export const claude: Importer = {
  id: "claude",
  projectFiles: (cwd) => [join(cwd, ".claude", ".mcp.json"), join(cwd, ".claude", "mcp.json")],
  userFiles: (home, env) => {
    const dir = locationValue(env, "CLAUDE_CONFIG_DIR");
    if (dir !== undefined) return [join(dir, ".claude.json"), join(dir, "mcp.json")];
    return [join(home, ".claude.json"), join(home, ".claude", "mcp.json")];
  },
  async load(ie, files) {
    const out = emptyResult();
    await firstExisting(files.project, "project", out);
    const [stateFile, fallback] = files.user;
    if (stateFile === undefined) return out;
    const part = emptyResult();
    const read = await readProviderFile(stateFile, "json", "claude:user", part.diagnostics);
    if (read.state === "missing") {
      if (fallback !== undefined) await firstExisting([fallback], "user", out);
      return out;
    }
    if (read.state === "ok") {
      const root = read.root;
      if (!isObject(root)) serverMap(root, "mcpServers", stateFile, "claude:user", part.diagnostics);
      else {
        let offset = 0;
        const projects = root.projects;
        const local = isObject(projects) ? projects[ie.cwd] : undefined;
        if (isObject(local) && isObject(local.mcpServers))
          offset = addMap(local.mcpServers, stateFile, "user", part, 0);
        const top = serverMap(root, "mcpServers", stateFile, "claude:user", part.diagnostics);
        if (top) addMap(top, stateFile, "user", part, offset);
      }
    }
    merge(out, part);
    return out;
  },
};
