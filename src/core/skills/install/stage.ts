/**
 * @module skills/install/stage
 * install.md §5 steps 4–8 on the selected source directory: copy its regular files into a private
 * staging directory (refusing symlinks, special files and oversized bundles as it goes), validate
 * SKILL.md through the one reader, hash, and audit the staged copy. What is audited is what was
 * copied and what gets hashed and activated: the source is never read again.
 */
import { realpathSync, rmSync } from "node:fs";
import { chmod, mkdir, open, rm } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import type { LemonContext } from "../../context.ts";
import { conflict, invalidRequest, LemonError } from "../../errors.ts";
import { randomHex } from "../../fsx/atomic.ts";
import { holdPath, releasePath } from "../../fsx/cleanup.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { sha256Hex } from "../../hash.ts";
import { assertInstallable, bundleHashFromLines, enumerateBundle, hashLine, LIMITS } from "../bundle.ts";
import type { AuditReport } from "../audit/engine.ts";
import { auditTarget } from "../audit/target.ts";
import { tempDirError } from "./fs-errors.ts";
import { readSkillFile } from "../skill-file.ts";

/** A private directory this process created and removes at the end, success or failure. */
export interface TempDir {
  path: string;
  remove(): Promise<void>;
}

/**
 * Creates `<parent>/<name>` with mode 0700, removed on SIGINT/SIGTERM/SIGHUP unless `keepOnSignal`
 * (a journal must survive the process that writes it). Dot-named by every caller, so discovery
 * never sees it (skills.md §2.2).
 */
export async function privateDir(parent: string, name: string, keepOnSignal = false): Promise<TempDir> {
  const path = join(parent, name);
  try {
    await mkdir(path, { mode: 0o700 });
  } catch (err) {
    throw tempDirError(parent, err);
  }
  if (!keepOnSignal) holdPath(path, () => rmSync(path, { recursive: true, force: true }));
  let removed = false;
  return {
    path,
    async remove() {
      if (removed) return;
      removed = true;
      try {
        await rm(path, { recursive: true, force: true });
      } finally {
        releasePath(path);
      }
    },
  };
}

/**
 * `<pid>-<random>`: the random part of a temporary name, led by the pid so that the next install
 * can remove what a killed one left (activate.ts `sweepTemp`).
 */
export const tempSuffix = () => `${process.pid}-${randomHex(6)}`;

/** The staged copy of one skill, hashed and audited. */
export interface Staged {
  /** `<dest_root>/.<key>.staging-<random>`, holding `dir`; removed by the caller. */
  outer: TempDir;
  /** `<outer>/<key>`: a directory named like the key, so lint and the audit see the real key. */
  dir: string;
  key: string;
  /** sha256 of SKILL.md's bytes. */
  contentHash: string;
  bundleHash: string;
  report: AuditReport;
}

/** Mode bits masked as install.md §7.1 says: executable for anyone when executable for someone. */
const maskedMode = (mode: number) => ((mode & 0o111) !== 0 ? 0o755 : 0o644);

/**
 * Copies the bundle of `source` (install.md §7.1) into `into`, file by file as regular files. Every
 * file must still be the one the listing saw (same inode, still regular): one swapped for a
 * symlink or a FIFO between listing and copy is refused. Returns the bundle hash of the bytes copied.
 */
async function copyBundle(source: string, into: string, exclude: readonly string[]): Promise<string> {
  const bundle = await enumerateBundle(source, { exclude });
  assertInstallable(bundle);
  const lines: string[] = [];
  for (const e of bundle.entries) {
    const parts = e.rel.split("/");
    const read = readRegularFile(join(source, ...parts), LIMITS.maxFileBytes);
    if (!read.ok || read.stat.ino !== e.ino || read.stat.dev !== e.dev) {
      if (!read.ok && read.problem === "unreadable")
        throw invalidRequest(`bundle_limits_exceeded: unreadable file ${JSON.stringify(e.rel)}`);
      throw conflict(`${e.rel} changed while the bundle was read; retry`);
    }
    const out = join(into, ...parts);
    await mkdir(dirname(out), { recursive: true, mode: 0o755 });
    const mode = maskedMode(read.stat.mode);
    const fh = await open(out, "wx", mode);
    try {
      await fh.writeFile(read.bytes);
    } finally {
      await fh.close();
    }
    // The umask may have taken bits off at open: installed files carry exactly the masked mode.
    await chmod(out, mode);
    lines.push(hashLine(e, sha256Hex(read.bytes)));
  }
  return bundleHashFromLines(lines);
}

const realOr = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * What of lemon's own state lies inside `source`, relative to it: the top-level `.lemon` (a
 * project's P: its lockfile and installed skills), and the destination root and A wherever they
 * are. Left out of the bundle, a project installed as its own skill does not nest a copy of its
 * state (and of itself) on every re-install. `.git` is left out by the bundle rule itself (§7.1).
 */
function lemonStateIn(ctx: LemonContext, source: string, destRoot: string): string[] {
  const base = realOr(source);
  const out = [".lemon"];
  for (const dir of [destRoot, ctx.agentDir]) {
    const rel = relative(base, realOr(dir));
    if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) out.push(rel.split(sep).join("/"));
  }
  return out;
}

/**
 * Steps 4 (copy), 5 (limits, symlinks, special files), 6 (SKILL.md), 7 (hashes) and the audit run
 * of step 8, for the skill directory `source`, staged under `destRoot`. The verdict is the caller's
 * to act on. On failure nothing is left behind.
 */
export async function stageSkill(ctx: LemonContext, source: string, destRoot: string, key: string): Promise<Staged> {
  const outer = await privateDir(destRoot, `.${key}.staging-${tempSuffix()}`);
  try {
    const dir = join(outer.path, key);
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    const copied = await copyBundle(source, dir, lemonStateIn(ctx, source, destRoot));
    const skill = await readSkillFile(join(dir, "SKILL.md"), dir);
    if (!skill.ok) throw invalidRequest(`invalid SKILL.md: ${skill.message}`, { details: { reason: skill.code } });
    // The audit of a plain directory (not an installed entry): no cache is read or written, and its
    // key is the staged directory's name. The install writes the record once the skill is active.
    const report = await auditTarget(ctx, dir, async () => [], { force: true });
    if (report.bundle_hash !== copied)
      throw new LemonError("OPERATION_FAILED", "the staged bundle changed while it was audited");
    return { outer, dir, key, contentHash: skill.contentHash, bundleHash: copied, report };
  } catch (err) {
    await outer.remove();
    throw err;
  }
}
