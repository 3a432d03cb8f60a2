// The declared parser on its own (src/cli/args.ts): every value form, defaults, and each refusal.
import { describe, expect, test } from "bun:test";
import { parseTokens } from "../../src/cli/args.ts";
import type { ArgSpec, FlagSpec } from "../../src/cli/command.ts";

const FLAGS = {
  all: { type: "boolean", description: "" },
  audit: { type: "boolean", defaultOn: true, description: "" },
  max: { type: "integer", description: "" },
  env: { type: "list", short: "e", description: "" },
  local: { type: "boolean", aliases: ["project"], description: "" },
  transport: { type: "string", short: "t", choices: ["stdio", "http"], description: "" },
} as const satisfies Record<string, FlagSpec>;
const ARGS: ArgSpec[] = [
  { name: "key", description: "", required: true },
  { name: "rest", description: "", variadic: true },
];

const parse = (tokens: string[], args: readonly ArgSpec[] = ARGS) => parseTokens(tokens, FLAGS, args);
const refusal = (tokens: string[], args: readonly ArgSpec[] = ARGS) => {
  try {
    parse(tokens, args);
  } catch (err) {
    return [(err as { code: string }).code, (err as Error).message];
  }
  return null;
};

describe("parseTokens", () => {
  test("defaults: booleans off (or on), lists empty, values unset", () => {
    const p = parse(["k"]);
    expect(p.flags).toMatchObject({
      all: false,
      audit: true,
      max: undefined,
      env: [],
      local: false,
      transport: undefined,
    });
    expect(p.flags).toMatchObject({ json: false, color: true, cwd: undefined });
    expect([p.args, p.words]).toEqual([{ key: "k" }, ["k"]]);
  });

  test("every value form, aliases, short forms, negation and repeats", () => {
    const p = parse([
      "k",
      "--max=4",
      "-e",
      "A=1",
      "--env",
      "B=2",
      "-e=C=3",
      "--project",
      "--no-audit",
      "-t",
      "http",
      "x",
      "y",
    ]);
    expect(p.flags).toMatchObject({ max: 4, env: ["A=1", "B=2", "C=3"], local: true, audit: false, transport: "http" });
    expect([p.args, p.words]).toEqual([{ key: "k", rest: "x y" }, ["k", "x", "y"]]);
    expect(parse(["k", "--all=false", "--no-color"]).flags).toMatchObject({ all: false, color: false });
    expect(parse(["k", "--max", "2", "--max", "7"]).flags.max).toBe(7);
    expect(parse(["-", "--cwd", "-"]).flags.cwd).toBe("-");
    const after = parseTokens(["--all"], FLAGS, ARGS, ["-v", "--all"]);
    expect([after.flags.all, after.args, after.words]).toEqual([true, { key: "-v", rest: "--all" }, ["-v", "--all"]]);
  });

  test("refusals are INVALID_PARAMS naming the problem", () => {
    const cases: [string[], string][] = [
      [["k", "--bogus"], "unknown option '--bogus'"],
      [["k", "-x"], "unknown option '-x'"],
      [["k", "-et"], "unknown option '-et'"],
      [["k", "--no-max"], "unknown option '--no-max'"],
      [["k", "--all=yes"], "option '--all' takes no value"],
      [["k", "--max"], "option '--max' needs a value"],
      [["k", "--env", "--all"], "option '--env' needs a value"],
      [["k", "--max", "0"], "--max must be an integer of at least 1 (got '0')"],
      [["k", "--max", "1e3"], "--max must be an integer of at least 1 (got '1e3')"],
      [["k", "--max", "999999999999999999999"], "--max is too large (got '999999999999999999999')"],
      [["k", "-t", "sse"], "--transport must be stdio or http (got 'sse')"],
      [[], "missing argument <KEY>"],
    ];
    for (const [tokens, message] of cases)
      expect([tokens, refusal(tokens)]).toEqual([tokens, ["INVALID_PARAMS", message]]);
    expect(refusal(["a", "b"], [{ name: "key", description: "" }])).toEqual([
      "INVALID_PARAMS",
      "unexpected argument 'b'",
    ]);
    expect(refusal(["a"], [])).toEqual(["INVALID_PARAMS", "unexpected argument 'a'"]);
    expect(() => parseTokens([], FLAGS, [], ["x"])).toThrow("unexpected argument 'x'");
  });
});
