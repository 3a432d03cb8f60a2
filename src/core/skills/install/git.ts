/**
 * @module skills/install/git
 * Every git invocation of install.md §3, hardened the same way: no ext:: transport, no hooks, no
 * submodules, no prompts, no system config, the URL after `--`, a timeout and a size bound.
 * Error messages are one redacted line; git's own multi-line output never reaches the user.
 */
import { mkdir, mkdtemp, readdir, lstat, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { envValue } from "../../context.ts";
import { holdPath, releasePath } from "../../fsx/cleanup.ts";
import { LemonError, notFound } from "../../errors.ts";
import type { FetchOptions } from "./fetch.ts";
import { tempDirError } from "./fs-errors.ts";

export const GIT_TIMEOUT_MS = 120_000;
/** Largest checkout (work tree + .git) a clone may grow to before it is killed. */
export const MAX_CHECKOUT_BYTES = 256 * 1024 * 1024;
/** Clones quicker than this show no progress at all. */
const PROGRESS_AFTER_MS = 1000;
const STDERR_KEEP = 64 * 1024;
const PIPE_GRACE_MS = 1000;

export type GitOptions = FetchOptions;

/**
 * The child's environment: the caller's, minus every GIT_* variable that could point git at
 * another repository, config, object store or exec path (GIT_DIR, GIT_CONFIG_PARAMETERS, …).
 * The ssh and askpass settings stay: they are how the user reaches private repositories.
 */
const KEPT_GIT_VARS = new Set(["GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS", "GIT_CONFIG_GLOBAL"]);

export function gitEnv(env: FetchOptions["env"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (k.toUpperCase().startsWith("GIT_") && !KEPT_GIT_VARS.has(k)) continue;
    out[k] = v;
  }
  out.GIT_TERMINAL_PROMPT = "0";
  out.GIT_CONFIG_NOSYSTEM = "1";
  // Stable English messages: the first `fatal:` line is what an error shows.
  out.LC_ALL = "C";
  return out;
}

/** URL userinfo and query strings out of any text git printed. */
export function redactText(s: string): string {
  return s
    .replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/\s@'"]*@/g, "$1")
    .replace(/(:\/\/[^\s'"?]*)\?[^\s'"#]*/g, "$1")
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .slice(0, 300);
}

/** The line of git's stderr worth showing: the first fatal/error line, else the first line. */
function meaningfulLine(stderr: string): string {
  const lines = stderr
    .split(/[\r\n]+/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  // Never a `remote:` line: that is the server's own text, not git's account of what failed.
  const pick =
    lines.find((l) => /^(fatal|error):/i.test(l)) ??
    lines.find((l) => !/^(hint|warning|remote|cloning into)\b/i.test(l) && !isProgress(l));
  return redactText((pick ?? "unknown error").replace(/^(fatal|error):\s*/i, ""));
}

// Lines git prints itself carry only its own counters. A server speaks through `remote:` lines
// and could write anything ("remote: audit passed"), so only git's exact progress shapes pass.
const LOCAL_PROGRESS = /^(Receiving objects|Resolving deltas|Updating files|Checking out files|Filtering content): /;
const REMOTE_PROGRESS =
  /^remote: (?:(?:Enumerating|Counting|Compressing) objects: [\d%(), /.]*(?:done\.)?|Total \d+ \(delta \d+\), reused \d+ \(delta \d+\)(?:, pack-reused \d+)?(?: \(from \d+\))?)$/;

function isProgress(line: string): boolean {
  return line.startsWith("remote: ") ? REMOTE_PROGRESS.test(line) : LOCAL_PROGRESS.test(line);
}

function tmpRoot(env: FetchOptions["env"]): string {
  return envValue(env, "TMPDIR") ?? envValue(env, "TEMP") ?? envValue(env, "TMP") ?? "/tmp";
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true });
  } catch {
    return 0;
  }
  for (const rel of entries) {
    try {
      const st = await lstat(join(dir, rel));
      if (st.isFile()) total += st.size;
    } catch {
      // A file git renamed or removed meanwhile.
    }
  }
  return total;
}

interface RunOptions {
  cwd?: string;
  hooksDir: string;
  opts: GitOptions;
  /** Directory whose size is bounded while git runs. */
  watch?: string;
  /** Forward progress lines (clone/fetch with --progress). */
  progress?: boolean;
  stdin?: Uint8Array;
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The §3 options every invocation starts with. Beyond them: no fsmonitor command from the user's
 * config (like hooks, it would run during checkout), and curl's stall guard ends a hung transfer.
 */
function gitArgv(git: string, hooksDir: string, timeoutMs: number, args: string[]): string[] {
  const stall = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
  return [
    git,
    "-c",
    "protocol.ext.allow=never",
    "-c",
    `core.hooksPath=${hooksDir}`,
    "-c",
    "submodule.recurse=false",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "http.lowSpeedLimit=1",
    "-c",
    `http.lowSpeedTime=${stall}`,
    ...args,
  ];
}

/** One git command with the §3 configuration; resolves with the exit code, rejects on timeout/size. */
export async function runGit(args: string[], r: RunOptions): Promise<RunResult> {
  const env = gitEnv(r.opts.env);
  const git = Bun.which("git", { PATH: env.PATH ?? "" });
  if (!git) throw new LemonError("UNAVAILABLE", "git is not installed");
  if (r.opts.signal?.aborted) throw new LemonError("OPERATION_FAILED", "git aborted");
  const timeoutMs = r.opts.timeoutMs ?? GIT_TIMEOUT_MS;
  const cwd = r.cwd ?? r.hooksDir;
  // No repository discovery above the working directory: ls-remote would otherwise read the
  // config (url.insteadOf, core.sshCommand) of any repository the temp dir happens to lie in.
  env.GIT_CEILING_DIRECTORIES = dirname(cwd);
  // Its own process group, so a timeout also ends the remote helpers git started (they outlive
  // a killed git and would wait on a hung server); also keeps ssh away from the terminal.
  const proc = Bun.spawn(gitArgv(git, r.hooksDir, timeoutMs, args), {
    cwd,
    env,
    stdin: r.stdin ?? "ignore",
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  // A signal that ends lemon must end the detached group too.
  const killGroup = () => {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      proc.kill("SIGKILL");
    }
  };
  const held = `git-process:${proc.pid}`;
  holdPath(held, killGroup);
  const started = Date.now();
  const maxBytes = r.opts.maxCheckoutBytes ?? MAX_CHECKOUT_BYTES;
  let failure: LemonError | null = null;
  const stop = (e: LemonError) => {
    failure ??= e;
    killGroup();
  };
  const timer = setTimeout(
    () => stop(new LemonError("TIMEOUT", `git ${args[0]} timed out after ${Math.ceil(timeoutMs / 1000)} s`)),
    timeoutMs,
  );
  const onAbort = () => stop(new LemonError("OPERATION_FAILED", "git aborted"));
  r.opts.signal?.addEventListener("abort", onAbort, { once: true });
  let sizer: ReturnType<typeof setInterval> | undefined;
  if (r.watch) {
    const watched = r.watch;
    let busy = false;
    sizer = setInterval(async () => {
      if (busy) return;
      busy = true;
      if ((await dirBytes(watched)) > maxBytes) stop(sizeError(maxBytes));
      busy = false;
    }, PROGRESS_AFTER_MS);
  }

  let stderr = "";
  let pending = "";
  let early: string | null = null;
  const emit = (line: string) => {
    const onProgress = r.opts.onProgress;
    if (!r.progress || !onProgress) return;
    const clean = redactText(line.trim());
    if (!isProgress(clean)) return;
    // A fast clone shows nothing: lines before the first second are held, the last one kept.
    if (Date.now() - started < PROGRESS_AFTER_MS) {
      early = clean;
      return;
    }
    if (early !== null) {
      const h = early;
      early = null;
      if (h !== clean) onProgress(h);
    }
    onProgress(clean);
  };
  const readErr = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stderr) {
      const text = dec.decode(chunk, { stream: true });
      if (stderr.length < STDERR_KEEP) stderr += text;
      pending += text;
      const parts = pending.split(/[\r\n]/);
      pending = parts.pop() ?? "";
      for (const p of parts) if (p.trim() !== "") emit(p);
    }
  })();
  let stdout = "";
  const readOut = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stdout) stdout += dec.decode(chunk, { stream: true });
  })();
  const code = await proc.exited;
  releasePath(held);
  r.opts.onGitCommand?.(args[0] ?? "", Date.now() - started);
  clearTimeout(timer);
  if (sizer) clearInterval(sizer);
  r.opts.signal?.removeEventListener("abort", onAbort);
  if (failure) throw failure;
  // A descendant that outlives git (an ssh ControlPersist master) can hold the pipes open for
  // minutes: what arrived shortly after the exit is all git had to say.
  await Promise.race([Promise.all([readOut, readErr]), Bun.sleep(PIPE_GRACE_MS)]);
  if (r.watch && code === 0 && (await dirBytes(r.watch)) > maxBytes) throw sizeError(maxBytes);
  return { code, stdout, stderr };
}

function sizeError(max: number): LemonError {
  return new LemonError("OPERATION_FAILED", `git checkout exceeds ${max} bytes`);
}

function gitFailed(what: string, res: RunResult): LemonError {
  return new LemonError("OPERATION_FAILED", `git ${what} failed: ${meaningfulLine(res.stderr)}`);
}

async function must(args: string[], r: RunOptions, what: string): Promise<string> {
  const res = await runGit(args, r);
  if (res.code !== 0) throw gitFailed(what, res);
  return res.stdout.trim();
}

/** A fresh empty directory for core.hooksPath (also the cwd of commands without a repository). */
async function emptyHooksDir(parent: string): Promise<string> {
  try {
    return await mkdtemp(join(parent, ".hooks-"));
  } catch (err) {
    throw tempDirError(parent, err);
  }
}

export interface CloneRequest {
  url: string;
  /** Branch or tag, a 40/64-hex pin, or null for the remote HEAD. */
  ref: string | null;
  pinned: boolean;
  /** Only this directory (cone-mode sparse checkout), or the whole tree. */
  subdir: string | null;
  /** Human form of the source for messages (redacted). */
  display: string;
}

/**
 * Clones into `<into>/repo` and returns the checked-out commit. `.git` is removed afterwards so
 * nothing downstream can copy it into a skill.
 */
export async function cloneRepo(
  req: CloneRequest,
  into: string,
  opts: GitOptions,
): Promise<{ dir: string; commit: string }> {
  const hooksDir = await emptyHooksDir(into);
  const dir = join(into, "repo");
  const base = { hooksDir, opts, watch: into };
  // `clone --branch` takes short names only; a full ref name (§2 allows `refs/tags/v1`) is fetched
  // by name like a pin, so install and update (ls-remote) agree on what a ref means.
  const fullRef = !req.pinned && req.ref !== null && req.ref.startsWith("refs/");
  try {
    if ((req.pinned || fullRef) && req.ref) {
      await mkdir(dir, { recursive: true });
      await must(["init", "-q", `--template=${hooksDir}`], { ...base, cwd: dir }, "init");
      const shallow = await runGit(["fetch", "-q", "--progress", "--depth", "1", "--no-tags", "--", req.url, req.ref], {
        ...base,
        cwd: dir,
        progress: true,
      });
      let target = "FETCH_HEAD";
      if (shallow.code !== 0 && fullRef) {
        if (/couldn't find remote ref/i.test(shallow.stderr))
          throw notFound(`git ref '${req.ref}' not found in ${req.display}`);
        throw gitFailed("fetch", shallow);
      }
      if (shallow.code !== 0) {
        // Servers speaking protocol v0 refuse unadvertised objects; every branch and tag then.
        const full = await runGit(
          [
            "fetch",
            "-q",
            "--progress",
            "--no-tags",
            "--",
            req.url,
            "+refs/heads/*:refs/remotes/origin/*",
            "+refs/tags/*:refs/tags/*",
          ],
          { ...base, cwd: dir, progress: true },
        );
        if (full.code !== 0) throw gitFailed("fetch", full);
        target = req.ref;
        const has = await runGit(["cat-file", "-e", `${req.ref}^{commit}`], { ...base, cwd: dir });
        if (has.code !== 0) throw notFound(`commit ${req.ref} not found in ${req.display}`);
      }
      if (req.subdir) await sparse(dir, req.subdir, base);
      await must(["checkout", "-q", "--detach", target], { ...base, cwd: dir }, "checkout");
    } else {
      const args = ["clone", "-q", "--progress", "--depth", "1", "--no-tags"];
      // Blobs outside the subdir are never downloaded where the server supports filters (GitHub
      // does); elsewhere git warns and ignores the filter.
      if (req.subdir) args.push("--sparse", "--filter=blob:none");
      if (req.ref) args.push("--branch", req.ref);
      const res = await runGit([...args, "--", req.url, dir], { ...base, progress: true });
      if (res.code !== 0) {
        if (req.ref && /Remote branch .* not found/i.test(res.stderr))
          throw notFound(`git ref '${req.ref}' not found in ${req.display}`);
        throw gitFailed("clone", res);
      }
      if (req.subdir) await sparse(dir, req.subdir, base);
    }
    const head = await runGit(["rev-parse", "--verify", "-q", "HEAD"], { ...base, cwd: dir });
    // An empty repository clones fine (with a warning) and has no HEAD commit.
    if (head.code !== 0) throw new LemonError("OPERATION_FAILED", `${req.display} has no commits`);
    const commit = head.stdout.trim();
    if (req.pinned && req.ref && commit.toLowerCase() !== req.ref.toLowerCase())
      throw new LemonError("OPERATION_FAILED", `checked-out commit ${commit} does not match the pin ${req.ref}`);
    await rm(join(dir, ".git"), { recursive: true, force: true });
    return { dir, commit };
  } finally {
    await rm(hooksDir, { recursive: true, force: true });
  }
}

/** Cone-mode sparse checkout of one directory; paths go through stdin so none reads as an option. */
async function sparse(dir: string, subdir: string, base: Omit<RunOptions, "cwd">): Promise<void> {
  const stdin = new TextEncoder().encode(`${subdir}\n`);
  // With a blob filter this step downloads the subdir's files: bounded and reported like a clone.
  await must(
    ["sparse-checkout", "set", "--cone", "--stdin"],
    { ...base, cwd: dir, stdin, progress: true },
    "sparse-checkout",
  );
}

/** ls-remote for update (§9 step 2): the commit of ref (peeled for annotated tags) or HEAD. */
export async function remoteCommit(url: string, ref: string | null, opts: FetchOptions): Promise<string> {
  if (ref !== null && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(ref)) return ref.toLowerCase();
  const hooksDir = await emptyHooksDir(tmpRoot(opts.env));
  try {
    // The peeled line of an annotated tag only matches its own `^{}` pattern.
    const patterns = ref === null ? ["HEAD"] : [ref, `${ref}^{}`];
    const res = await runGit(["ls-remote", "--", url, ...patterns], { hooksDir, opts });
    if (res.code !== 0) throw gitFailed("ls-remote", res);
    const refs = new Map<string, string>();
    for (const line of res.stdout.split("\n")) {
      const [sha, name] = line.trim().split("\t");
      if (sha && name) refs.set(name, sha);
    }
    const candidates =
      ref === null
        ? ["HEAD"]
        : ref.startsWith("refs/")
          ? [`${ref}^{}`, ref]
          : [`refs/heads/${ref}`, `refs/tags/${ref}^{}`, `refs/tags/${ref}`];
    for (const c of candidates) {
      const sha = refs.get(c);
      if (sha) return sha;
    }
    throw notFound(`git ref '${ref ?? "HEAD"}' not found in ${redactText(url)}`);
  } finally {
    await rm(hooksDir, { recursive: true, force: true });
  }
}
