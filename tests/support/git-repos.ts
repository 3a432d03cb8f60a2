// Real git repositories for install/update tests (issue #11). Every repo is a bare repository
// `<root>/<name>.git` (what lemon clones, through `repo.url` = file://… or an HTTP server from
// git-http-server.ts) plus a work tree `<root>/<name>.work` the test commits into and pushes from.
// No mock of git: these are the same repositories a user would have.
//
//   const repo = await createRepo(box.root, "skills", { "SKILL.md": skillMd("skills") });
//   const c1 = repo.head;                                  // sha of the first commit
//   await repo.tag("v1");                                  // lightweight; { annotated: true } for -a
//   const c2 = await repo.commit({ "SKILL.md": skillMd("skills", "changed") });  // upstream moves
//   await repo.branch("dev", { "extra.md": "x" });        // a branch with one more commit
//
// Repos with several skills: multiSkillRepo(root, "many", ["alpha", "beta"]) -> skills/alpha/SKILL.md, …
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/** Env for the test's own git commands: no user or system config, fixed identity and dates. */
export function gitTestEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Lemon Test",
    GIT_AUTHOR_EMAIL: "test@example.invalid",
    GIT_COMMITTER_NAME: "Lemon Test",
    GIT_COMMITTER_EMAIL: "test@example.invalid",
    GIT_TERMINAL_PROMPT: "0",
  };
}

/** Runs git in `cwd`; returns trimmed stdout; throws with stderr on a non-zero exit. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const p = Bun.spawn(["git", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: gitTestEnv(),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`git ${args.join(" ")} failed (${code}): ${err.trim()}`);
  return out.trim();
}

/** A small valid SKILL.md for `key`; `note` changes the body (so a commit changes the bundle). */
export function skillMd(key: string, note = "Do the thing carefully."): string {
  return `---\nname: ${key}\ndescription: Use this skill when working on ${key} tasks.\n---\n# ${key}\n\n${note}\n`;
}

/** Files by relative path; `null` deletes the file in the next commit. */
export type RepoFiles = Record<string, string | Uint8Array | null>;

export interface GitRepo {
  /** The bare repository directory (`<root>/<name>.git`); serve this over HTTP. */
  bare: string;
  /** file:// URL of the bare repository. */
  url: string;
  /** The work tree the helper commits in (never cloned by lemon). */
  work: string;
  /** Sha of the latest commit on the branch the last call touched (main after createRepo). */
  head: string;
  /** Writes/deletes files, commits on the current branch, pushes; returns the new sha. */
  commit(files: RepoFiles, message?: string): Promise<string>;
  /** Creates (or switches to) `name` from the current commit, commits `files` if given, pushes; returns its sha. */
  branch(name: string, files?: RepoFiles): Promise<string>;
  /** Switches the helper's work tree back to an existing branch (e.g. "main"). */
  checkout(name: string): Promise<void>;
  /** Tags `at` (default the current commit) and pushes the tag; returns the tagged commit sha. */
  tag(name: string, opts?: { annotated?: boolean; at?: string }): Promise<string>;
  /** Sha of a ref in the bare repo (branch, tag peeled to its commit, or HEAD). */
  rev(ref: string): Promise<string>;
}

async function writeFiles(dir: string, files: RepoFiles): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const file = join(dir, rel);
    if (content === null) {
      await rm(file, { force: true });
      continue;
    }
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

/**
 * A bare repo `<root>/<name>.git` whose branch `main` (also its HEAD) holds `files` in one commit.
 * `root` must exist; the name may end in ".git" or not (the bare dir always does).
 */
export async function createRepo(root: string, name: string, files: RepoFiles): Promise<GitRepo> {
  const base = name.replace(/\.git$/, "");
  const bare = join(root, `${base}.git`);
  const work = join(root, `${base}.work`);
  await mkdir(bare, { recursive: true });
  await mkdir(work, { recursive: true });
  await git(bare, "init", "--bare", "-q");
  // Served by git-http-backend without GIT_HTTP_EXPORT_ALL too.
  await writeFile(join(bare, "git-daemon-export-ok"), "");
  await git(work, "init", "-q");
  await git(work, "remote", "add", "origin", bare);
  let current = "main";
  const repo: GitRepo = {
    bare,
    url: pathToFileURL(bare).href,
    work,
    head: "",
    async commit(more, message = "update") {
      await writeFiles(work, more);
      await git(work, "add", "-A");
      await git(work, "commit", "-q", "--allow-empty", "-m", message);
      await git(work, "push", "-q", "origin", `HEAD:refs/heads/${current}`);
      repo.head = await git(work, "rev-parse", "HEAD");
      return repo.head;
    },
    async branch(branchName, more) {
      await git(work, "checkout", "-q", "-B", branchName);
      current = branchName;
      if (more) return repo.commit(more, `commit on ${branchName}`);
      await git(work, "push", "-q", "origin", `HEAD:refs/heads/${branchName}`);
      repo.head = await git(work, "rev-parse", "HEAD");
      return repo.head;
    },
    async checkout(branchName) {
      await git(work, "checkout", "-q", branchName);
      current = branchName;
      repo.head = await git(work, "rev-parse", "HEAD");
    },
    async tag(tagName, opts = {}) {
      const at = opts.at ?? "HEAD";
      if (opts.annotated) await git(work, "tag", "-a", tagName, "-m", `release ${tagName}`, at);
      else await git(work, "tag", tagName, at);
      await git(work, "push", "-q", "origin", `refs/tags/${tagName}`);
      return git(work, "rev-parse", `${tagName}^{commit}`);
    },
    async rev(ref) {
      return git(bare, "rev-parse", `${ref}^{commit}`);
    },
  };
  await repo.commit(files, "initial");
  return repo;
}

/** A repo whose root is one skill named like the repo (`SKILL.md` + a reference file). */
export function singleSkillRepo(root: string, name: string, note?: string): Promise<GitRepo> {
  const key = name.replace(/\.git$/, "");
  return createRepo(root, name, { "SKILL.md": skillMd(key, note), "references/guide.md": `# ${key} guide\n` });
}

/**
 * A repo holding several skills and no root SKILL.md: `keys` under `skills/<key>/` by default,
 * or under `<prefix>/<key>/` (prefix "" puts them at `<key>/`), each with a SKILL.md and a README.
 */
export function multiSkillRepo(root: string, name: string, keys: string[], prefix = "skills"): Promise<GitRepo> {
  const files: RepoFiles = { "README.md": `# ${name}\n` };
  for (const key of keys) {
    const dir = prefix === "" ? key : `${prefix}/${key}`;
    files[`${dir}/SKILL.md`] = skillMd(key);
    files[`${dir}/notes.md`] = `notes for ${key}\n`;
  }
  return createRepo(root, name, files);
}

/**
 * The standard history most tests need: main with commit c1 tagged `v1` (lightweight) and `r1`
 * (annotated), then c2 on main (upstream moved), and branch `dev` (from c2) with one more commit.
 * The worktree is left on main.
 */
export async function historyRepo(
  root: string,
  name = "hist",
): Promise<{ repo: GitRepo; c1: string; c2: string; dev: string }> {
  const key = name.replace(/\.git$/, "");
  const repo = await createRepo(root, name, { "SKILL.md": skillMd(key, "first version") });
  const c1 = repo.head;
  await repo.tag("v1");
  await repo.tag("r1", { annotated: true });
  const c2 = await repo.commit({ "SKILL.md": skillMd(key, "second version") }, "second");
  const dev = await repo.branch("dev", { "dev.md": "dev only\n" });
  await repo.checkout("main");
  return { repo, c1, c2, dev };
}
