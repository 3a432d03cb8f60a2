/**
 * @module cli/run
 * The CLI proper: find the command in the tables (common flags may stand anywhere), answer
 * `--version` and `--help` wherever they appear, parse, run, and map errors to exit codes and
 * the stderr of cli.md §1.2. Never exits the process itself so tests can call it in-process.
 */
import { LemonError, TARGET, toLemonError, VERSION } from "../core/index.ts";
import { parseTokens, usageError } from "./args.ts";
import { COMMON_FLAGS, type CommandGroup, type CommandRow, type LemonCommand, type Parsed } from "./command.ts";
import { root } from "./commands/index.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, exitCodeFor } from "./exit.ts";
import { OutputError, type CliIo } from "./io.ts";
import { printJson, renderError } from "./output.ts";
import { renderUsage, TOP_USAGE, usageLine } from "./usage.ts";

type Node = LemonCommand | CommandGroup;

/** The common flags that take a value, so finding the command skips their value too. */
const COMMON_WITH_VALUE = new Set(
  Object.entries(COMMON_FLAGS).flatMap(([n, f]) => (f.type === "boolean" ? [] : [`--${n}`])),
);
const COMMON_NAMES = new Set(
  Object.entries(COMMON_FLAGS).flatMap(([n, f]) => [
    `--${n}`,
    ...("aliases" in f ? f.aliases.map((a) => `--${a}`) : []),
    ...("short" in f ? [`-${f.short}`] : []),
    ...("defaultOn" in f ? [`--no-${n}`] : []),
  ]),
);

const isCommon = (tok: string) => COMMON_NAMES.has(tok.split("=")[0]!);

function rowFor(group: CommandGroup, word: string): [string, CommandRow] | null {
  const direct = group.commands[word];
  if (direct) return [word, direct];
  for (const [name, row] of Object.entries(group.commands))
    if ("aliases" in row && row.aliases?.includes(word)) return [name, row];
  return null;
}

/** An argument error inside a known command: printed with that command's usage line. */
class Usage extends Error {
  constructor(
    readonly path: readonly string[],
    readonly node: Node,
    readonly error: LemonError,
  ) {
    super(error.message);
  }
}

interface Found {
  path: string[];
  node: Node;
  /** The tokens left for the command's parser: everything but the command words. */
  rest: string[];
}

/** Walks the command words; common flags (and `--cwd`'s value) before them are kept for the parser. */
async function find(head: readonly string[]): Promise<Found> {
  let node: Node = root;
  const path: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < head.length; i++) {
    const tok = head[i]!;
    if (node.kind === "command" || tok.startsWith("-")) {
      rest.push(tok);
      if (node.kind === "group" && COMMON_WITH_VALUE.has(tok) && i + 1 < head.length) rest.push(head[++i]!);
      if (node.kind === "group" && !isCommon(tok)) {
        rest.push(...head.slice(i + 1));
        break;
      }
      continue;
    }
    const row = rowFor(node, tok);
    if (row === null) throw new Usage(path, node, usageError(`unknown command '${[...path, tok].join(" ")}'`));
    const [name, r] = row;
    path.push(name);
    if ("unavailable" in r)
      throw new LemonError("UNAVAILABLE", `'lemon ${path.join(" ")}' is not available in this version`);
    node = await r.load();
  }
  return { path, node, rest };
}

async function groupRows(group: CommandGroup): Promise<[string, string][]> {
  const rows: [string, string][] = [];
  for (const [name, row] of Object.entries(group.commands)) {
    if ("unavailable" in row) continue;
    const node = await row.load();
    rows.push([[name, ...(row.aliases ?? [])].join(", "), node.description]);
  }
  return rows;
}

async function helpText(path: readonly string[], node: Node): Promise<string> {
  if (path.length === 0) return TOP_USAGE;
  return renderUsage(path, node, node.kind === "group" ? await groupRows(node) : undefined);
}

/** The words of the line that are neither flags nor the value of a common flag. */
function commandWords(head: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < head.length; i++) {
    const tok = head[i]!;
    if (COMMON_WITH_VALUE.has(tok)) i++;
    else if (!tok.startsWith("-")) out.push(tok);
  }
  return out;
}

const flagOn = (head: readonly string[], ...names: string[]) => head.some((t) => names.includes(t));

async function dispatch(head: string[], tail: string[], io: CliIo, json: boolean): Promise<number> {
  if (head.length === 0 && tail.length === 0) {
    io.err(TOP_USAGE);
    return EXIT_USAGE;
  }
  const words = commandWords(head);
  if (flagOn(head, "--version") || words[0] === "version") {
    if (json) printJson(io, { ok: true, version: VERSION, platform: TARGET });
    else io.out(`lemon ${VERSION}\n`);
    return EXIT_OK;
  }
  if (words[0] === "help") {
    const { path, node } = await find(words.slice(1));
    io.out(await helpText(path, node));
    return EXIT_OK;
  }
  const found = await find(head);
  if (flagOn(head, "--help", "-h")) {
    io.out(await helpText(found.path, found.node));
    return EXIT_OK;
  }
  const { path, node, rest } = found;
  if (node.kind === "group") {
    const tok = rest.find((t) => !isCommon(t));
    if (tok?.startsWith("-")) throw new Usage(path, node, usageError(`unknown option '${tok.split("=")[0]}'`));
    const missing = path.length === 0 ? "missing command" : `missing command for 'lemon ${path.join(" ")}'`;
    throw new Usage(path, node, usageError(missing));
  }
  let parsed: Parsed;
  try {
    parsed = parseTokens(rest, node.flags, node.args, node.takesTail ? [] : tail);
  } catch (err) {
    const e = toLemonError(err);
    throw new Usage(path, node, node.explain?.(e, rest) ?? e);
  }
  try {
    return await node.run(parsed, node.takesTail ? tail : [], io);
  } catch (err) {
    const e = err instanceof OutputError ? err : toLemonError(err);
    throw e instanceof LemonError && e.code === "INVALID_PARAMS" ? new Usage(path, node, e) : e;
  }
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const stop = argv.indexOf("--");
  const head = stop < 0 ? argv : argv.slice(0, stop);
  const tail = stop < 0 ? [] : argv.slice(stop + 1);
  const json = head.includes("--json");
  try {
    return await dispatch(head, tail, io, json);
  } catch (err) {
    if (err instanceof OutputError) return outputFailed(err, io, json);
    const usage = err instanceof Usage ? err : null;
    const e = usage ? usage.error : toLemonError(err);
    try {
      let lines: string | undefined;
      if (!json && e.code === "INVALID_PARAMS") {
        const at = usage ? ["lemon", ...usage.path].join(" ") : "lemon";
        const line = usage ? `${usageLine(usage.path, usage.node)}\n` : "";
        lines = e.hint === undefined ? `${line}run '${at} --help' for details` : undefined;
      }
      renderError(e, io, json, lines);
    } catch (failed) {
      if (!(failed instanceof OutputError)) throw failed;
      return EXIT_FAILED;
    }
    return exitCodeFor(e.code);
  }
}

/** Exit 1; a closed stdout (EPIPE) quietly, anything else with one line on stderr if it still works. */
function outputFailed(err: OutputError, io: CliIo, json: boolean): number {
  if (err.stream === "stdout" && err.errno !== "EPIPE") {
    try {
      renderError(new LemonError("OPERATION_FAILED", err.message), io, json);
    } catch {
      // stderr is gone too: the exit code is all that is left
    }
  }
  return EXIT_FAILED;
}
