/**
 * @module skills/search/identity
 * Scope ids and the content identity of skills.md §7.3: the root list, the candidate directories
 * in precedence order, and (size, mtime, ctime, inode, device) of every SKILL.md and of the scope's
 * lockfile. Stats go through `statSync` with `throwIfNoEntry: false` (no exception objects for
 * missing files) in one tight loop.
 */
import { statSync } from "node:fs";
import { scanRoots } from "../catalog.ts";
import { fingerprintOf, sha256Hex } from "../load.ts";
import type { SkillRoot } from "../roots.ts";
import type { SkillCandidate } from "../scan.ts";
import type { Diagnostic } from "../../diagnostics.ts";

/** Canonical JSON of a root list (sorted keys), the input of the scope id. */
export function canonicalRoots(roots: readonly SkillRoot[]): string {
  return JSON.stringify(roots.map((r) => ({ exists: r.exists, label: r.label, path: r.path, realPath: r.realPath, scope: r.scope })));
}

/** First 16 hex of sha256 of the canonical root list. */
export function scopeId(roots: readonly SkillRoot[]): string {
  return sha256Hex(canonicalRoots(roots)).slice(0, 16);
}

export interface ScopeIdentity {
  digest: Uint8Array;
  hex: string;
  candidates: SkillCandidate[];
  /** Fingerprint per candidate ("" when SKILL.md cannot be stat'ed). */
  fingerprints: string[];
  diagnostics: Diagnostic[];
}

function fingerprint(file: string): string {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st ? fingerprintOf(st) : "";
  } catch {
    return "";
  }
}

export function computeIdentity(roots: readonly SkillRoot[], lockfile: string): ScopeIdentity {
  const { candidates, diagnostics } = scanRoots([...roots]);
  const fingerprints = new Array<string>(candidates.length);
  const h = new Bun.CryptoHasher("sha256");
  h.update(canonicalRoots(roots));
  h.update(`\nlock ${fingerprint(lockfile)}\n`);
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i]!;
    const fp = fingerprint(c.skillFile);
    fingerprints[i] = fp;
    h.update(`${c.path}\0${c.realPath}\0${fp}\n`);
  }
  const digest = new Uint8Array(h.digest());
  return { digest, hex: Buffer.from(digest).toString("hex"), candidates, fingerprints, diagnostics };
}

export function sameIdentity(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
