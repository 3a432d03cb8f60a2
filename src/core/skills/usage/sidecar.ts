/**
 * @module skills/usage/sidecar
 * The usage sidecar `skills.usage.json` of each scope (skills.md §12): load and write counts,
 * lifecycle state and creation facts per skill key, updated under the file's lock, and the
 * report rows the curator and `skill_manage report` show. A project sidecar sits in a
 * repository and is untrusted: its keys are data (never object prototypes), its fields are
 * checked one by one, and its names are escaped before they reach a terminal.
 */
import type { LemonContext } from "../../context.ts";
import { diagnostic, type Diagnostic } from "../../diagnostics.ts";
import { LemonError } from "../../errors.ts";
import type { Scope } from "../../paths.ts";
import { scopePathsFor } from "../../paths.ts";
import { isValid } from "../../schema/check.ts";
import { formatJson, isoSeconds } from "../../fsx/atomic.ts";
import { jsonCodec, readDocument, update, type Codec } from "../../fsx/update.ts";
import {
  emptyUsageDoc,
  USAGE_MAX_BYTES,
  USAGE_RECORD_FIELDS,
  UsageDoc,
  type LifecycleState,
  type UsageField,
  type UsageRecord,
} from "../../schema/usage.ts";
import { clampChars } from "../../text.ts";
import { keyProblem } from "../skill-key.ts";
import type { SkillLoadEvent, SkillWriteEvent } from "./events.ts";

export type { LifecycleState, UsageRecord } from "../../schema/usage.ts";

type Raw = Record<string, unknown>;
const FIELDS = Object.keys(USAGE_RECORD_FIELDS) as UsageField[];
const KNOWN = new Set<string>(FIELDS);

const baseCodec = jsonCodec(UsageDoc, emptyUsageDoc, { maxBytes: USAGE_MAX_BYTES });

/** Writes records in §12.1 field order then unknown fields, skill keys sorted, version first. */
const codec: Codec<UsageDoc> = { ...baseCodec, serialize: (doc) => formatJson(ordered(doc)) };

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function orderedRecord(rec: Raw): Raw {
  const known = FIELDS.filter((f) => rec[f] !== undefined && rec[f] !== null).map((f) => [f, rec[f]] as const);
  const unknown = Object.entries(rec).filter(([k]) => !KNOWN.has(k));
  return Object.fromEntries([...known, ...unknown]);
}

function ordered(doc: UsageDoc): Raw {
  const skills = Object.entries(doc.skills ?? {})
    .sort(([a], [b]) => byCodeUnit(a, b))
    .map(([k, r]) => [k, orderedRecord(r as Raw)] as const);
  const rest = Object.entries(doc).filter(([k]) => k !== "version" && k !== "skills");
  return Object.fromEntries([["version", 1], ["skills", Object.fromEntries(skills)], ...rest]);
}

/** A record's value of `field` when it matches the field's schema; null otherwise (absent = null). */
function field<F extends UsageField>(rec: Raw | undefined, f: F): NonNullable<UsageRecord[F]> | null {
  const v = rec?.[f];
  if (v === undefined || v === null) return null;
  return isValid(USAGE_RECORD_FIELDS[f], v) ? (v as NonNullable<UsageRecord[F]>) : null;
}

/** The known fields of a raw record that pass their schemas (for reports and readers). */
function cleanRecord(rec: Raw): UsageRecord {
  const out: Raw = {};
  for (const f of FIELDS) {
    const v = field(rec, f);
    if (v !== null) out[f] = v;
  }
  return out as UsageRecord;
}

/** The sidecar of a scope: `A/skills.usage.json` or `P/skills.usage.json`. */
export function usageFile(ctx: LemonContext, scope: Scope): string {
  return scopePathsFor(ctx, scope).usage;
}

export type UsageRead = { ok: true; skills: Record<string, UsageRecord> } | { ok: false; reason: string };

/**
 * The records of a sidecar, each field checked (an invalid field reads as absent). A missing
 * file is no records; an invalid or unreadable one is `ok: false` with the reason.
 */
export async function readUsage(file: string): Promise<UsageRead> {
  let doc: UsageDoc;
  try {
    doc = await readDocument(file, codec);
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
  const skills = Object.fromEntries(Object.entries(doc.skills ?? {}).map(([k, r]) => [k, cleanRecord(r as Raw)]));
  return { ok: true, skills };
}

/** The diagnostic for a sidecar that cannot be read (rule 4: reported, read as empty, never overwritten). */
export function usageDiagnostic(file: string, reason: string): Diagnostic {
  return diagnostic("warn", "invalid_usage_file", `ignoring invalid ${file}: ${reason}`, { path: file });
}

export interface UpdateUsageOptions {
  /** Lock wait of one attempt before CONFLICT (default: the lock's, about 2 s). */
  lockTimeoutMs?: number;
}

/** Attempts of one update while the lock keeps changing hands (see `whileContended`). */
const MAX_ATTEMPTS = 5;

/** The owner a lock CONFLICT names (`… is locked by pid <pid> on <host> since <time> …`), or null. */
function lockOwnerOf(err: unknown): string | null {
  if (!LemonError.is(err) || err.code !== "CONFLICT") return null;
  const m = / is locked by (pid \S+ on \S+ since \S+|an unknown owner since \S+)/.exec(err.message);
  return m ? m[1]! : null;
}

/**
 * Runs `attempt` again when it failed on a lock held by a different owner each time: the lock
 * is contended, not stuck, and every waiter's turn comes (the lock's backoff is not fair, so
 * with many writers one may wait past its 2 s while the others make progress). A lock that
 * one owner held for a whole attempt is stuck and fails with its CONFLICT at once; so does a
 * lock of the same owner seen twice. Counts are what the sidecar is for: a lost load is a lie.
 */
async function whileContended(attempt: () => Promise<void>): Promise<void> {
  let last: string | null = null;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      const owner = lockOwnerOf(err);
      if (owner === null || owner === last || n >= MAX_ATTEMPTS) throw err;
      last = owner;
    }
  }
}

/**
 * One read-modify-write of a scope's sidecar under its lock: `mutate` changes the raw records
 * in place (unknown fields stay) and returns false to write nothing. An invalid file is refused
 * with CONFLICT (`refusing to overwrite invalid …`), never replaced.
 */
export async function updateUsage(
  ctx: LemonContext,
  scope: Scope,
  mutate: (skills: Map<string, Raw>) => unknown,
  opts: UpdateUsageOptions = {},
): Promise<void> {
  const file = usageFile(ctx, scope);
  await whileContended(() => transaction(ctx, scope, file, mutate, opts));
}

async function transaction(
  ctx: LemonContext,
  scope: Scope,
  file: string,
  mutate: (skills: Map<string, Raw>) => unknown,
  opts: UpdateUsageOptions,
): Promise<void> {
  await update(
    file,
    codec,
    (doc) => {
      // A Map: keys such as "__proto__" from a hostile file are data, not prototypes.
      const skills = new Map(Object.entries(doc.skills ?? {}).map(([k, r]) => [k, { ...(r as Raw) }]));
      if (mutate(skills) === false) return { next: undefined, result: undefined };
      return { next: { ...doc, version: 1 as const, skills: Object.fromEntries(skills) }, result: undefined };
    },
    {
      command: "lemon usage",
      // No `now`: the lock's started_at must be real time, or a test clock in the past would
      // make a live lock look like a reused pid's to every other process.
      confineTo: scope === "project" ? ctx.cwd : null,
      ...(opts.lockTimeoutMs !== undefined ? { lockTimeoutMs: opts.lockTimeoutMs } : {}),
    },
  );
}

function recordOf(skills: Map<string, Raw>, key: string): Raw {
  let rec = skills.get(key);
  if (rec === undefined) skills.set(key, (rec = {}));
  return rec;
}

/**
 * The longest text a record keeps. Ids, views and paths come from the embedder or the agent, and
 * every load rewrites the whole file: one huge value would tax every later update.
 */
const MAX_TEXT_CHARS = 1024;

/** Sets a field (text clamped), or removes it for null/undefined (absent = null). */
function put(rec: Raw, f: UsageField, v: unknown): void {
  if (v === undefined || v === null) delete rec[f];
  else rec[f] = typeof v === "string" ? clampChars(v, MAX_TEXT_CHARS) : v;
}

function bump(rec: Raw, f: "load_count" | "write_count" | "write_error_count"): void {
  const n = field(rec, f) ?? 0;
  rec[f] = n >= Number.MAX_SAFE_INTEGER ? n : n + 1;
}

/**
 * An event time as the file stores times (skills.md §1.3 rule 5: UTC, seconds, `Z`); an
 * unparsable one is replaced by the clock, so the report can always read it back.
 */
function stamp(ctx: LemonContext, ts: string): string {
  const ms = Date.parse(ts);
  return isoSeconds(Number.isNaN(ms) ? ctx.now() : new Date(ms));
}

function runContext(rec: Raw, e: { tool_call_id?: string; session_key?: string; run_id?: string }): void {
  put(rec, "last_tool_call_id", e.tool_call_id);
  put(rec, "last_session_key", e.session_key);
  put(rec, "last_run_id", e.run_id);
}

/**
 * Records a load (§12.2): only `result: ok` with a known scope; `load_count += 1`,
 * `last_loaded_at`, `last_view` and the run context.
 */
export async function recordLoad(
  ctx: LemonContext,
  scope: Scope | null,
  e: SkillLoadEvent,
  opts: UpdateUsageOptions = {},
): Promise<void> {
  // A key that cannot name a skill was never loaded: nothing to count.
  if (e.result !== "ok" || scope === null || keyProblem(e.key) !== null) return;
  await updateUsage(
    ctx,
    scope,
    (skills) => {
      const rec = recordOf(skills, e.key);
      bump(rec, "load_count");
      rec.last_loaded_at = stamp(ctx, e.ts);
      put(rec, "last_view", e.view);
      runContext(rec, e);
    },
    opts,
  );
}

/** Creation facts a successful `create` or a draft publish sets, put-if-absent. */
export interface CreatedBy {
  agentId?: string;
  via: "skill_manage" | "draft";
}

/**
 * Records a write (§12.2): `ok` counts in `write_count`, `error` in `write_error_count`; the
 * last write's time, action, writer, file and run context; `created_*` only with `created`
 * on a successful write and only when the record has no creation time yet.
 */
export async function recordWrite(
  ctx: LemonContext,
  scope: Scope,
  e: SkillWriteEvent,
  created?: CreatedBy,
  opts: UpdateUsageOptions = {},
): Promise<void> {
  // A failed write with a name that is no key (the agent's input) would only add a garbage record.
  if (keyProblem(e.name) !== null) return;
  await updateUsage(
    ctx,
    scope,
    (skills) => {
      const rec = recordOf(skills, e.name);
      bump(rec, e.result === "ok" ? "write_count" : "write_error_count");
      const at = stamp(ctx, e.ts);
      rec.last_write_at = at;
      put(rec, "last_action", e.action);
      put(rec, "last_writer_agent_id", e.agent_id);
      put(rec, "file_path", e.file_path);
      runContext(rec, e);
      if (created !== undefined && e.result === "ok" && field(rec, "created_at") === null) {
        rec.created_at = at;
        rec.created_by = "agent";
        put(rec, "created_by_agent_id", created.agentId);
        rec.created_via = created.via;
      }
    },
    opts,
  );
}

/** Sets a key's lifecycle state (pin, unpin, archive, restore, curator transitions). */
export async function setLifecycle(
  ctx: LemonContext,
  scope: Scope,
  key: string,
  state: LifecycleState,
  agentId?: string,
): Promise<void> {
  const at = isoSeconds(ctx.now());
  await updateUsage(ctx, scope, (skills) => {
    const rec = recordOf(skills, key);
    rec.lifecycle_state = state;
    rec.state_updated_at = at;
    put(rec, "state_updated_by_agent_id", agentId);
  });
}

export { usageRows, usageReport, formatUsageReport, type UsageRow, type UsageReportOptions } from "./report.ts";
