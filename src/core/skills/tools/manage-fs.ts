/**
 * @module skills/tools/manage-fs
 * The file system side of `skill_manage` (skills.md §9): symlink refusal, per-skill locking, and
 * staged writes. A change is made in a staging copy of the skill beside it
 * (`<root>/.stage-<pid>-<random>/<name>/`, unchanged files hard-linked), the copy is audited, and
 * only a passing (or warning) copy is committed with one rename or unlink into the real skill.
 * So a `block`, a crash or a kill at any step before the commit leaves the skill exactly as it
 * was, and nothing is ever written through a link: rename(2) replaces a name, never its target.
 * Dot-named staging and trash directories are invisible to discovery (scan.ts skips them).
 */
import { lstat, link, copyFile, mkdir, open, readdir, readlink, rename, rm, symlink, unlink } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import type { LemonContext } from "../../context.ts";
import { confinedTarget, randomHex, writeFileAtomic } from "../../fsx/atomic.ts";
import { acquireLock, type FileLock } from "../../fsx/lock.ts";
import { pidAlive } from "../../fsx/pid.ts";
import { isInside, resolvePaths, type Scope } from "../../paths.ts";
import { WALK_CAP } from "../bundle.ts";
import { ManageError } from "./manage-params.ts";

/** What a path is, without following a link at its last component. */
export type PathKind = "missing" | "dir" | "file" | "symlink" | "other";

export async function kindOf(path: string): Promise<PathKind> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return "symlink";
    if (st.isDirectory()) return "dir";
    if (st.isFile()) return "file";
    return "other";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    throw err;
  }
}

const symlinkRefused = (p: string) => new ManageError("forbidden", `refusing to write through symlink: ${p}`);

/**
 * The scope's lemon skill root (§9: `P/skill` or `A/skill`). In project scope it must resolve
 * inside the project's real path, so a `.lemon` link cannot send agent writes elsewhere.
 */
export async function skillRootOf(ctx: LemonContext, scope: Scope): Promise<string> {
  const paths = resolvePaths(ctx);
  const root = scope === "project" ? paths.project.skillRoot : paths.global.skillRoot;
  try {
    await confinedTarget(root, scope === "project" ? ctx.cwd : null);
  } catch (err) {
    if ((err as { code?: string }).code === "FORBIDDEN") throw symlinkRefused(root);
    throw err;
  }
  return root;
}

/**
 * Refuses (§9 Symlinks) when the skill dir, or any existing component below it on the way to
 * each of `rels` (`/`-separated), is a symlink. Returns the kind of each full path.
 */
export async function assertNoLinks(skillDir: string, rels: readonly string[]): Promise<PathKind[]> {
  const dirKind = await kindOf(skillDir);
  if (dirKind === "symlink") throw symlinkRefused(skillDir);
  const out: PathKind[] = [];
  for (const rel of rels) {
    let p = skillDir;
    let kind: PathKind = dirKind;
    for (const seg of rel.split("/")) {
      if (kind === "missing") break;
      // A file where a directory must be: named here, not as a raw ENOTDIR from the stage.
      if (kind !== "dir") throw new ManageError("conflict", `${p} is not a directory`);
      p = join(p, seg);
      kind = await kindOf(p);
      if (kind === "symlink") throw symlinkRefused(p);
    }
    out.push(kind);
  }
  return out;
}

/** The per-skill lock (`<root>/.<name>.lock/`), so two writers of one skill queue instead of interleaving. */
export async function lockSkill(ctx: LemonContext, root: string, name: string): Promise<FileLock> {
  try {
    return await acquireLock(join(root, `.${name}`), { command: "skill_manage", now: ctx.now });
  } catch (err) {
    if ((err as { code?: string }).code === "CONFLICT") throw new ManageError("conflict", (err as Error).message);
    throw err;
  }
}

/**
 * A test seam for crash safety: when `LEMON_TEST_PAUSE_AT` names this step, the process writes
 * `LEMON_TEST_PAUSE_FILE` (if set) and waits forever, so a test can SIGKILL it right there.
 * The variable comes from the embedder's environment (ctx.env), never from tool arguments.
 */
export async function pauseAt(ctx: LemonContext, step: string): Promise<void> {
  if (ctx.env.LEMON_TEST_PAUSE_AT !== step) return;
  const mark = ctx.env.LEMON_TEST_PAUSE_FILE;
  if (mark !== undefined && mark !== "") await writeFileAtomic(mark, step, { confineTo: null });
  await new Promise<void>(() => {
    setInterval(() => {}, 60_000);
  });
}

/** A staging copy of one skill; `dir` ends in the skill's name, so lint sees the real key. */
export interface Stage {
  container: string;
  dir: string;
  dispose(): Promise<void>;
}

const STAGE_PREFIX = ".stage-";
const TRASH_PREFIX = ".trash-";

/** Removes staging and trash directories of processes that are gone (a crash or a kill). */
async function removeDeadLeftovers(root: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return;
  }
  for (const n of names) {
    const prefix = n.startsWith(STAGE_PREFIX) ? STAGE_PREFIX : n.startsWith(TRASH_PREFIX) ? TRASH_PREFIX : null;
    if (prefix === null) continue;
    const pid = Number(n.slice(prefix.length).split("-")[0]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || pidAlive(pid)) continue;
    await rm(join(root, n), { recursive: true, force: true });
  }
}

/** A fresh staging directory for `name` under `root`; with `from`, a hard-linked copy of that skill. */
export async function stageSkill(root: string, name: string, from: string | null): Promise<Stage> {
  await mkdir(root, { recursive: true, mode: 0o755 });
  await removeDeadLeftovers(root);
  const container = join(root, `${STAGE_PREFIX}${process.pid}-${randomHex(6)}`);
  await mkdir(container, { mode: 0o700 });
  const dir = join(container, name);
  const dispose = () => rm(container, { recursive: true, force: true });
  try {
    if (from === null) await mkdir(dir, { mode: 0o755 });
    else await mirror(from, dir, { left: WALK_CAP });
  } catch (err) {
    await dispose();
    throw err;
  }
  return { container, dir, dispose };
}

/**
 * Recreates `src` at `dst` without following links: directories made, files hard-linked (copied
 * where links are refused), links recreated as links. A special file is linked too, so the audit
 * of the copy sees exactly what the audit of the skill would. The top-level `.git` is not part of
 * a bundle (install.md §7.1) and is left out.
 */
async function mirror(src: string, dst: string, budget: { left: number }, top = true): Promise<void> {
  await mkdir(dst, { mode: 0o755 });
  for (const e of await readdir(src, { withFileTypes: true })) {
    if (top && e.name === ".git") continue;
    if (--budget.left < 0) throw new ManageError("io_error", `skill directory has more than ${WALK_CAP} entries`);
    const s = join(src, e.name);
    const d = join(dst, e.name);
    if (e.isSymbolicLink()) await symlink(await readlink(s), d);
    else if (e.isDirectory()) await mirror(s, d, budget, false);
    else {
      try {
        await link(s, d);
      } catch (err) {
        if (!e.isFile()) throw err;
        await copyFile(s, d);
      }
    }
  }
}

/** Writes a new file into the staging copy (replacing, never modifying, a linked one). */
export async function writeStaged(stage: Stage, rel: string, text: string): Promise<string> {
  const file = join(stage.dir, ...rel.split("/"));
  await mkdir(dirname(file), { recursive: true, mode: 0o755 });
  // Installed skill files are 0644 (install.md §7.1); the temp-and-rename keeps a linked original intact.
  await writeFileAtomic(file, text, { confineTo: stage.container, mode: 0o644 });
  return file;
}

/** Removes a file from the staging copy only. */
export async function removeStaged(stage: Stage, rel: string): Promise<void> {
  await unlink(join(stage.dir, ...rel.split("/")));
}

async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  try {
    const fh = await open(dir, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Some file systems refuse directory fsync; the rename itself is still atomic.
  }
}

/** Commit of `create`: the staged skill directory renamed into place (it must still be absent). */
export async function commitNewSkill(stage: Stage, skillDir: string): Promise<void> {
  if ((await kindOf(skillDir)) !== "missing")
    throw new ManageError("conflict", `Skill '${lastSegment(skillDir)}' already exists at ${skillDir}`);
  await rename(stage.dir, skillDir);
  await fsyncDir(dirname(skillDir));
}

/**
 * Commit of one file: the staged file renamed over `rel` in the real skill, missing parent
 * directories created first. The caller has refused links on the way (assertNoLinks) under the lock.
 */
export async function commitFile(stage: Stage, skillDir: string, rel: string): Promise<void> {
  const segs = rel.split("/");
  const target = join(skillDir, ...segs);
  // Belt and braces: checkFilePath already proved `rel` relative and free of `..`.
  if (!isInside(target, skillDir) || target === skillDir)
    throw new ManageError("forbidden", `refusing to write outside ${skillDir}`);
  await mkdir(dirname(target), { recursive: true, mode: 0o755 });
  await rename(join(stage.dir, ...segs), target);
  await fsyncDir(dirname(target));
}

/** Commit of `remove_file`: the one file unlinked from the real skill. */
export async function commitRemoval(skillDir: string, rel: string): Promise<void> {
  const target = join(skillDir, ...rel.split("/"));
  await unlink(target);
  await fsyncDir(dirname(target));
}

/**
 * `delete` (§9): the skill directory is first renamed to a trash name beside it (one atomic step:
 * the skill is there or gone), then removed without following links.
 */
export async function deleteSkillDir(root: string, skillDir: string, afterRename?: () => Promise<void>): Promise<void> {
  const trash = join(root, `${TRASH_PREFIX}${process.pid}-${randomHex(6)}`);
  await rename(skillDir, trash);
  await fsyncDir(root);
  await afterRename?.();
  await rm(trash, { recursive: true, force: true });
}

function lastSegment(p: string): string {
  return p.slice(p.lastIndexOf(sep) + 1);
}
