/**
 * @module skills/lockfile
 * `skills.lock.json` (install.md §6): the lenient read every listing does, the locked
 * read-modify-write installs, updates and uninstalls do, and the identities `check` and
 * `update` compare. Unknown top-level keys and record fields survive a rewrite (skills.md §1.3
 * rule 5); a record the change left as it was is written back byte-for-byte as it was read.
 */
import { conflict } from "../errors.ts";
import { isJsonFormatError, parseJson } from "../json.ts";
import { readRegularFile } from "../fsx/regular-file.ts";
import type { Codec } from "../fsx/update.ts";
import { lockFileShape, lockRecordChecks } from "../schema/skills.checks.js";
import type { LockDoc, LockRecord } from "../schema/lockfile.ts";
import { decodeUtf8 } from "../text.ts";
import { keyProblem } from "./skill-key.ts";

export type { LockAgent, LockDoc, LockRecord } from "../schema/lockfile.ts";

/** The largest lockfile read: a clone's `P/skills.lock.json` must not cost a listing unbounded memory. */
export const LOCKFILE_MAX_BYTES = 4 * 1024 * 1024;

export type LockRead = { ok: true; doc: LockDoc } | { ok: false; reason: string };

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** A record with every field present and unknown (install.md §6: "every field is present"). */
export function emptyRecord(key: string): LockRecord {
  return {
    key,
    source_kind: null,
    source_id: null,
    source_ref: null,
    subdir: null,
    trust_level: null,
    content_hash: null,
    bundle_hash: null,
    upstream_hash: null,
    resolved_commit: null,
    installed_at: null,
    updated_at: null,
    checked_at: null,
    latest_upstream_hash: null,
    audit_status: null,
    audit_findings: [],
    audit_engine_version: null,
    audit_approval: null,
    security_override: null,
    agent: "lemon",
  };
}

/** A skills map without a prototype: keys such as `constructor` must not find Object's members. */
const newSkillsMap = (): Record<string, LockRecord> => Object.create(null) as Record<string, LockRecord>;

/** Sets an own property even for `__proto__`, which plain assignment would treat as the prototype. */
function put(obj: object, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

const isKey = (key: string) => keyProblem(key) === null;

/**
 * One record read leniently: each field that fails its schema reads as its fallback (null, `[]`
 * for findings). The map key is the record's identity: a `key` field that disagrees is ignored,
 * since lookups, installs and removals all go by the map key. A missing (or null) `agent` is
 * `lemon`; a record naming a root this lemon does not know is null: it describes no location
 * lemon reads, so it is not read at all (and kept as it was on rewrite).
 */
function normalizeRecord(key: string, raw: unknown): LockRecord | null {
  const rec = emptyRecord(key);
  if (!isObject(raw)) return rec;
  const out = rec as unknown as JsonObject;
  for (const [field, check] of lockRecordChecks) {
    if (field === "key" || !Object.hasOwn(raw, field)) continue;
    const v = raw[field];
    if (check(v)) out[field] = v;
    else if (field === "agent") {
      if (v !== null) return null;
    } else if (field === "audit_findings") out[field] = Array.isArray(v) ? v.filter((s) => typeof s === "string") : [];
    else out[field] = null;
  }
  return rec;
}

/** What a file's text is, beyond the normalised document: the raw JSON a rewrite merges into. */
interface Parsed {
  doc: LockDoc;
  raw: JsonObject;
}

/**
 * A lockfile is five levels deep (document, skills, record, override, findings). A clone's file
 * nested a million levels would cost the parser about a second on every listing, so anything
 * deeper than this is refused before parsing (a linear scan, strings skipped).
 */
const MAX_DEPTH = 32;

function tooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DEPTH) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Throws an Error whose message is the reason the file cannot be read (§6 "invalid"). */
function parseLock(text: string): Parsed {
  if (tooDeep(text)) throw new Error(`nesting deeper than ${MAX_DEPTH} levels`);
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (err) {
    throw new Error(isJsonFormatError(err) ? err.reason : "invalid JSON");
  }
  if (!isObject(raw) || !lockFileShape(raw)) {
    throw new Error(isObject(raw) ? "skills: expected object" : "top level: expected object");
  }
  // A later format must not be read as this one, nor rewritten as version 1.
  if (Object.hasOwn(raw, "version") && raw.version !== 1) throw new Error("unsupported version");
  const skills = newSkillsMap();
  const rawSkills = isObject(raw.skills) ? raw.skills : {};
  for (const [key, value] of Object.entries(rawSkills)) {
    // A key no skill can have matches no entry; it is kept on rewrite but never read.
    const rec = isKey(key) ? normalizeRecord(key, value) : null;
    if (rec !== null) put(skills, key, rec);
  }
  return { doc: { version: 1, skills }, raw };
}

function readBytes(file: string): { ok: true; bytes: Uint8Array | null } | { ok: false; reason: string } {
  const read = readRegularFile(file, LOCKFILE_MAX_BYTES);
  if (read.ok) return { ok: true, bytes: read.bytes };
  // ENOTDIR (a `.lemon` that is a file) reads as missing too: the listing reports that state dir
  // itself, and a write fails on it before anything is replaced.
  if (read.problem === "missing") return { ok: true, bytes: null };
  if (read.problem === "not_regular") return { ok: false, reason: "not a regular file" };
  if (read.problem === "too_large") return { ok: false, reason: `file exceeds ${LOCKFILE_MAX_BYTES} bytes` };
  return { ok: false, reason: `cannot read file (${read.errno ?? "error"})` };
}

const emptyDoc = (): LockDoc => ({ version: 1, skills: newSkillsMap() });

/** A deep copy that keeps the prototype-free skills map (structuredClone would give it Object's). */
function cloneDoc(doc: LockDoc): LockDoc {
  const out = emptyDoc();
  for (const [k, rec] of Object.entries(doc.skills)) put(out.skills, k, structuredClone(rec));
  return out;
}

/**
 * Lenient read for listings (install.md §6): a missing file or one without `skills` is empty;
 * malformed JSON, a wrong top level, a non-object `skills`, an unsupported version, a file that
 * is not a regular file, too large or unreadable is `{ok: false, reason}`. Never throws.
 */
export async function readLockfile(file: string): Promise<LockRead> {
  return readLockfileSync(file);
}

/** {@link readLockfile} without the promise, for the catalog's synchronous scope build. */
export function readLockfileSync(file: string): LockRead {
  const bytes = readBytes(file);
  if (!bytes.ok) return bytes;
  if (bytes.bytes === null) return { ok: true, doc: emptyDoc() };
  const text = decodeUtf8(bytes.bytes);
  if (text === null) return { ok: false, reason: "file is not valid UTF-8" };
  try {
    return { ok: true, doc: parseLock(text).doc };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

const RECORD_FIELDS: readonly string[] = lockRecordChecks.map(([f]) => f);

function sameRecord(a: LockRecord, b: LockRecord): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The JSON to write for `next`, read as `before`: known top-level keys first, records sorted by
 * key with the §6 fields in order, then whatever unknown fields the file had.
 */
function merge(before: Parsed, next: LockDoc): JsonObject {
  const rawSkills = isObject(before.raw.skills) ? before.raw.skills : {};
  const skills: JsonObject = {};
  const keys = new Set(Object.keys(next.skills));
  // Entries the read could not use (keys no skill can have, unknown roots) stay as they were.
  for (const k of Object.keys(rawSkills)) if (!Object.hasOwn(before.doc.skills, k)) keys.add(k);
  for (const k of [...keys].sort()) {
    const rec = Object.hasOwn(next.skills, k) ? next.skills[k] : undefined;
    const raw = rawSkills[k];
    if (rec === undefined) {
      put(skills, k, raw);
      continue;
    }
    const old = Object.hasOwn(before.doc.skills, k) ? before.doc.skills[k] : undefined;
    let value: unknown;
    if (old !== undefined && raw !== undefined && sameRecord(old, rec)) value = raw;
    else {
      const out: JsonObject = {};
      const recObj = rec as unknown as JsonObject;
      for (const f of RECORD_FIELDS) put(out, f, f === "key" ? k : recObj[f]);
      if (isObject(raw)) for (const [f, v] of Object.entries(raw)) if (!RECORD_FIELDS.includes(f)) put(out, f, v);
      value = out;
    }
    put(skills, k, value);
  }
  const out: JsonObject = { version: 1, skills };
  for (const [k, v] of Object.entries(before.raw)) {
    if (k !== "version" && k !== "skills") put(out, k, v);
  }
  return out;
}

export interface UpdateLockfileOptions {
  command?: string;
  lockTimeoutMs?: number;
}

/**
 * Read-modify-write under the lockfile's lock (fsx/update.ts). An invalid file fails `CONFLICT`
 * `refusing to overwrite invalid <file>: <reason>`. `change` may do filesystem work (activation)
 * while the lock is held; `next: undefined` writes nothing. `confineTo` is `C` for `P/skills.lock.json`.
 */
export async function updateLockfile<R>(
  file: string,
  confineTo: string | null,
  change: (doc: LockDoc) => Promise<{ next: LockDoc | undefined; result: R }>,
  opts: UpdateLockfileOptions = {},
): Promise<R> {
  // Loaded here: the write code (locks, atomic writes) is no listing's cost.
  const [{ update }, { formatJson }] = await Promise.all([import("../fsx/update.ts"), import("../fsx/atomic.ts")]);
  const codec: Codec<Parsed> = {
    empty: () => ({ doc: emptyDoc(), raw: {} }),
    parse: parseLock,
    serialize: (p) => formatJson(p.raw),
    maxBytes: LOCKFILE_MAX_BYTES,
  };
  return update(
    file,
    codec,
    async (current) => {
      // The change gets its own copy: `merge` compares against what was read.
      const { next, result } = await change(cloneDoc(current.doc));
      if (next === undefined) return { next: undefined, result };
      return { next: { doc: next, raw: merge(current, next) }, result };
    },
    {
      confineTo,
      command: opts.command ?? "lemon skill install",
      ...(opts.lockTimeoutMs !== undefined ? { lockTimeoutMs: opts.lockTimeoutMs } : {}),
    },
  );
}

/** The record of `key`, or null (the skills map has no prototype, but a hostile file could still say `__proto__`). */
export function recordOf(doc: LockDoc, key: string): LockRecord | null {
  return Object.hasOwn(doc.skills, key) ? (doc.skills[key] ?? null) : null;
}

/**
 * The lock of a scope read ahead of a write: an invalid file refuses the operation before anyone
 * is asked anything (install.md §6), with the message {@link updateLockfile} would give.
 */
export async function readLockForWrite(file: string): Promise<LockDoc> {
  const read = await readLockfile(file);
  if (!read.ok) throw conflict(`refusing to overwrite invalid ${file}: ${read.reason}`);
  return read.doc;
}

/** The installed identity of §6 "Update available": the commit for git-like sources, else `upstream_hash`. */
export function installedIdentity(rec: LockRecord): string | null {
  switch (rec.source_kind) {
    case "git":
    case "github":
    case "registry":
      return rec.resolved_commit;
    case "hermes":
    case "local":
    case "well_known":
      return rec.upstream_hash;
    default:
      return null;
  }
}

/** `update_available` for check (install.md §6, skills.md §15.2): only what a previous `update --check` recorded. */
export function updateAvailable(rec: LockRecord): { value: boolean | null; reason: string | null } {
  const installed = installedIdentity(rec);
  if (installed === null) return { value: null, reason: "the install record has no upstream identity" };
  if (rec.latest_upstream_hash === null) {
    return { value: null, reason: "never checked; run `lemon skill update <key> --check` (or --all --check)" };
  }
  return { value: rec.latest_upstream_hash !== installed, reason: null };
}
