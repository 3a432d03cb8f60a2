/**
 * @module skills/audit/cache
 * `skills.audit.json` (install.md §7.5): records keyed `<kind>:<key>`, reused only when the audit
 * fingerprint (bundle hash, engine, rules and lint versions) matches. Reads never throw for a bad
 * record (it is simply not reused); writes go through one locked transaction per flush.
 */
import { createHash } from "node:crypto";
import { AuditCacheFile, AuditRecord, emptyAuditCache } from "../../schema/audit-cache.ts";
import { isValid } from "../../schema/check.ts";
import { jsonCodec, readDocument, update } from "../../fsx/update.ts";

export const ENGINE_VERSION = "lemon-audit-1";
/** Bumped whenever a rule changes what it reports. */
export const RULES_VERSION = 1;

export type AuditKind = "skill" | "draft";

const codec = jsonCodec(AuditCacheFile, emptyAuditCache);

export function auditFingerprint(bundleHash: string, lintVersion: number): string {
  const text = [
    `bundle_hash=${bundleHash}`,
    `engine_version=${ENGINE_VERSION}`,
    `rules_version=${RULES_VERSION}`,
    `lint_version=${lintVersion}`,
  ].join("\n");
  return createHash("sha256").update(text).digest("hex");
}

export const recordId = (kind: AuditKind, key: string) => `${kind}:${key}`;

/** An in-memory view of one scope's audit cache; `flush()` writes pending records. */
export class AuditCache {
  private readonly pending = new Map<string, AuditRecord>();
  private readonly removed = new Set<string>();

  private constructor(
    readonly file: string,
    private readonly records: Record<string, unknown>,
  ) {}

  /** Opens the cache; a missing or invalid file reads as empty (it is not overwritten blindly: see flush). */
  static async open(file: string): Promise<AuditCache> {
    try {
      const doc = await readDocument(file, codec);
      return new AuditCache(file, doc.records ?? {});
    } catch {
      return new AuditCache(file, {});
    }
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

  /** Merges pending changes into the file under its lock. An invalid file is refused (CONFLICT). */
  async flush(opts: { now?: () => Date } = {}): Promise<void> {
    if (!this.dirty) return;
    const pending = new Map(this.pending);
    const removed = new Set(this.removed);
    await update(
      this.file,
      codec,
      (current) => {
        const records: Record<string, unknown> = { ...(current.records ?? {}) };
        for (const id of removed) delete records[id];
        for (const [id, rec] of pending) records[id] = rec;
        return { next: { ...current, version: 1, records }, result: undefined };
      },
      { command: "lemon skill audit", ...(opts.now ? { now: opts.now } : {}) },
    );
    for (const id of pending.keys()) this.pending.delete(id);
    for (const id of removed) this.removed.delete(id);
  }
}
