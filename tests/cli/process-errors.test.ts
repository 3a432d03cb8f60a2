// Failing cleanly (cli.md §1.2, issue 9 §2.11 and §2.14): a --cwd that is not a directory, a cwd
// removed under the process, and output that cannot be written. The process cases run the real bin.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "cli", "main.ts");

function sh(box: Sandbox, script: string, args: string[]): { code: number; stdout: string; stderr: string } {
  const env = { ...box.env, PATH: `${join(REPO, "node_modules", ".bin")}:${process.env.PATH}`, T: box.root };
  const p = Bun.spawnSync(["bash", "-c", script, MAIN, ...args], {
    cwd: box.project,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: p.exitCode ?? -1, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

/** Runs `$0 "$@"` with stdout on a pipe whose read end is already closed, and prints its exit code. */
const CLOSED_PIPE = 'mkfifo "$T/fifo"; exec 4<>"$T/fifo" 5>"$T/fifo"; exec 4<&-; "$0" "$@" >&5; echo "exit $?"';

describe("--cwd must name an existing directory (cli.md §1.2)", () => {
  test("a missing path or a file is refused with exit 2 and nothing is created", async () => {
    await using box = await sandbox();
    const missing = join(box.root, "no", "such", "dir");
    const r = await box.cli(["mcp", "add", "git", "--stdio", "git", "--cwd", missing]);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(`error [INVALID_PARAMS]: --cwd: ${missing} is not a directory`);
    expect(existsSync(join(box.root, "no"))).toBe(false);
    const file = await box.write("a-file", "x");
    const f = await box.cli(["skill", "list", "--cwd", file, "--json"]);
    expect(f.code).toBe(2);
    expect(JSON.parse(f.stderr)).toEqual({
      ok: false,
      error: { code: "INVALID_PARAMS", message: `--cwd: ${file} is not a directory` },
    });
    expect((await box.cli(["skill", "enable", "x", "--force", "--cwd", ""])).code).toBe(2);
  });

  test("a relative --cwd is taken from the process's directory", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, "sub", ".lemon", "skill"), "nested");
    const r = await box.cli(["skill", "list", "--json", "--cwd", "sub"]);
    expect(r.code).toBe(0);
    expect(r.json().cwd).toBe(join(box.project, "sub"));
  });
});

describe("process faults end cleanly (cli.md §1.2)", () => {
  test("a removed cwd: one INVALID_PARAMS line, exit 2, no stack trace; --cwd still works", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon", "skill"), "here");
    const gone = 'mkdir "$T/gone" && cd "$T/gone" && rmdir "$T/gone" && "$0" "$@"';
    const r = sh(box, gone, ["skill", "list"]);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe("error [INVALID_PARAMS]: the current directory no longer exists; use --cwd");
    expect(r.stderr).not.toContain("    at ");
    const ok = sh(box, gone, ["skill", "list", "--json", "--cwd", box.project]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('"key":"here"');
  });

  test("a full disk on stdout exits 1 and says so on stderr", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon", "skill"), "here");
    for (const args of [["skill", "list"], ["skill", "list", "--json"], ["--help"], ["--version"]]) {
      const r = sh(box, '"$0" "$@" >/dev/full', args);
      expect([args, r.code]).toEqual([args, 1]);
      expect(r.stderr).not.toContain("    at ");
    }
    expect(sh(box, '"$0" "$@" >/dev/full', ["skill", "list"]).stderr).toBe(
      "error [OPERATION_FAILED]: cannot write to stdout: ENOSPC\n",
    );
    // With --json the failure is the JSON error envelope, like every other error.
    const json = JSON.parse(sh(box, '"$0" "$@" >/dev/full', ["skill", "list", "--json"]).stderr);
    expect(json).toEqual({ ok: false, error: { code: "OPERATION_FAILED", message: "cannot write to stdout: ENOSPC" } });
  });

  test("a closed pipe on stdout exits 1 quietly", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon", "skill"), "here");
    for (const args of [["skill", "list"], ["--help"], ["version", "--json"]]) {
      const r = sh(box, `rm -f "$T/fifo"; ${CLOSED_PIPE}`, args);
      expect([args, r.stdout, r.stderr]).toEqual([args, "exit 1\n", ""]);
    }
  });

  test("stderr that cannot be written fails the run too", async () => {
    await using box = await sandbox();
    // An empty listing prints its hint on stderr.
    const r = sh(box, '"$0" "$@" 2>/dev/full', ["skill", "list"]);
    expect([r.code, r.stdout]).toEqual([1, "No skills found.\n"]);
    expect(sh(box, '"$0" "$@" 2>/dev/full', ["skill", "inspect", "nope"]).code).toBe(1);
  });
});
