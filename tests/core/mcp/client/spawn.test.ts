// The pure parts of stdio spawning (mcp.md §5.1): the child env, command resolution on the child's
// PATH, Windows batch-shim quoting (not runnable here, so checked as strings) and the stderr ring.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TextRing } from "../../../../src/core/mcp/client/transport/ring.ts";
import {
  childEnv,
  isBatchFile,
  quoteCmdArg,
  resolveCommand,
  safeEnvNames,
  windowsBatchArgv,
} from "../../../../src/core/mcp/client/transport/spawn.ts";

describe("childEnv", () => {
  const parent = {
    HOME: "/home/u",
    PATH: "/usr/bin",
    TERM: "xterm",
    SHELL: "() { :; }; echo pwned",
    AWS_SECRET_ACCESS_KEY: "nope",
    GITHUB_TOKEN: "ghp_x",
    HTTPS_PROXY: "http://proxy:3128",
    API_KEY: "from-parent",
    FN_VAR: "() { x; }",
  };

  test("the safe set only, each when set, never a () value", () => {
    expect(childEnv(parent, "linux", {})).toEqual({
      HOME: "/home/u",
      PATH: "/usr/bin",
      TERM: "xterm",
      HTTPS_PROXY: "http://proxy:3128",
    });
  });

  test("env_vars are copied when set; env wins over both", () => {
    const env = childEnv(parent, "linux", {
      env_vars: ["API_KEY", "MISSING", "FN_VAR"],
      env: { PATH: "/opt/bin", EXTRA: "1" },
    });
    expect(env).toEqual({
      HOME: "/home/u",
      PATH: "/opt/bin",
      TERM: "xterm",
      HTTPS_PROXY: "http://proxy:3128",
      API_KEY: "from-parent",
      EXTRA: "1",
    });
  });

  test("Windows: its own safe set, names matched case-insensitively", () => {
    const env = childEnv({ Path: "C:\\Windows", SystemRoot: "C:\\Windows", HOME: "/x", TERM: "t" }, "win32", {});
    expect(env).toEqual({ PATH: "C:\\Windows", SYSTEMROOT: "C:\\Windows" });
    expect(safeEnvNames("win32")).toContain("PATHEXT");
    expect(safeEnvNames("linux")).not.toContain("PATHEXT");
  });
});

describe("resolveCommand", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), "lemon-resolve-")));
    await writeFile(join(dir, "tool"), "#!/bin/sh\n");
    await chmod(join(dir, "tool"), 0o755);
    await writeFile(join(dir, "plain"), "not executable\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("a bare name is looked up on the child env's PATH, not lemon's", () => {
    expect(resolveCommand("tool", { PATH: `/nonexistent:${dir}` }, "/", "linux")).toBe(join(dir, "tool"));
    expect(resolveCommand("tool", { PATH: "/usr/bin" }, "/", "linux")).toBeNull();
    expect(resolveCommand("tool", {}, "/", "linux")).toBeNull();
  });

  test("a path resolves against cwd; a file without the x bit is not a command", () => {
    expect(resolveCommand("./tool", { PATH: "" }, dir, "linux")).toBe(join(dir, "tool"));
    expect(resolveCommand(join(dir, "tool"), { PATH: "" }, "/", "linux")).toBe(join(dir, "tool"));
    expect(resolveCommand("./plain", { PATH: "" }, dir, "linux")).toBeNull();
    expect(resolveCommand("plain", { PATH: dir }, "/", "linux")).toBeNull();
  });
});

describe("resolveCommand on Windows rules", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), "lemon-pathext-")));
    await writeFile(join(dir, "npx.cmd"), "@echo off\r\n");
    await writeFile(join(dir, "node.exe"), "");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("PATHEXT extensions are tried in order; a name with one is taken as is", () => {
    expect(resolveCommand("npx", { Path: `C:\\nowhere;${dir}`, PATHEXT: ".EXE;.CMD" }, "/", "win32")).toBe(
      join(dir, "npx.cmd"),
    );
    expect(resolveCommand("node", { PATH: dir }, "/", "win32")).toBe(join(dir, "node.exe"));
    expect(resolveCommand("npx.cmd", { PATH: dir, PATHEXT: ".EXE" }, "/", "win32")).toBe(join(dir, "npx.cmd"));
    expect(resolveCommand("npx", { PATH: dir, PATHEXT: ".EXE" }, "/", "win32")).toBeNull();
  });
});

describe("Windows batch shims", () => {
  test("detection", () => {
    expect(isBatchFile("C:\\nodejs\\npx.cmd")).toBe(true);
    expect(isBatchFile("C:\\x\\RUN.BAT")).toBe(true);
    expect(isBatchFile("C:\\nodejs\\node.exe")).toBe(false);
  });

  test("every argument quoted and every cmd metacharacter escaped (twice for a batch file)", () => {
    expect(quoteCmdArg("plain", false)).toBe('^"plain^"');
    expect(quoteCmdArg("a b", false)).toBe('^"a^ b^"');
    expect(quoteCmdArg("x&calc", true)).toBe('^^^"x^^^&calc^^^"');
    expect(quoteCmdArg('say "hi"', false)).toBe('^"say^ \\^"hi\\^"^"');
    expect(quoteCmdArg("C:\\dir\\", false)).toBe('^"C:\\dir\\\\^"');
    expect(quoteCmdArg("100%", false)).toBe('^"100^%^"');
  });

  test("the argv runs cmd.exe /d /s /c with one quoted line", () => {
    expect(windowsBatchArgv("C:\\n\\npx.cmd", ["-y", "a|b"], "C:\\Windows\\system32\\cmd.exe")).toEqual([
      "C:\\Windows\\system32\\cmd.exe",
      "/d",
      "/s",
      "/c",
      '"^"C:\\n\\npx.cmd^" ^^^"-y^^^" ^^^"a^^^|b^^^""',
    ]);
    expect(windowsBatchArgv("x.bat", [], undefined)[0]).toBe("cmd.exe");
  });
});

describe("TextRing", () => {
  test("keeps the last bytes only", () => {
    const r = new TextRing(8);
    r.push("abcdef");
    r.push("ghij");
    expect(r.tail()).toBe("cdefghij");
    expect(r.tail(3)).toBe("hij");
    r.push("0123456789ABC");
    expect(r.tail()).toBe("6789ABC".padStart(8, "5"));
    expect(r.tail(100)).toBe("56789ABC");
  });
});
