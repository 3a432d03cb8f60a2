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
import { tempRoot, testHooksOn } from "../../test-hooks.ts";
import {
  closeSync,
  constants,
  copyFileSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeSync,
} from "node:fs";
import { lstat, mkdir, realpath } from "node:fs/promises";
import { join, sep } from "node:path";
import type { LemonContext } from "../../context.ts";
import { confinedTarget, randomHex, writeFileAtomic } from "../../fsx/atomic.ts";
import { acquireLock, type FileLock } from "../../fsx/lock.ts";
import { pidAlive } from "../../fsx/pid.ts";
import { isInside, resolvePaths, type Scope } from "../../paths.ts";
import { WALK_CAP } from "../bundle.ts";
import { openChain, openRoot, removeTreeIn, renameBetween, unlinkIn, type DirHandle } from "./manage-dirfd.ts";
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
  let real: string;
  try {
    real = await confinedTarget(root, scope === "project" ? ctx.cwd : null);
  } catch (err) {
    if ((err as { code?: string }).code === "FORBIDDEN") throw symlinkRefused(root);
    throw err;
  }
  // Inside C is not enough: `.lemon/skill -> ..` or `-> ../.claude/skills` is inside C too.
  if (scope === "project" && real !== join(await realpath(ctx.cwd), ".lemon", "skill")) throw symlinkRefused(root);
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
 * A test seam for crash safety: with the test hooks on and `LEMON_TEST_PAUSE_AT` naming this step, the process writes
 * `LEMON_TEST_PAUSE_FILE` (if set) and waits forever, so a test can SIGKILL it right there.
 * The variable comes from the embedder's environment (ctx.env), never from tool arguments.
 */
export async function pauseAt(ctx: LemonContext, step: string): Promise<void> {
  // Inert in a shipped product (see test-hooks.ts): an environment must not wedge or steer a write.
  if (!testHooksOn(ctx) || ctx.env.LEMON_TEST_PAUSE_AT !== step) return;
  const mark = ctx.env.LEMON_TEST_PAUSE_FILE;
  if (mark !== undefined && mark !== "") await writeFileAtomic(mark, step, { confineTo: tempRoot(ctx) });
  // With a resume file the step goes on once it exists, so a test can change the tree right there.
  const resume = ctx.env.LEMON_TEST_RESUME_FILE;
  if (resume !== undefined && resume !== "") {
    while ((await kindOf(resume)) === "missing") await Bun.sleep(10);
    return;
  }
  await new Promise<void>(() => {
    setInterval(() => {}, 60_000);
  });
}

/** A staging copy of one skill; `dir` ends in the skill's name, so lint sees the real key. */
export interface Stage {
  container: string;
  dir: string;
  /** The root and its real path as checked: every later step opens it again through {@link openRoot}. */
  root: string;
  rootReal: string;
  /** The container's name in the root and the skill's name in the container. */
  containerName: string;
  name: string;
  dispose(): Promise<void>;
}

const STAGE_PREFIX = ".stage-";
const TRASH_PREFIX = ".trash-";

/**
 * The real path of the scope's root, made if missing, as every commit will demand it: in project
 * scope exactly `realpath(C)/.lemon/skill`, so a `.lemon` or `.lemon/skill` link to the project
 * itself, to another skill root or anywhere else is refused (§9 "Skills in other roots are never
 * modified").
 */
export async function pinRoot(ctx: LemonContext, scope: Scope, root: string): Promise<string> {
  await skillRootOf(ctx, scope);
  await mkdir(root, { recursive: true, mode: 0o755 });
  const real = await realpath(root);
  if (scope === "project" && real !== join(await realpath(ctx.cwd), ".lemon", "skill")) throw symlinkRefused(root);
  return real;
}

/** Removes staging and trash directories of processes that are gone (a crash or a kill). */
function removeDeadLeftovers(rootH: DirHandle): void {
  let names: string[];
  try {
    names = readdirSync(rootH.at("."));
  } catch {
    return;
  }
  for (const n of names) {
    const prefix = n.startsWith(STAGE_PREFIX) ? STAGE_PREFIX : n.startsWith(TRASH_PREFIX) ? TRASH_PREFIX : null;
    if (prefix === null) continue;
    const pid = Number(n.slice(prefix.length).split("-")[0]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || pidAlive(pid)) continue;
    removeTreeIn(rootH, n);
  }
}

/** A fresh staging directory for `name` under `root`; with `from`, a hard-linked copy of that skill. */
export async function stageSkill(root: string, rootReal: string, name: string, from: string | null): Promise<Stage> {
  using rootH = openRoot(root, rootReal);
  removeDeadLeftovers(rootH);
  const containerName = `${STAGE_PREFIX}${process.pid}-${randomHex(6)}`;
  mkdirSync(rootH.at(containerName), { mode: 0o700 });
  const container = join(root, containerName);
  const dispose = async () => {
    using r = openRoot(root, rootReal);
    removeTreeIn(r, containerName);
  };
  try {
    using containerH = rootH.child(containerName);
    if (from === null) mkdirSync(containerH.at(name), { mode: 0o755 });
    else {
      using skillH = rootH.child(name);
      mirror(skillH, containerH, name, { left: WALK_CAP }, true);
    }
  } catch (err) {
    await dispose();
    throw err;
  }
  return { container, dir: join(container, name), root, rootReal, containerName, name, dispose };
}

/**
 * Recreates the directory `name` of `src` in `dst` without following links: directories made,
 * files hard-linked (copied where links are refused), links recreated as links, every step
 * relative to open directories. A special file is linked too, so the audit of the copy sees
 * exactly what the audit of the skill would. The top-level `.git` is not part of a bundle
 * (install.md §7.1) and is left out.
 */
function mirror(src: DirHandle, dst: DirHandle, name: string, budget: { left: number }, top = false): void {
  using d = dst.child(name, true);
  using s = top ? openChain(src, []) : src.child(name);
  for (const e of readdirSync(s.at("."), { withFileTypes: true })) {
    if (top && e.name === ".git") continue;
    if (--budget.left < 0) throw new ManageError("io_error", `skill directory has more than ${WALK_CAP} entries`);
    if (e.isSymbolicLink()) symlinkSync(readlinkSync(s.at(e.name)), d.at(e.name));
    else if (e.isDirectory()) mirror(s, d, e.name, budget);
    else {
      try {
        linkSync(s.at(e.name), d.at(e.name));
      } catch (err) {
        if (!e.isFile()) throw err;
        copyFileSync(s.at(e.name), d.at(e.name), constants.COPYFILE_EXCL);
      }
    }
  }
}

/** The staged skill's directory of `rel`'s parent, opened (and made) through descriptors. */
function stagedParent(rootH: DirHandle, stage: Stage, rel: string, create: boolean): DirHandle {
  const segs = rel.split("/");
  try {
    return openChain(rootH, [stage.containerName, stage.name, ...segs.slice(0, -1)], create);
  } catch (err) {
    // The copy mirrors the skill: a problem in it is named as the skill's path, never the stage's.
    if (err instanceof ManageError)
      throw new ManageError(err.kind, err.message.replace(stage.dir, join(stage.root, stage.name)));
    throw err;
  }
}

/** Writes a new file into the staging copy (replacing, never modifying, a linked one). */
export async function writeStaged(stage: Stage, rel: string, text: string): Promise<string> {
  using rootH = openRoot(stage.root, stage.rootReal);
  using parent = stagedParent(rootH, stage, rel, true);
  const base = rel.split("/").at(-1)!;
  const tmp = `.${base}.tmp-${process.pid}-${randomHex(6)}`;
  // Installed skill files are 0644 (install.md §7.1); the temp-and-rename keeps a linked original intact.
  const fd = openSync(
    parent.at(tmp),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    0o644,
  );
  try {
    const bytes = Buffer.from(text, "utf8");
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameBetween(parent, tmp, parent, base);
  return join(stage.dir, ...rel.split("/"));
}

/** Removes a file from the staging copy only. */
export async function removeStaged(stage: Stage, rel: string): Promise<void> {
  using rootH = openRoot(stage.root, stage.rootReal);
  using parent = stagedParent(rootH, stage, rel, false);
  unlinkIn(parent, rel.split("/").at(-1)!);
}

/** Commit of `create`: the staged skill directory renamed into place (it must still be absent). */
export async function commitNewSkill(stage: Stage, skillDir: string): Promise<void> {
  using rootH = openRoot(stage.root, stage.rootReal);
  if ((await kindOf(rootH.at(stage.name))) !== "missing")
    throw new ManageError("conflict", `Skill '${lastSegment(skillDir)}' already exists at ${skillDir}`);
  using containerH = rootH.child(stage.containerName);
  renameBetween(containerH, stage.name, rootH, stage.name);
  rootH.sync();
}

/**
 * Commit of one file: the staged file renamed over `rel` in the real skill, missing parent
 * directories created first, every component opened without following a link after the checks
 * (manage-dirfd.ts): a directory swapped for a link since assertNoLinks is refused, not followed.
 */
export async function commitFile(stage: Stage, skillDir: string, rel: string): Promise<void> {
  const segs = rel.split("/");
  const target = join(skillDir, ...segs);
  // Belt and braces: checkFilePath already proved `rel` relative and free of `..`.
  if (!isInside(target, skillDir) || target === skillDir)
    throw new ManageError("forbidden", `refusing to write outside ${skillDir}`);
  using rootH = openRoot(stage.root, stage.rootReal);
  using skillH = rootH.child(stage.name);
  using parent = openChain(skillH, segs.slice(0, -1), true);
  using from = stagedParent(rootH, stage, rel, false);
  renameBetween(from, segs.at(-1)!, parent, segs.at(-1)!);
  parent.sync();
}

/** Commit of `remove_file`: the one file unlinked from the real skill, reached the same way. */
export async function commitRemoval(stage: Stage, rel: string): Promise<void> {
  const segs = rel.split("/");
  using rootH = openRoot(stage.root, stage.rootReal);
  using skillH = rootH.child(stage.name);
  using parent = openChain(skillH, segs.slice(0, -1));
  unlinkIn(parent, segs.at(-1)!);
  parent.sync();
}

/**
 * `delete` (§9): the skill directory is first renamed to a trash name beside it (one atomic step:
 * the skill is there or gone), then removed without following links, all inside the root as
 * checked (a root swapped for a link since is refused).
 */
export async function deleteSkillDir(
  root: string,
  rootReal: string,
  name: string,
  afterRename?: () => Promise<void>,
): Promise<void> {
  const trash = `${TRASH_PREFIX}${process.pid}-${randomHex(6)}`;
  {
    using rootH = openRoot(root, rootReal);
    // Refuses a link where the skill dir was: the rename below must move the directory itself.
    using _skill = rootH.child(name);
    renameBetween(rootH, name, rootH, trash);
    rootH.sync();
  }
  await afterRename?.();
  using rootH = openRoot(root, rootReal);
  removeTreeIn(rootH, trash);
}

function lastSegment(p: string): string {
  return p.slice(p.lastIndexOf(sep) + 1);
}
