/**
 * @module mcp/importers/opencode
 * sst/opencode. `opencode.json` / `opencode.jsonc` (JSONC: comments, trailing commas):
 *
 *   { "$schema": "https://opencode.ai/config.json",
 *     "mcp": {
 *       "<name>": { "type": "local", "command": ["npx", "-y", "pkg"] | "prog", "args"?: [..],
 *                   "environment": { "K": "{env:K}" }, "enabled": true, "timeout"?: ms },
 *       "<name>": { "type": "remote", "url": "https://…", "headers": { "Authorization": "Bearer {env:T}" },
 *                   "oauth"?: {…} } } }
 *
 * Before parsing, text substitution: `{env:VAR}` (unset → "") and `{file:path}` (relative to the
 * config file, `~` expanded, trimmed, JSON-escaped; missing → ""; ≤ 64 KiB; ignored on `//`
 * comment lines). Files are deep-merged per server in ascending precedence: user files, project
 * `opencode.json[c]`, then `.opencode/opencode.json[c]`; a server defined by any project file is
 * `project`. Files: see projectFiles/userFiles below (`XDG_CONFIG_HOME` honoured).
 */
import { dirname, join, resolve } from "node:path";
import { diagnostic, type Diagnostic } from "../../diagnostics.ts";
import { readCapped } from "../read.ts";
import { OUTSIDE_PROJECT, referencedFile } from "./confine.ts";
import type { SourceLevel } from "../types.ts";
import {
  accept,
  autoApprovals,
  badEntry,
  emptyResult,
  isObject,
  mapEnabled,
  mapType,
  msValue,
  readProviderFile,
  type FileRead,
  type ImportEnv,
  type Importer,
  type Obj,
  locationValue,
} from "./common.ts";

const MAX_INCLUDED = 64 * 1024;

const ENV_REF = /\{env:([^}]+)\}/g;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `{env:VAR}` as opencode substitutes it (unset → ""), except inside a JSON string value, where it
 * becomes `${VAR:-}`: the same value once expanded to connect, but `mcp get` and a trust review
 * then show the variable's name as for any `${VAR}`, never its value. Keys, strings that hold a
 * `{file:…}` and text outside strings get the value now, as opencode does.
 */
function substituteEnv(text: string, env: ImportEnv["ctx"]["env"]): string {
  if (!text.includes("{env:")) return text;
  const raw = (t: string) => t.replace(ENV_REF, (_m, name: string) => env[name.trim()] ?? "");
  const named = (t: string) =>
    t.replace(ENV_REF, (m, name: string) => (VAR_NAME.test(name.trim()) ? `\${${name.trim()}:-}` : raw(m)));
  let out = "";
  let plain = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "/" && (text[i + 1] === "/" || text[i + 1] === "*")) {
      const end = text[i + 1] === "/" ? text.indexOf("\n", i) : text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + (text[i + 1] === "/" ? 0 : 2);
      continue;
    }
    if (c !== '"') {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
    if (j >= text.length) break;
    const body = text.slice(i + 1, j);
    let k = j + 1;
    while (k < text.length && /\s/.test(text[k] ?? "")) k++;
    const keep = text[k] === ":" || body.includes("{file:");
    out += `${raw(text.slice(plain, i))}"${keep ? raw(body) : named(body)}"`;
    i = j + 1;
    plain = i;
  }
  return out + raw(text.slice(plain));
}

/**
 * `{env:VAR}` and `{file:path}` substitution of opencode's config loader. A project file's
 * `{file:…}` must resolve inside C (mcp.md §4.3, see confine.ts): one that leads elsewhere is
 * left as written, with a diagnostic, and never read.
 */
export async function substitute(
  text: string,
  file: string,
  level: SourceLevel,
  ie: ImportEnv,
  diagnostics: Diagnostic[],
): Promise<string> {
  const withEnv = substituteEnv(text, ie.ctx.env);
  if (!withEnv.includes("{file:")) return withEnv;
  const at = { path: file, source: `opencode:${level}` };
  const lines = withEnv.split("\n");
  const out: string[] = [];
  for (const line of lines) {
    if (line.trimStart().startsWith("//") || !line.includes("{file:")) {
      out.push(line);
      continue;
    }
    let result = "";
    let last = 0;
    for (const m of line.matchAll(/\{file:([^}]+)\}/g)) {
      result += line.slice(last, m.index);
      last = (m.index ?? 0) + m[0].length;
      let p = (m[1] ?? "").trim();
      if (p === "~" || p.startsWith("~/")) p = join(ie.ctx.homeDir, p.slice(1));
      const ref = referencedFile(resolve(dirname(file), p), level, ie.cwd);
      if (!ref.ok && ref.problem === "outside") {
        diagnostics.push(diagnostic("warn", "file_reference", `included file ${OUTSIDE_PROJECT}`, at));
        result += m[0];
        continue;
      }
      const r = ref.ok ? await readCapped(ref.path, MAX_INCLUDED) : ({ kind: "missing" } as const);
      if (r.kind === "error") diagnostics.push(diagnostic("warn", "read_error", `included file: ${r.reason}`, at));
      const content = r.kind === "text" ? r.text.trim() : "";
      result += JSON.stringify(content).slice(1, -1);
    }
    out.push(result + line.slice(last));
  }
  return out.join("\n");
}

function deepMerge(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isObject(b) && isObject(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function fields(raw: Obj): Obj {
  let type = mapType(raw.type);
  if (type === "local") type = "stdio";
  else if (type === "remote") type = "http";
  let command = raw.command;
  let args = raw.args;
  if (Array.isArray(raw.command)) {
    const [head, ...tail] = raw.command as unknown[];
    command = head;
    args = raw.args === undefined ? tail : Array.isArray(raw.args) ? [...tail, ...(raw.args as unknown[])] : raw.args;
  }
  return {
    type,
    command,
    args,
    env: raw.environment ?? raw.env,
    cwd: raw.cwd,
    url: raw.url,
    headers: raw.headers,
    enabled: mapEnabled(raw),
    timeout_ms: msValue(raw.timeout),
    approval: raw.approval,
    tool_approvals: autoApprovals(raw.alwaysAllow, raw.autoApprove),
  };
}

interface Merged {
  raw: Obj;
  file: string;
  project: boolean;
  order: number;
}

export const opencode: Importer = {
  id: "opencode",
  projectFiles: (cwd) => [
    join(cwd, "opencode.json"),
    join(cwd, "opencode.jsonc"),
    join(cwd, ".opencode", "opencode.json"),
    join(cwd, ".opencode", "opencode.jsonc"),
  ],
  userFiles: (home, env) => {
    const xdg = locationValue(env, "XDG_CONFIG_HOME") ?? join(home, ".config");
    return [join(xdg, "opencode", "opencode.json"), join(xdg, "opencode", "opencode.jsonc")];
  },
  async load(ie, files) {
    const out = emptyResult();
    // Ascending precedence: user files first, project files last (later files win per key).
    const jobs: { file: string; level: SourceLevel }[] = [
      ...files.user.map((file) => ({ file, level: "user" as const })),
      ...files.project.map((file) => ({ file, level: "project" as const })),
    ];
    const reads: FileRead[] = await Promise.all(
      jobs.map((j) =>
        readProviderFile(j.file, "jsonc", `opencode:${j.level}`, out.diagnostics, (text) =>
          substitute(text, j.file, j.level, ie, out.diagnostics),
        ),
      ),
    );
    const merged = new Map<string, Merged>();
    const bad = new Map<string, { file: string; level: SourceLevel }>();
    let order = 0;
    reads.forEach((r, i) => {
      const job = jobs[i]!;
      if (r.state !== "ok") return;
      const source = `opencode:${job.level}`;
      if (!isObject(r.root)) {
        out.diagnostics.push(
          diagnostic("warn", "invalid_file", "top level must be an object", { path: job.file, source }),
        );
        return;
      }
      const mcp = r.root.mcp;
      if (mcp === undefined) return;
      if (!isObject(mcp)) {
        out.diagnostics.push(diagnostic("warn", "invalid_file", "mcp must be an object", { path: job.file, source }));
        return;
      }
      for (const [name, raw] of Object.entries(mcp)) {
        if (!isObject(raw)) {
          bad.set(name, job);
          continue;
        }
        const prev = merged.get(name);
        merged.set(name, {
          raw: prev ? deepMerge(prev.raw, raw) : raw,
          file: job.file,
          project: (prev?.project ?? false) || job.level === "project",
          order: prev?.order ?? order++,
        });
      }
    });
    const list = [...merged.entries()].sort(
      ([, a], [, b]) => Number(b.project) - Number(a.project) || a.order - b.order,
    );
    list.forEach(([name, m], index) => {
      accept(
        "opencode",
        { name, index, file: m.file, level: m.project ? "project" : "user", vars: "editor", mapped: fields(m.raw) },
        out,
      );
    });
    for (const [name, job] of bad) if (!merged.has(name)) badEntry("opencode", job.level, job.file, name, 0, out);
    return out;
  },
};
