/**
 * @module mcp/client/transport/spawn
 * How a stdio server is started (mcp.md §5.1): the child environment (a safe default set, the
 * named `env_vars`, then `env`), the command resolved on that environment's PATH (PATHEXT on
 * Windows) and, on Windows, `.cmd`/`.bat` shims run through `cmd.exe` with every argument quoted
 * so that no character of it is read by cmd as syntax. Pure functions: the worker imports them.
 */
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";

import { lookup } from "../../../child-env.ts";

export { childEnv, safeEnvNames } from "../../../child-env.ts";

function isExecutableFile(p: string, platform: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    if (platform !== "win32") accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The program `command` names: a path (anything with a separator) against `cwd`, else the first
 * match on the child env's PATH, trying PATHEXT's extensions on Windows. Null when none exists.
 */
export function resolveCommand(
  command: string,
  env: Record<string, string>,
  cwd: string,
  platform: string,
): string | null {
  const win = platform === "win32";
  const exts = win
    ? (lookup(env, "PATHEXT", platform) ?? ".COM;.EXE;.BAT;.CMD")
        .split(";")
        .filter((e) => e !== "")
        .map((e) => e.toLowerCase())
    : [""];
  // Windows takes a name that already has an extension as is, then tries PATHEXT's in order.
  const candidates = (base: string) => {
    if (!win || exts.some((e) => base.toLowerCase().endsWith(e))) return [base];
    const withExts = exts.map((e) => base + e);
    return /\.[^\\/.]+$/.test(base) ? [base, ...withExts] : withExts;
  };
  const hasSep = command.includes("/") || (win && command.includes("\\"));
  if (hasSep || isAbsolute(command)) {
    for (const c of candidates(resolve(cwd, command))) if (isExecutableFile(c, platform)) return c;
    return null;
  }
  const path = lookup(env, "PATH", platform) ?? "";
  for (const dir of path.split(win ? ";" : ":")) {
    if (dir === "") continue;
    for (const c of candidates(resolve(cwd, dir, command))) if (isExecutableFile(c, platform)) return c;
  }
  return null;
}

/** cmd.exe's own syntax characters: outside quotes each one must be caret-escaped. */
const CMD_META = /[()[\]%!^"`<>&|;, *?]/g;

/**
 * One argument as `CommandLineToArgvW` reads it back (backslashes before a quote doubled, the
 * whole in quotes), then caret-escaped for cmd. A batch file re-parses its arguments (`%*`), so
 * for a `.cmd`/`.bat` target the carets are applied twice.
 */
export function quoteCmdArg(arg: string, batch: boolean): string {
  const quoted = `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, "$1$1")}"`;
  const once = quoted.replace(CMD_META, "^$&");
  return batch ? once.replace(CMD_META, "^$&") : once;
}

/** Whether a resolved Windows program is a batch shim (`npx.cmd`) that Bun.spawn cannot run directly. */
export function isBatchFile(program: string): boolean {
  return /\.(cmd|bat)$/i.test(program);
}

/**
 * The argv for a Windows `.cmd`/`.bat` target: `cmd.exe /d /s /c "<line>"`, passed verbatim
 * (`windowsVerbatimArguments`), so cmd sees exactly the quoted line and nothing else.
 */
export function windowsBatchArgv(program: string, args: readonly string[], comspec: string | undefined): string[] {
  const line = [quoteCmdArg(program, false), ...args.map((a) => quoteCmdArg(a, true))].join(" ");
  return [comspec ?? "cmd.exe", "/d", "/s", "/c", `"${line}"`];
}
