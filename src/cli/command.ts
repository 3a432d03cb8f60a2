/**
 * @module cli/command
 * How a lemon command is declared: one definition gives its flags and their types, positionals,
 * help text and the run function, which receives the values already parsed and typed. Groups
 * (`lemon skill`, `lemon mcp`) are tables of lazily loaded commands; a command the contract
 * defines but this version does not build is an `unavailable` row (cli.md §1.2).
 */
import type { LemonError } from "../core/index.ts";
import type { CliIo } from "./io.ts";

type FlagType = "boolean" | "string" | "integer" | "list";

export interface FlagSpec {
  readonly type: FlagType;
  readonly description: string;
  /** The one-letter form: `"t"` for `-t`. */
  readonly short?: string;
  /** Other long names: `["project"]` for `--local`. */
  readonly aliases?: readonly string[];
  /** The value's placeholder in help: `--tools <a,b>`. */
  readonly value?: string;
  /** A boolean that is on unless `--no-<name>` is given (`--no-audit`); help shows the negative. */
  readonly defaultOn?: boolean;
  /** The values a string flag accepts. */
  readonly choices?: readonly string[];
  /** Parsed but left out of help: a contract option whose feature is not built (it answers UNAVAILABLE). */
  readonly hidden?: boolean;
}

export interface ArgSpec {
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
  /** Takes every further word (`lint PATH …`, a query of several words). */
  readonly variadic?: boolean;
}

type ValueOf<F extends FlagSpec> = F["type"] extends "boolean"
  ? boolean
  : F["type"] extends "list"
    ? string[]
    : F["type"] extends "integer"
      ? number | undefined
      : string | undefined;

type FlagValues<F extends Record<string, FlagSpec>> = { readonly [K in keyof F]: ValueOf<F[K]> };

type ArgValues<P extends readonly ArgSpec[]> = {
  readonly [A in P[number] as A["name"]]: A extends { required: true } ? string : string | undefined;
};

/** Flags every command accepts, anywhere on the line (cli.md §1.3). */
export const COMMON_FLAGS = {
  cwd: { type: "string", description: "Project directory (default: the current directory)", value: "path" },
  json: { type: "boolean", description: "Print one JSON document" },
  approve: { type: "boolean", aliases: ["yes"], description: "Pre-approve this command's approval requests" },
  quiet: { type: "boolean", description: "Suppress informational output on stderr" },
  color: { type: "boolean", defaultOn: true, description: "Disable colour (NO_COLOR does the same)" },
  help: { type: "boolean", short: "h", description: "Show usage" },
  version: { type: "boolean", description: "Print the version" },
} as const satisfies Record<string, FlagSpec>;

type CommonFlags = typeof COMMON_FLAGS;

interface RunContext<F extends Record<string, FlagSpec>, P extends readonly ArgSpec[]> {
  readonly flags: FlagValues<F & CommonFlags>;
  readonly args: ArgValues<P>;
  /** Every positional word in order (a variadic argument's words included). */
  readonly words: readonly string[];
  /** The tokens after a bare `--`. */
  readonly tail: readonly string[];
  readonly io: CliIo;
}

/** Parsed values keyed by flag name, as the parser produced them; the spec guarantees the types. */
export interface Parsed {
  flags: Record<string, boolean | string | number | string[] | undefined>;
  args: Record<string, string | undefined>;
  words: string[];
}

export interface LemonCommand {
  readonly kind: "command";
  readonly name: string;
  readonly description: string;
  readonly flags: Readonly<Record<string, FlagSpec>>;
  readonly args: readonly ArgSpec[];
  /** Tokens after `--` are allowed (and handed over as `tail`). */
  readonly takesTail: boolean;
  /** A parse error of this command with a command-specific hint added (the tokens before `--`). */
  readonly explain?: (err: LemonError, tokens: readonly string[]) => LemonError;
  run(parsed: Parsed, tail: readonly string[], io: CliIo): Promise<number>;
}

/** A row of a group: a command loaded on use, or one the contract has and this version does not. */
export type CommandRow =
  | { readonly load: () => Promise<LemonCommand | CommandGroup>; readonly aliases?: readonly string[] }
  | { readonly unavailable: string };

export interface CommandGroup {
  readonly kind: "group";
  readonly name: string;
  readonly description: string;
  readonly commands: Readonly<Record<string, CommandRow>>;
}

export function defineCommand<const F extends Record<string, FlagSpec>, const P extends readonly ArgSpec[] = []>(spec: {
  name: string;
  description: string;
  flags?: F;
  args?: P;
  takesTail?: boolean;
  explain?: (err: LemonError, tokens: readonly string[]) => LemonError;
  /** Resolves to the exit code, or nothing for success. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a command that returns nothing succeeded, so void is the point
  run(ctx: RunContext<F, P>): Promise<number | void>;
}): LemonCommand {
  return {
    ...(spec.explain !== undefined ? { explain: spec.explain } : {}),
    kind: "command",
    name: spec.name,
    description: spec.description,
    flags: spec.flags ?? {},
    args: spec.args ?? [],
    takesTail: spec.takesTail ?? false,
    async run(parsed, tail, io) {
      // The parser produced exactly the keys and value types the spec declares.
      const flags = parsed.flags as FlagValues<F & CommonFlags>;
      const args = parsed.args as ArgValues<P>;
      const code = await spec.run({ flags, args, words: parsed.words, tail, io });
      return typeof code === "number" ? code : 0;
    },
  };
}

export function defineGroup(group: Omit<CommandGroup, "kind">): CommandGroup {
  return { kind: "group", ...group };
}

/** Loads a module's default export: the command or group of a row. */
export const lazy =
  (load: () => Promise<{ default: LemonCommand | CommandGroup }>) => (): Promise<LemonCommand | CommandGroup> =>
    load().then((m) => m.default);
