/**
 * @module skills/tools/manage-actions
 * The `skill_manage` actions that change files (skills.md §9): create, edit, patch, write_file,
 * remove_file and delete. Each runs under the skill's lock: links refused on the path, the change
 * made in a staging copy (manage-fs.ts), the copy audited with the cache bypassed, and only a
 * copy that does not `block` committed with one rename or unlink. The request is already checked
 * (manage-params.ts), so every path here is a name under the scope's lemon root.
 */
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { decodeUtf8 } from "../../text.ts";
import { applyPatch, checkSkillContent } from "./manage-content.ts";
import { auditNote, auditStaged, blockedMessage, type ManageAudit } from "./manage-audit.ts";
import {
  assertNoLinks,
  commitFile,
  commitNewSkill,
  commitRemoval,
  deleteSkillDir,
  kindOf,
  lockSkill,
  pauseAt,
  pinRoot,
  removeStaged,
  stageSkill,
  writeStaged,
  type PathKind,
  type Stage,
} from "./manage-fs.ts";
import {
  checkFileContent,
  discoverable,
  MAX_CONTENT_CHARS,
  MAX_FILE_BYTES,
  ManageError,
  type ManageRequest,
} from "./manage-params.ts";

/** What a file action did, for the result text and `details` (§9.3). */
export interface FileOutcome {
  path: string;
  filePath: string | null;
  replacements: number | null;
  audit: ManageAudit | null;
  text: string;
}

/** What the actions need beyond the request. */
export interface FileActionEnv {
  ctx: LemonContext;
  /** The scope's lemon skill root, already proved not to leave the project. */
  root: string;
  signal?: AbortSignal;
  /** True when the usage sidecar says the skill is pinned (delete is refused then). */
  isPinned(): Promise<boolean>;
  /** After a delete: what the scope's state files still say about the key (manage-lifecycle.ts forgetSkill). */
  forget?(): Promise<void>;
}

export type FileAction = "create" | "edit" | "patch" | "write_file" | "remove_file" | "delete";

const SKILL_FILE = "SKILL.md";

const notFound = (name: string, dir: string) => new ManageError("not_found", `Skill '${name}' not found at ${dir}`);

function checkNotAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ManageError("aborted", "Operation aborted");
}

/** The text of an existing regular file of the skill, or the §9.2 `file not found`. */
function readText(file: string, shownPath: string, maxBytes: number): string {
  const read = readRegularFile(file, maxBytes);
  if (!read.ok) {
    if (read.problem === "missing" || read.problem === "not_regular")
      throw new ManageError("not_found", `file not found: ${shownPath}`);
    if (read.problem === "too_large") throw new ManageError("invalid_params", `${shownPath} exceeds ${maxBytes} bytes`);
    throw new ManageError("io_error", `cannot read ${shownPath} (${read.errno ?? "error"})`);
  }
  const text = decodeUtf8(read.bytes);
  if (text === null) throw new ManageError("invalid_params", `${shownPath} is not UTF-8 text`);
  return text;
}

/** The skill must be a directory in the root (§9: every action but create names an existing skill). */
function mustExist(kind: PathKind, name: string, dir: string): void {
  if (kind !== "dir" || !discoverable(name)) throw notFound(name, dir);
}

/**
 * Audits the staged copy and commits it, or throws the block. The pause points let a test kill
 * the process between the steps (manage-fs.ts pauseAt).
 */
async function auditAndCommit(
  env: FileActionEnv,
  stage: Stage,
  name: string,
  commit: () => Promise<void>,
): Promise<ManageAudit> {
  await pauseAt(env.ctx, "staged");
  const audit = await auditStaged(stage.dir, name, env.ctx.now);
  await pauseAt(env.ctx, "audited");
  if (audit.verdict === "block") throw new ManageError("blocked", blockedMessage(audit));
  checkNotAborted(env.signal);
  await commit();
  await pauseAt(env.ctx, "committed");
  return audit;
}

/** Runs one file action on `req` (its name checked for the action). */
export async function runFileAction(
  env: FileActionEnv,
  req: ManageRequest & { action: FileAction },
): Promise<FileOutcome> {
  const name = req.name!;
  const skillDir = join(env.root, name);
  // Content checks need no file system: done before the lock, so a bad request never waits for it.
  if (req.content !== undefined) await checkSkillContent(req.content);
  if (req.action !== "create" && !discoverable(name)) throw notFound(name, skillDir);
  await using _lock = await lockSkill(env.ctx, env.root, name);
  // The root's real path now, under the lock: every later step opens exactly this directory.
  const rootReal = await pinRoot(env.ctx, req.scope, env.root);
  const rel = req.filePath ?? null;
  const kinds = await assertNoLinks(skillDir, rel === null ? [SKILL_FILE] : [SKILL_FILE, rel]);
  const dirKind = await kindOf(skillDir);
  const skillFileKind = kinds[0]!;
  const fileKind = kinds[1] ?? null;
  if (req.action === "create") {
    if (dirKind !== "missing") throw new ManageError("conflict", `Skill '${name}' already exists at ${skillDir}`);
    return withStage(env, rootReal, name, null, async (stage) => {
      await writeStaged(stage, SKILL_FILE, req.content!);
      const audit = await auditAndCommit(env, stage, name, () => commitNewSkill(stage, skillDir));
      return outcome(skillDir, null, null, audit, `Created skill '${name}' at ${skillDir} (${auditNote(audit)}).`);
    });
  }
  // A skill is a directory with a SKILL.md (§2.2): not a plain or category directory of the root.
  mustExist(skillFileKind === "missing" ? "missing" : dirKind, name, skillDir);
  if (req.action === "delete") {
    if (skillFileKind !== "file") throw notFound(name, skillDir);
    if (await env.isPinned()) throw new ManageError("conflict", `Skill '${name}' is pinned; unpin it before delete`);
    checkNotAborted(env.signal);
    await pauseAt(env.ctx, "checked");
    await deleteSkillDir(env.root, rootReal, name, () => pauseAt(env.ctx, "trashed"));
    await env.forget?.();
    return outcome(skillDir, null, null, null, `Deleted skill '${name}' from ${skillDir}.`);
  }
  if (skillFileKind !== "file" && skillFileKind !== "missing")
    throw new ManageError("conflict", `${join(skillDir, SKILL_FILE)} is not a regular file`);
  if (req.action === "edit") {
    return withStage(env, rootReal, name, skillDir, async (stage) => {
      await writeStaged(stage, SKILL_FILE, req.content!);
      const audit = await auditAndCommit(env, stage, name, () => commitFile(stage, skillDir, SKILL_FILE));
      return outcome(skillDir, null, null, audit, `Edited skill '${name}' at ${skillDir} (${auditNote(audit)}).`);
    });
  }
  if (req.action === "patch") {
    const target = rel ?? SKILL_FILE;
    if ((rel === null ? skillFileKind : fileKind) !== "file")
      throw new ManageError("not_found", `file not found: ${target}`);
    const before = readText(join(skillDir, ...target.split("/")), target, MAX_FILE_BYTES);
    const limit = { chars: MAX_CONTENT_CHARS, field: rel === null ? ("content" as const) : ("file_content" as const) };
    const patched = applyPatch(before, req.oldString!, req.newString!, req.replaceAll, limit);
    if (rel === null) await checkSkillContent(patched.text);
    else checkFileContent(patched.text);
    return withStage(env, rootReal, name, skillDir, async (stage) => {
      await writeStaged(stage, target, patched.text);
      const audit = await auditAndCommit(env, stage, name, () => commitFile(stage, skillDir, target));
      const n = patched.replacements;
      const text = `Patched ${target} in skill '${name}' (${n} replacement(s); ${auditNote(audit)}).`;
      return outcome(skillDir, rel, n, audit, text);
    });
  }
  if (req.action === "write_file") {
    if (fileKind !== "file" && fileKind !== "missing")
      throw new ManageError("conflict", `${rel} is not a regular file`);
    return withStage(env, rootReal, name, skillDir, async (stage) => {
      await writeStaged(stage, rel!, req.fileContent!);
      const audit = await auditAndCommit(env, stage, name, () => commitFile(stage, skillDir, rel!));
      return outcome(skillDir, rel, null, audit, `Wrote ${rel} in skill '${name}' (${auditNote(audit)}).`);
    });
  }
  // remove_file
  if (fileKind !== "file") throw new ManageError("not_found", `file not found: ${rel}`);
  return withStage(env, rootReal, name, skillDir, async (stage) => {
    await removeStaged(stage, rel!);
    const audit = await auditAndCommit(env, stage, name, () => commitRemoval(stage, rel!));
    return outcome(skillDir, rel, null, audit, `Removed ${rel} from skill '${name}' (${auditNote(audit)}).`);
  });
}

/** Runs `fn` with a fresh staging copy (of `from`, or empty), always removed afterwards. */
async function withStage<T>(
  env: FileActionEnv,
  rootReal: string,
  name: string,
  from: string | null,
  fn: (stage: Stage) => Promise<T>,
): Promise<T> {
  const stage = await stageSkill(env.root, rootReal, name, from);
  try {
    return await fn(stage);
  } finally {
    await stage.dispose();
  }
}

function outcome(
  path: string,
  filePath: string | null,
  replacements: number | null,
  audit: ManageAudit | null,
  text: string,
): FileOutcome {
  return { path, filePath, replacements, audit, text };
}
