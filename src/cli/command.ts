/**
 * @module cli/command
 * How a lemon subcommand is declared: citty argument definitions plus a run function that gets
 * the parsed arguments and the CLI's streams, and returns the exit code.
 */
import type { ArgsDef, ParsedArgs } from "citty";
import type { CliIo } from "./io.ts";

export interface CommandRun<A extends ArgsDef> {
  args: ParsedArgs<A>;
  io: CliIo;
  /** Tokens after a bare `--`. */
  rest: string[];
  /** The command's own tokens before `--`, for flags that may repeat (citty keeps only the last). */
  argv: string[];
}

export interface LemonCommand<A extends ArgsDef = ArgsDef> {
  meta: { name: string; description: string; alias?: string[]; hidden?: boolean };
  args?: A;
  /** Accept any number of positionals beyond the declared ones (e.g. lint PATH …). */
  variadic?: boolean;
  subCommands?: Record<string, () => Promise<LemonCommand>>;
  run?: (ctx: CommandRun<A>) => Promise<number | void>;
}

export function defineLemonCommand<const A extends ArgsDef>(cmd: LemonCommand<A>): LemonCommand {
  return cmd as unknown as LemonCommand;
}
