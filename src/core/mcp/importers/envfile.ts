/**
 * @module mcp/importers/envfile
 * `envFile` of Cursor, Windsurf and VS Code: a dotenv file (≤ 64 KiB) of `KEY=VALUE` lines.
 * Values are read now and never shown; values under `env` win over the file's.
 */
import { diagnostic, type Diagnostic } from "../../diagnostics.ts";
import { readCapped } from "../read.ts";
import { ENV_NAME_RE } from "../validate.ts";

const MAX_ENV_FILE = 64 * 1024;

export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) continue;
    const body = line.startsWith("export ") ? line.slice(7).trim() : line;
    const eq = body.indexOf("=");
    if (eq <= 0) continue;
    const key = body.slice(0, eq).trim();
    // A key no process environment can hold is dropped like any other unparsable line.
    if (!ENV_NAME_RE.test(key)) continue;
    let value = body.slice(eq + 1).trim();
    const q = value[0];
    if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) {
      value = value.slice(1, -1);
      if (q === '"') value = value.replace(/\\n/g, "\n").replace(/\\"/g, '"');
    } else {
      const hash = value.search(/\s#/);
      if (hash >= 0) value = value.slice(0, hash).trim();
    }
    out[key] = value;
  }
  return out;
}

/** The env of an entry with its envFile folded in; a missing or bad file is a diagnostic. */
export async function withEnvFile(
  env: unknown,
  envFile: string,
  at: { path: string; source: string; key: string },
  diagnostics: Diagnostic[],
): Promise<unknown> {
  const r = await readCapped(envFile, MAX_ENV_FILE);
  if (r.kind !== "text") {
    const why = r.kind === "missing" ? "envFile not found" : `envFile: ${r.reason}`;
    diagnostics.push(diagnostic("warn", "env_file", `server '${at.key}': ${why}`, at));
    return env;
  }
  const fromFile = parseDotenv(r.text);
  if (env !== undefined && (typeof env !== "object" || env === null || Array.isArray(env))) return env;
  return { ...fromFile, ...(env ?? {}) };
}
