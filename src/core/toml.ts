/**
 * @module toml
 * The one TOML reader: `config.toml`, Codex's files and TOML frontmatter. Bun's native parser reads
 * a file without loading smol-toml (which costs more than the rest of `mcp list`); smol-toml runs
 * only to word the error of a broken file, and for frontmatter, whose datetimes must stay
 * recognisable as such (manifest fields reject them). A failure never quotes the input: TOML
 * parsers echo the offending line, which may hold a secret.
 */
import { flattenLine } from "./text.ts";

/** Why TOML text was rejected: a redefined key is told apart (mcp.md §4.1 `duplicate_key`). */
export type TomlFailure = { ok: false; reason: string; problem: "syntax" | "duplicate_key"; line: number | null };
export type TomlResult = { ok: true; value: unknown } | TomlFailure;

function failure(err: unknown): TomlFailure {
  const msg = err instanceof Error ? (err.message.split("\n")[0] ?? "") : "";
  const dup = /Cannot redefine (?:key|table) '([^']*)'/.exec(msg);
  if (dup)
    return { ok: false, reason: `duplicate key '${flattenLine(dup[1] ?? "")}'`, problem: "duplicate_key", line: null };
  const fromError = err instanceof Error && "line" in err && typeof err.line === "number" ? err.line : null;
  const m = /line (\d+)/i.exec(msg);
  const line = fromError ?? (m ? Number(m[1]) : null);
  return { ok: false, reason: line !== null ? `invalid TOML (line ${line})` : "invalid TOML", problem: "syntax", line };
}

/** Parses with smol-toml: its values (TomlDate for datetimes) and its worded errors. */
export async function parseTomlDetailed(text: string): Promise<TomlResult> {
  const { parse } = await import("smol-toml");
  try {
    return { ok: true, value: parse(text) as unknown };
  } catch (err) {
    return failure(err);
  }
}

/** Parses TOML natively; a broken file is parsed again by smol-toml only to say where it broke. */
export async function parseToml(text: string): Promise<TomlResult> {
  try {
    return { ok: true, value: Bun.TOML.parse(text) as unknown };
  } catch (err) {
    const native = failure(err);
    if (native.problem === "duplicate_key") return native;
    const detailed = await parseTomlDetailed(text);
    return detailed.ok ? native : detailed;
  }
}
