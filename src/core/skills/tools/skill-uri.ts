/**
 * @module skills/tools/skill-uri
 * `skill://<key>` and `skill://<key>/<relative path>` (skills.md §10), for a host's `read` tool:
 * read-only, the same precedence as listings (hidden and disabled skills included), blocked
 * skills refused, and the same containment as `read_skill view=file`. Unlike the tool, this is
 * a module API: failures reject with LemonError (NOT_FOUND, INVALID_PARAMS, FORBIDDEN).
 */
import { forbidden, invalidParams, LemonError, notFound } from "../../errors.ts";
import { blockedMessage } from "./blocked.ts";
import { readContained } from "./contained-read.ts";
import { echoed, emitSafely, findSkill, runContext, type SkillLoadEvent, type ToolHost } from "./read-skill.ts";
import type { ToolCallContext } from "./result.ts";
import { eventTs } from "../usage/events.ts";

/** What a `skill://` URI resolves to: the key, the file's absolute real path and its text. */
export interface ResolvedSkillUri {
  key: string;
  path: string;
  text: string;
}

const PREFIX = "skill://";

/** One percent-decoding; a malformed escape is INVALID_PARAMS, not a URIError. */
function decodeOnce(s: string, uri: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw invalidParams(`invalid skill URI '${echoed(uri)}': bad percent-encoding`);
  }
}

/**
 * The key and relative path of a `skill://` URI, each decoded once; `SKILL.md` when no path is
 * given. Query strings and fragments are refused; a key that could not name a directory is
 * NOT_FOUND (no skill has it), a path that leaves the skill FORBIDDEN (by the caller's check).
 */
export function parseSkillUri(uri: string): { key: string; rel: string } {
  if (!uri.startsWith(PREFIX))
    throw invalidParams(`invalid skill URI '${echoed(uri)}': expected skill://<key>[/<path>]`);
  const rest = uri.slice(PREFIX.length);
  if (rest.includes("?") || rest.includes("#"))
    throw invalidParams(`invalid skill URI '${echoed(uri)}': query strings and fragments are not allowed`);
  const slash = rest.indexOf("/");
  const rawKey = slash < 0 ? rest : rest.slice(0, slash);
  const rawPath = slash < 0 ? "" : rest.slice(slash + 1);
  if (rawKey === "") throw invalidParams(`invalid skill URI '${echoed(uri)}': no skill key`);
  const key = decodeOnce(rawKey, uri);
  const rel = decodeOnce(rawPath, uri);
  return { key, rel: rel === "" ? "SKILL.md" : rel };
}

const READ_CODES = {
  "not found": "NOT_FOUND",
  "not a regular file": "INVALID_PARAMS",
  "permission denied": "FORBIDDEN",
  // §10 allows NOT_FOUND, INVALID_PARAMS and FORBIDDEN only: a file over the bound is a bad request of this one.
  "too large": "INVALID_PARAMS",
} as const;

async function resolve(host: ToolHost, uri: string): Promise<ResolvedSkillUri & { scope: SkillLoadEvent["scope"] }> {
  const { key, rel } = parseSkillUri(uri);
  const shownKey = echoed(key);
  // A key holding a separator or NUL could never be a directory name: no lookup can find it.
  if (/[/\\\0]/.test(key) || key === "." || key === "..") throw notFound(`Skill not found: ${shownKey}`);
  const found = await findSkill(host, key);
  if (found === null) throw notFound(`Skill not found: ${shownKey}`);
  const { entry } = found;
  const blocked = await blockedMessage(found.ctx, entry, found.rec.candidate);
  if (blocked !== null) throw forbidden(blocked);
  const read = readContained(entry.real_path, rel);
  const shown = echoed(rel);
  if (!read.ok) {
    if (read.problem === "outside") throw forbidden(`Path '${shown}' is outside the skill directory.`);
    throw new LemonError(READ_CODES[read.problem], `Could not read '${shown}': ${read.problem}`);
  }
  const text = read.text ?? `File '${shown}' is binary (${read.bytes} bytes); not shown.`;
  return { key, path: read.realPath, text, scope: entry.scope };
}

/**
 * Resolves a `skill://` URI for `host`. A success emits `skill.load` with `view: "uri"` and the
 * relative path (never the text); a failure rejects with LemonError and emits nothing.
 */
export async function resolveSkillUri(host: ToolHost, uri: string, ctx?: ToolCallContext): Promise<ResolvedSkillUri> {
  const started = performance.now();
  const r = await resolve(host, uri);
  await emitSafely(host, {
    ts: eventTs(host),
    key: r.key,
    scope: r.scope,
    view: "uri",
    ...(uri.slice(PREFIX.length).includes("/") ? { path: parseSkillUri(uri).rel } : {}),
    result: "ok",
    chars: [...r.text].length,
    duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    ...runContext(ctx),
  });
  return { key: r.key, path: r.path, text: r.text };
}
