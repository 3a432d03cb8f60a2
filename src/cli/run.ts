/**
 * @module cli/run
 * The CLI proper: resolve the subcommand, answer help, reject bad flags, run, map errors to exit
 * codes. Never exits the process itself so tests can call it in-process.
 */
import { invalidParams, LemonError, toLemonError } from "../core/errors.ts";
import { VERSION, TARGET } from "../core/build-info.ts";
import { commonArgs, parseArgv, type ParsedValues } from "./args.ts";
import { commands } from "./commands/index.ts";
import type { LemonCommand } from "./command.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, exitCodeFor } from "./exit.ts";
import { OutputError, type CliIo } from "./io.ts";
import { printJson, renderError } from "./output.ts";
import { renderCommandUsage, TOP_USAGE } from "./usage.ts";
import type { ParsedArgs } from "citty";

const wantsJson = (argv: string[]) => {
  const stop = argv.indexOf("--");
  return (stop < 0 ? argv : argv.slice(0, stop)).includes("--json");
};
const wantsHelp = (argv: string[]) => {
  const stop = argv.indexOf("--");
  const head = stop < 0 ? argv : argv.slice(0, stop);
  return head.includes("--help") || head.includes("-h");
};

function useColor(io: CliIo, argv: string[]): boolean {
  return io.stdoutIsTTY && !io.env.NO_COLOR && !argv.includes("--no-color");
}

interface Resolved {
  path: string[];
  cmd: LemonCommand;
  rest: string[];
}

async function findSub(table: Record<string, () => Promise<LemonCommand>>, name: string) {
  const direct = table[name];
  if (direct) return { name, cmd: await direct() };
  for (const [n, load] of Object.entries(table)) {
    const c = await load();
    if (c.meta.alias?.includes(name)) return { name: n, cmd: c };
  }
  return null;
}

async function resolve(argv: string[]): Promise<Resolved | null> {
  const first = argv[0];
  if (first === undefined || first.startsWith("-")) return null;
  const top = await findSub(commands, first);
  if (!top) throw invalidParams(`unknown command '${first}'`, { hint: "run 'lemon --help' for the list of commands" });
  const path = [top.name];
  let cmd = top.cmd;
  let i = 1;
  while (cmd.subCommands) {
    const tok = argv[i];
    if (tok === undefined || tok.startsWith("-")) break;
    const sub = await findSub(cmd.subCommands, tok);
    if (!sub) throw invalidParams(`unknown command '${path.join(" ")} ${tok}'`, { hint: `run 'lemon ${path.join(" ")} --help' for details` });
    path.push(sub.name);
    cmd = sub.cmd;
    i++;
  }
  return { path, cmd, rest: argv.slice(i) };
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0) {
    io.err(TOP_USAGE);
    return EXIT_USAGE;
  }
  if (argv[0] === "--version" || argv[0] === "version") {
    if (wantsJson(argv)) printJson(io, { ok: true, version: VERSION, platform: TARGET });
    else io.out(`lemon ${VERSION}\n`);
    return EXIT_OK;
  }
  if (argv[0] === "help") {
    const target = argv.slice(1).filter((a) => !a.startsWith("-"));
    if (target.length === 0) {
      io.out(TOP_USAGE);
      return EXIT_OK;
    }
    const r = await resolve(target);
    if (r) io.out(await renderCommandUsage(r.path, r.cmd, useColor(io, argv)));
    return EXIT_OK;
  }
  const resolved = await resolve(argv);
  if (!resolved) {
    if (wantsHelp(argv)) {
      io.out(TOP_USAGE);
      return EXIT_OK;
    }
    throw invalidParams(`unknown option '${argv[0]}'`, { hint: "run 'lemon --help' for details" });
  }
  const { path, cmd, rest } = resolved;
  if (wantsHelp(rest)) {
    io.out(await renderCommandUsage(path, cmd, useColor(io, argv)));
    return EXIT_OK;
  }
  if (cmd.subCommands || !cmd.run) {
    const tok = rest[0];
    if (tok !== undefined && !tok.startsWith("-"))
      throw invalidParams(`unknown command '${path.join(" ")} ${tok}'`);
    throw new LemonError("INVALID_PARAMS", `missing command for 'lemon ${path.join(" ")}'`, {
      hint: `run 'lemon ${path.join(" ")} --help' for details`,
    });
  }
  const args = { ...(cmd.args ?? {}), ...commonArgs };
  const stop = rest.indexOf("--");
  const head = stop < 0 ? rest : rest.slice(0, stop);
  const tail = stop < 0 ? [] : rest.slice(stop + 1);
  let parsed: ParsedValues;
  try {
    parsed = parseArgv(head, args, cmd.variadic ?? false);
  } catch (err) {
    const e = toLemonError(err);
    renderError(e, io, wantsJson(rest), wantsJson(rest) ? undefined : await usageTail(path, cmd));
    return exitCodeFor(e.code);
  }
  const code = await cmd.run({ args: parsed as ParsedArgs, io, rest: tail, argv: head });
  return typeof code === "number" ? code : EXIT_OK;
}

async function usageTail(path: string[], cmd: LemonCommand): Promise<string> {
  const usage = await renderCommandUsage(path, cmd, false);
  const line = usage.split("\n").find((l) => l.startsWith("USAGE")) ?? `USAGE lemon ${path.join(" ")}`;
  return `${line}\nrun 'lemon ${path.join(" ")} --help' for details`;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    if (err instanceof OutputError) return outputFailed(err, io);
    const e = toLemonError(err);
    const usage = e.code === "INVALID_PARAMS" && !wantsJson(argv) ? "run 'lemon --help' for details" : undefined;
    try {
      renderError(e, io, wantsJson(argv), usage);
    } catch (failed) {
      if (!(failed instanceof OutputError)) throw failed;
      return EXIT_FAILED;
    }
    return exitCodeFor(e.code);
  }
}

/** Exit 1; a closed stdout (EPIPE) quietly, anything else with one line on stderr if it still works. */
function outputFailed(err: OutputError, io: CliIo): number {
  if (err.stream === "stdout" && err.errno !== "EPIPE") {
    try {
      io.err(`error [OPERATION_FAILED]: ${err.message}\n`);
    } catch {
      // stderr is gone too: the exit code is all that is left
    }
  }
  return EXIT_FAILED;
}
