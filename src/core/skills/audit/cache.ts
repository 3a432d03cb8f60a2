/**
 * @module skills/audit/cache
 * `skills.audit.json` (install.md §7.5): records keyed `<kind>:<key>`, reused only when the audit
 * fingerprint (bundle hash, engine, rules and lint versions) matches. The cache never decides or
 * aborts an audit: a file that does not parse is set aside (`<file>.corrupt-<timestamp>`) and
 * reported, an unreadable or unwritable one is reported and the audit runs uncached.
 */
import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { type Diagnostic, diagnostic } from "../../diagnostics.ts";
import { LemonError } from "../../errors.ts";
import { jsonCodec, readDocument, update } from "../../fsx/update.ts";
import { AuditCacheFile, AuditRecord, emptyAuditCache } from "../../schema/audit-cache.ts";
import { isValid } from "../../schema/check.ts";
import { sha256Hex } from "../../hash.ts";

export const ENGINE_VERSION = "lemon-audit-1";
/** Bumped whenever a rule changes what it reports. */
export const RULES_VERSION = 4;

export type AuditKind = "skill" | "draft";

const codec = jsonCodec(AuditCacheFile, emptyAuditCache);
const KNOWN_FIELDS = new Set(Object.keys(AuditRecord.properties));

export function auditFingerprint(bundleHash: string, lintVersion: number): string {
  const text = [
    `bundle_hash=${bundleHash}`,
    `engine_version=${ENGINE_VERSION}`,
    `rules_version=${RULES_VERSION}`,
    `lint_version=${lintVersion}`,
  ].join("\n");
  return sha256Hex(text);
}

export const recordId = (kind: AuditKind, key: string) => `${kind}:${key}`;

const errnoOf = (err: unknown): string | undefined =>
  err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string"
    ? (err as NodeJS.ErrnoException).code
    : undefined;

/** `2026-12-01T072943Z`: sortable, and free of the colons some file systems refuse. */
const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replaceAll(":", "");

/** Moves an unparsable cache out of the way so the next write starts afresh; returns the new name. */
async function setAside(file: string, now: Date): Promise<string> {
  let aside = `${file}.corrupt-${stamp(now)}`;
  if (existsSync(aside)) aside += `-${crypto.randomUUID().slice(0, 8)}`;
  await rename(file, aside);
  return aside;
}

/** An in-memory view of one scope's audit cache; `flush()` writes pending records. */
export class AuditCache {
  private readonly pending = new Map<string, AuditRecord>();
  private readonly removed = new Set<string>();
  /** Problems met reading or writing the file, for the caller to report (each once). */
  readonly diagnostics: Diagnostic[] = [];

  private constructor(
    readonly file: string,
    private readonly records: Record<string, unknown>,
    /** False when the file could not be read or set aside: nothing is written over it. */
    private readonly writable: boolean,
  ) {}

  /** Opens the cache; a missing file reads as empty, a bad one as described in the module doc. */
  static async open(file: string, opts: { now?: () => Date } = {}): Promise<AuditCache> {
    try {
      const doc = await readDocument(file, codec);
      return new AuditCache(file, doc.records ?? {}, true);
    } catch (err) {
      const errno = errnoOf(err);
      const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
      if (errno !== undefined) {
        return AuditCache.broken(
          file,
          false,
          "audit_cache_unreadable",
          `audit cache unreadable (${errno}); audit run uncached`,
        );
      }
      try {
        const aside = await setAside(file, (opts.now ?? (() => new Date()))());
        return AuditCache.broken(
          file,
          true,
          "audit_cache_invalid",
          `invalid audit cache (${reason}) set aside as ${aside}`,
        );
      } catch (renameErr) {
        const code = errnoOf(renameErr) ?? "error";
        const message = `invalid audit cache (${reason}) could not be set aside (${code}); audit run uncached`;
        return AuditCache.broken(file, false, "audit_cache_invalid", message);
      }
    }
  }

  /** An empty cache standing in for a bad file, with the diagnostic that says why. */
  private static broken(file: string, writable: boolean, code: string, message: string): AuditCache {
    const cache = new AuditCache(file, {}, writable);
    cache.diagnostics.push(diagnostic("warn", code, message, { path: file }));
    return cache;
  }

  /** The record for `<kind>:<key>` when its fingerprint matches, else null. */
  get(kind: AuditKind, key: string, fingerprint: string): AuditRecord | null {
    const id = recordId(kind, key);
    const rec = this.pending.get(id) ?? (this.removed.has(id) ? undefined : this.records[id]);
    if (!isValid(AuditRecord, rec)) return null;
    const r = rec as AuditRecord;
    return r.audit_fingerprint === fingerprint && r.kind === kind && r.key === key ? r : null;
  }

  put(record: AuditRecord): void {
    const id = recordId(record.kind, record.key);
    this.removed.delete(id);
    this.pending.set(id, record);
  }

  remove(kind: AuditKind, key: string): void {
    const id = recordId(kind, key);
    this.pending.delete(id);
    this.removed.add(id);
  }

  get dirty(): boolean {
    return this.pending.size > 0 || this.removed.size > 0;
  }

  /**
   * Merges pending changes into the file under its lock. Fields of a replaced record that this
   * version does not know (a newer lemon's) are kept. A failed write becomes a diagnostic.
   */
  async flush(opts: { now?: () => Date } = {}): Promise<void> {
    if (!this.dirty) return;
    const pending = new Map(this.pending);
    const removed = new Set(this.removed);
    this.pending.clear();
    this.removed.clear();
    if (!this.writable) return;
    try {
      await update(
        this.file,
        codec,
        (current) => {
          const records: Record<string, unknown> = { ...(current.records ?? {}) };
          for (const id of removed) delete records[id];
          for (const [id, rec] of pending) records[id] = { ...unknownFields(records[id]), ...rec };
          return { next: { ...current, version: 1, records }, result: undefined };
        },
        { command: "lemon skill audit", confineTo: null, ...(opts.now ? { now: opts.now } : {}) },
      );
    } catch (err) {
      if (!LemonError.is(err) && errnoOf(err) === undefined) throw err;
      const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
      this.diagnostics.push(
        diagnostic("warn", "audit_cache_unwritable", `audit cache not written: ${reason}`, { path: this.file }),
      );
    }
  }
}

function unknownFields(prev: unknown): Record<string, unknown> {
  if (typeof prev !== "object" || prev === null || Array.isArray(prev)) return {};
  return Object.fromEntries(Object.entries(prev).filter(([k]) => !KNOWN_FIELDS.has(k)));
}
