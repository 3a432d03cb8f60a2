/**
 * @module skills/audit/engine
 * One audit: enumerate and hash the bundle, reuse a cached record when its fingerprint matches,
 * otherwise run the structure and text rules plus lint, sort the findings and take the verdict
 * (install.md §7.4). A pure function of the bundle's bytes; nothing is executed.
 */
import { stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { Finding, SeverityCounts, Verdict } from "../../schema/finding.ts";
import type { AuditRecord, LintIssueRecord } from "../../schema/audit-cache.ts";
import type { Diagnostic } from "../../diagnostics.ts";
import { conflict, invalidRequest, LemonError, notFound } from "../../errors.ts";
import { isoSeconds } from "../../fsx/atomic.ts";
import { decodeUtf8 } from "../../text.ts";
import {
  assertComplete,
  bundleHashFromLines,
  enumerateBundle,
  hashLine,
  LIMITS,
  readEntry,
  type Bundle,
  type BundleEntry,
} from "../bundle.ts";
import { AuditCache, auditFingerprint, ENGINE_VERSION, type AuditKind } from "./cache.ts";
import { builtinLint, BUILTIN_LINT_VERSION, lintFindings, lintRecords, type LintHook } from "./lint-bridge.ts";
import { severityRank } from "./rules/types.ts";
import { scanText } from "./scan.ts";
import { looksExecutable } from "./context.ts";
import { bundleStructure, fileStructure, sniffBinary } from "./structure.ts";
import { formatFinding } from "./json.ts";

export interface AuditReport {
  key: string;
  path: string;
  bundle_hash: string;
  verdict: Verdict;
  counts: SeverityCounts;
  findings: Finding[];
  cached: boolean;
  engine_version: string;
  lint_valid: boolean;
  lint_issues: LintIssueRecord[];
  /** Problems with the audit cache (never fatal: the audit then runs uncached). */
  diagnostics: Diagnostic[];
}

export interface AuditOptions {
  /** Bypass the cache (the fresh record is still written). */
  force?: boolean;
  /** `skills.audit.json` of the scope; without it (and without `cache`) nothing is cached. */
  cacheFile?: string;
  /** An already open cache (batch audits); the caller flushes it. */
  cache?: AuditCache;
  kind?: AuditKind;
  /** Defaults to the directory name. */
  key?: string;
  /**
   * The full linter of skills.md §15 (without its audit step); defaults to the built-in structural
   * subset; `false` skips lint findings (lint calling the audit already has them).
   */
  lint?: LintHook | false;
  /** Version of the injected linter, part of the cache fingerprint. */
  lintVersion?: number;
  now?: () => Date;
}

function asText(bytes: Uint8Array): string | null {
  if (bytes.length > LIMITS.maxFileBytes || bytes.includes(0)) return null;
  return decodeUtf8(bytes);
}

const LOSSY = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });

/**
 * The text an interpreter or a reader would still see in a file that is not valid text: bash runs
 * a script with a NUL or a stray 0xff byte, an agent reads past one. Code-looking files are always
 * read this way; other files only when they are nearly all text (a real binary is not prose, and
 * its random bytes would decode into spurious hidden characters).
 */
function lossyText(rel: string, bytes: Uint8Array): string | null {
  // PowerShell runs UTF-16 scripts; their BOM says how to read them.
  const bom = (bytes[0] ?? 0) * 256 + (bytes[1] ?? 0);
  const utf16 = bom === 0xfffe ? "utf-16le" : bom === 0xfeff ? "utf-16be" : null;
  const text = utf16 !== null ? new TextDecoder(utf16).decode(bytes) : LOSSY.decode(bytes);
  // bash skips NUL bytes; the junk bytes are dropped too, so they split no command word.
  const plain = () => text.replace(/[\u0000\uFFFD]+/g, "");
  if (looksExecutable(rel, text)) return plain();
  if (sniffBinary(bytes) !== "other") return null;
  let odd = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0xfffd || (c < 0x20 && c !== 9 && c !== 10 && c !== 12 && c !== 13)) odd++;
  }
  return odd <= Math.max(8, text.length / 100) ? plain() : null;
}

function byteCompare(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** Severity, then file (byte order), then line, then rule (install.md §7.4). */
export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(
    (a, b) =>
      severityRank(a.severity) - severityRank(b.severity) ||
      byteCompare(a.file, b.file) ||
      a.line - b.line ||
      byteCompare(a.rule, b.rule),
  );
}

export function countFindings(findings: Finding[]): SeverityCounts {
  const counts: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

export function verdictOf(counts: SeverityCounts): Verdict {
  return counts.critical > 0 ? "block" : counts.high > 0 ? "warn" : "pass";
}

export { formatFinding } from "./json.ts";

interface Loaded {
  bundle: Bundle;
  /** Bytes kept from hashing (within KEEP_BYTES); other files are read again to be scanned. */
  bytes: Map<string, Uint8Array>;
  hashes: Map<string, string>;
  bundleHash: string;
}

/**
 * What the hashing pass keeps for the scan. A cache hit needs no bytes at all, so a large bundle
 * is read twice rather than held whole (the second read must hash the same).
 */
const KEEP_BYTES = 8 * 1024 * 1024;

function load(bundle: Bundle): Loaded {
  const bytes = new Map<string, Uint8Array>();
  const hashes = new Map<string, string>();
  let kept = 0;
  const lines = bundle.entries.map((e) => {
    if (e.kind !== "file") return hashLine(e, "");
    const r = readEntry(bundle, e);
    hashes.set(e.rel, r.hash);
    if (r.bytes !== null && (e.rel === "SKILL.md" || kept + r.bytes.length <= KEEP_BYTES)) {
      bytes.set(e.rel, r.bytes);
      kept += r.bytes.length;
    }
    return hashLine(e, r.hash);
  });
  return { bundle, bytes, hashes, bundleHash: bundleHashFromLines(lines) };
}

/** The bytes of a file for the scan: kept from hashing, or read again (null when over 16 MiB). */
function bytesOf(loaded: Loaded, e: BundleEntry): Uint8Array | null {
  const kept = loaded.bytes.get(e.rel);
  if (kept !== undefined) return kept;
  const r = readEntry(loaded.bundle, e);
  if (r.hash !== loaded.hashes.get(e.rel)) throw conflict(`${e.rel} changed while the bundle was audited; retry`);
  return r.bytes;
}

async function analyze(
  loaded: Loaded,
  dir: string,
  opts: AuditOptions,
): Promise<{ findings: Finding[]; lintValid: boolean; lintIssues: LintIssueRecord[] }> {
  const findings: Finding[] = bundleStructure(loaded.bundle);
  for (const e of loaded.bundle.entries) {
    if (e.kind !== "file") continue;
    const b = bytesOf(loaded, e);
    if (b === null) {
      // Fail closed: what the rules never read could hold anything.
      findings.push({
        rule: "bundle_limits",
        category: "structure",
        severity: "critical",
        file: e.rel,
        line: 0,
        message: "file over 16 MiB was not scanned",
        excerpt: "",
      });
      continue;
    }
    const text = asText(b);
    findings.push(...fileStructure(e, b, text !== null));
    const scanned = text ?? lossyText(e.rel, b);
    if (scanned !== null) findings.push(...scanText(e.rel, scanned));
    // What one large file left behind goes before the next is read: peaks do not add up.
    if (b.length > 1024 * 1024) Bun.gc(true);
  }
  const lint =
    opts.lint === false
      ? { valid: true, issues: [] }
      : opts.lint
        ? await opts.lint(dir)
        : builtinLint(loaded.bundle, loaded.bytes.get("SKILL.md") ?? null);
  findings.push(...lintFindings(lint));
  return { findings: sortFindings(findings), lintValid: lint.valid, lintIssues: lintRecords(lint) };
}

function fromRecord(rec: AuditRecord, path: string): AuditReport {
  return {
    key: rec.key,
    path,
    bundle_hash: rec.bundle_hash,
    verdict: rec.verdict,
    counts: rec.counts,
    findings: rec.findings,
    cached: true,
    engine_version: rec.engine_version,
    lint_valid: rec.lint_valid,
    lint_issues: rec.lint_issues,
    diagnostics: [],
  };
}

const nowOpt = (opts: { now?: () => Date }) => (opts.now ? { now: opts.now } : {});

/** Audits one skill directory (install.md §7). Throws NOT_FOUND / INVALID_REQUEST for a bad path. */
export async function auditBundle(dir: string, opts: AuditOptions = {}): Promise<AuditReport> {
  const path = resolve(dir);
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(path);
  } catch {
    throw notFound(`skill directory not found: ${path}`);
  }
  if (!st.isDirectory()) throw invalidRequest(`not a skill directory: ${path}`);
  const kind = opts.kind ?? "skill";
  const key = opts.key ?? basename(path);
  const bundle = await enumerateBundle(path, { kind });
  // Fail closed: a listing that misses files can neither be hashed honestly nor audited whole.
  assertComplete(bundle);
  const loaded = load(bundle);
  const fingerprint = auditFingerprint(
    loaded.bundleHash,
    opts.lint === false ? 0 : (opts.lintVersion ?? BUILTIN_LINT_VERSION),
  );
  const own = opts.cache === undefined && opts.cacheFile !== undefined;
  const cache =
    opts.cache ?? (opts.cacheFile !== undefined ? await AuditCache.open(opts.cacheFile, nowOpt(opts)) : undefined);
  const diagnostics = own && cache ? cache.diagnostics : [];
  if (cache && !opts.force) {
    const rec = cache.get(kind, key, fingerprint);
    if (rec !== null) return { ...fromRecord(rec, path), diagnostics };
  }
  const { findings, lintValid, lintIssues } = await analyze(loaded, path, opts);
  const counts = countFindings(findings);
  const verdict = verdictOf(counts);
  const report: AuditReport = {
    key,
    path,
    bundle_hash: loaded.bundleHash,
    verdict,
    counts,
    findings,
    cached: false,
    engine_version: ENGINE_VERSION,
    lint_valid: lintValid,
    lint_issues: lintIssues,
    diagnostics,
  };
  if (cache) {
    cache.put({
      key,
      kind,
      bundle_hash: loaded.bundleHash,
      audit_fingerprint: fingerprint,
      scanned_at: isoSeconds((opts.now ?? (() => new Date()))()),
      engine_version: ENGINE_VERSION,
      lint_valid: lintValid,
      lint_issues: lintIssues,
      verdict,
      findings,
      counts,
      approval_required: verdict === "warn",
    });
    if (own) await cache.flush(nowOpt(opts));
  }
  return report;
}

/** Audits many directories with one cache read and one cache write; order is preserved. */
export async function auditBundles(
  dirs: string[],
  opts: Omit<AuditOptions, "key" | "cache"> & { concurrency?: number; keyOf?: (dir: string) => string } = {},
): Promise<AuditReport[]> {
  const cache = opts.cacheFile !== undefined ? await AuditCache.open(opts.cacheFile, nowOpt(opts)) : undefined;
  const out: AuditReport[] = new Array(dirs.length);
  let next = 0;
  const worker = async () => {
    while (next < dirs.length) {
      const i = next++;
      const dir = dirs[i]!;
      out[i] = await auditBundle(dir, {
        ...opts,
        ...(cache ? { cache } : {}),
        ...(opts.keyOf ? { key: opts.keyOf(dir) } : {}),
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
  if (cache) {
    await cache.flush(nowOpt(opts));
    // Reported once, on the first report, however many bundles shared the cache.
    if (out[0] !== undefined) out[0].diagnostics = [...cache.diagnostics];
  }
  return out;
}

/** The hook `lint` takes for its `audit_warn`/`audit_block` codes (skills.md §15.1). */
export async function auditForLint(
  dir: string,
  opts: Omit<AuditOptions, "lint"> = {},
): Promise<{ verdict: Verdict; findings: string[] }> {
  let r: AuditReport;
  try {
    r = await auditBundle(dir, { ...opts, lint: false });
  } catch (err) {
    // A bundle too large to list whole is blocked for lint, not an error of the whole lint run.
    if (err instanceof LemonError && err.message.startsWith("bundle_limits_exceeded:"))
      return { verdict: "block", findings: [`[critical] bundle_limits: ${err.message} (.:0)`] };
    throw err;
  }
  return {
    verdict: r.verdict,
    findings: r.findings.filter((f) => f.severity === "critical" || f.severity === "high").map(formatFinding),
  };
}
