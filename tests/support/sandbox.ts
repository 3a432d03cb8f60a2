// A temp root per test: a user home, a project with .git, and an env pointing every lemon and
// user-level location inside it. `await using box = await sandbox();` removes it afterwards.
import { mkdir, mkdtemp, rm, writeFile, symlink } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runCli } from "../../src/cli/run.ts";
import { memoryIo } from "../../src/cli/io.ts";

export interface Sandbox extends AsyncDisposable {
  root: string;
  home: string;
  project: string;
  agentDir: string;
  env: Record<string, string | undefined>;
  /** Writes a file (parents created) relative to root, or at an absolute path. */
  write(path: string, text: string | Uint8Array): Promise<string>;
  /** Writes `<dir>/<key>/SKILL.md` with a simple frontmatter, or the given text. */
  skill(dir: string, key: string, fm?: Record<string, unknown> | string, body?: string): Promise<string>;
  link(target: string, path: string): Promise<void>;
  cli(
    argv: string[],
    opts?: { cwd?: string; env?: Record<string, string | undefined>; answers?: string[] },
  ): Promise<CliResult>;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json(): Record<string, unknown>;
}

function yamlValue(v: unknown): string {
  return JSON.stringify(v);
}

export async function sandbox(opts: { git?: boolean } = {}): Promise<Sandbox> {
  const root = realpathSync(await mkdtemp(join(tmpdir(), "lemon-box-")));
  const home = join(root, "home");
  const project = join(root, "project");
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  if (opts.git !== false) await mkdir(join(project, ".git"));
  const agentDir = join(home, ".lemon", "agent");
  const env: Record<string, string | undefined> = {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
    PATH: process.env.PATH,
    NO_COLOR: "1",
  };
  const abs = (p: string) => (p.startsWith("/") ? p : join(root, p));
  const box: Sandbox = {
    root,
    home,
    project,
    agentDir,
    env,
    async write(path, text) {
      const file = abs(path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
      return file;
    },
    async skill(dir, key, fm, body = "# Instructions\n\nDo the thing carefully.\n") {
      let text: string;
      if (typeof fm === "string") text = fm;
      else {
        const front = fm ?? { name: key, description: `Use this skill when working on ${key} tasks.` };
        text =
          "---\n" +
          Object.entries(front)
            .map(([k, v]) => `${k}: ${yamlValue(v)}`)
            .join("\n") +
          "\n---\n" +
          body;
      }
      return box.write(join(abs(dir), key, "SKILL.md"), text);
    },
    async link(target, path) {
      const p = abs(path);
      await mkdir(dirname(p), { recursive: true });
      await symlink(target, p);
    },
    async cli(argv, o = {}) {
      const m = memoryIo({
        env: { ...env, ...(o.env ?? {}) },
        cwd: o.cwd ?? project,
        ...(o.answers ? { answers: o.answers } : {}),
      });
      const code = await runCli(argv, m.io);
      const stdout = m.stdout();
      const stderr = m.stderr();
      return {
        code,
        stdout,
        stderr,
        json: () => JSON.parse(stdout.trim() === "" ? stderr : stdout) as Record<string, unknown>,
      };
    },
    async [Symbol.asyncDispose]() {
      await rm(root, { recursive: true, force: true });
    },
  };
  return box;
}
