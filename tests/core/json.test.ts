import { describe, expect, test } from "bun:test";
import { isJsonFormatError, type JsonFormatError, parseJson, roundTrips } from "../../src/core/json.ts";
import { LemonError } from "../../src/core/errors.ts";

function failure(text: string, jsonc = false): JsonFormatError {
  try {
    parseJson(text, { jsonc });
  } catch (err) {
    if (isJsonFormatError(err)) return err;
    throw err;
  }
  throw new Error(`accepted: ${text}`);
}

describe("parseJson: valid documents", () => {
  test("parses like JSON.parse and drops a leading BOM", () => {
    expect(parseJson('{"a":[1,2,{"b":null}],"c":"x"}')).toEqual({ a: [1, 2, { b: null }], c: "x" });
    expect(parseJson('\uFEFF{"a":1}')).toEqual({ a: 1 });
    expect(parseJson("\uFEFF[1]", { jsonc: true })).toEqual([1]);
    expect(parseJson("42")).toBe(42);
    expect(parseJson('"s"')).toBe("s");
  });

  test("the same key in different objects, arrays of objects and nested objects is fine", () => {
    const text = '{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"c":{"x":1,"y":{"x":2}},"x":3}';
    expect(parseJson(text)).toEqual({ a: { a: { a: 1 } }, b: [{ a: 1 }, { a: 2 }], c: { x: 1, y: { x: 2 } }, x: 3 });
  });

  test("values equal to keys, quotes and braces inside strings do not confuse the scanner", () => {
    const text = '{"a":"a","b":"\\"a\\":1,{","c":["a","a"],"d":"\\\\","e":"}"}';
    expect(parseJson(text)).toEqual({ a: "a", b: '"a":1,{', c: ["a", "a"], d: "\\", e: "}" });
  });

  test("JSONC: comments, trailing commas, single quotes", () => {
    const text = `// head "a"
{
  /* "a": 1, "a": 2 */
  "a": 1, // "a"
  'b': 'say "a"',
  "c": [1, 2,],
}`;
    expect(parseJson(text, { jsonc: true })).toEqual({ a: 1, b: 'say "a"', c: [1, 2] });
  });

  test("ordinary numbers pass, including exponents and the largest safe integers", () => {
    expect(parseJson("[0,-0,1.5,-2.25e-3,1e21,1E23,9007199254740991,-9007199254740991,3.141592653589793]")).toEqual([
      0,
      -0,
      1.5,
      -2.25e-3,
      1e21,
      1e23,
      9007199254740991,
      -9007199254740991,
      Math.PI,
    ]);
    expect(parseJson("[9007199254740992,1e300,0.0e5,18446744073709552000]")).toEqual([2 ** 53, 1e300, 0, 2 ** 64]);
  });
});

describe("parseJson: duplicate keys", () => {
  test("the same key twice in one object is rejected, naming the key", () => {
    const err = failure('{"servers":{},"x":1,"servers":{"a":{}}}');
    expect(err).toBeInstanceOf(LemonError);
    expect(LemonError.is(err)).toBe(true);
    expect(err.problem).toBe("duplicate_key");
    expect(err.reason).toBe("duplicate key 'servers'");
    expect(err.message).toBe("duplicate key 'servers'");
    expect(err.key).toBe("servers");
  });

  test("escaped and plain spellings of one key are the same key", () => {
    expect(failure('{"ab":1,"a\\u0062":2}').key).toBe("ab");
    expect(failure('{"a\\u0062":1,"ab":2}').key).toBe("ab");
    expect(failure('{"a\\"b":1,"a\\u0022b":2}').key).toBe('a"b');
  });

  test("duplicates deep inside arrays and objects are found", () => {
    expect(failure('[1,[{"a":1}],{"x":{"k":1,"y":[],"k":2}}]').key).toBe("k");
    expect(failure('{"a":{"b":1},"c":{"d":1,"d":1}}').key).toBe("d");
    expect(failure('{"a":1,"b":2,"c":3,"a":4}').key).toBe("a");
  });

  test("an outer key repeated after a nested object is still a duplicate", () => {
    expect(failure('{"a":{"z":1},"a":2}').key).toBe("a");
  });

  test("__proto__ twice is a duplicate like any key", () => {
    expect(failure('{"__proto__":1,"__proto__":2}').key).toBe("__proto__");
  });

  test("JSONC: duplicates across quote styles and escapes, not inside comments", () => {
    expect(failure(`{"a":1, 'a':2}`, true).key).toBe("a");
    expect(failure(`{'a\\x62':1, "ab":2}`, true).key).toBe("ab");
    expect(failure('{"a":1, /* c */ "a":2,}', true).key).toBe("a");
    expect(parseJson('{"a":1 /* ,"a":2 */}', { jsonc: true })).toEqual({ a: 1 });
  });

  test("a key with control characters is shown on one line", () => {
    const err = failure('{"a\\nb":1,"a\\nb":2}');
    expect(err.key).toBe("a\nb");
    expect(err.message).not.toContain("\n");
  });
});

describe("parseJson: numbers that do not round-trip", () => {
  test("1e400 (Infinity) is rejected", () => {
    const err = failure('{"a":1e400}');
    expect(err.problem).toBe("number");
    expect(err.reason).toBe("number 1e400 does not round-trip");
    expect(failure("[-1E+400]").reason).toBe("number -1E+400 does not round-trip");
    expect(failure('{"a":1e400}', true).problem).toBe("number");
  });

  test("integers beyond 2^53 that lose precision are rejected", () => {
    expect(failure("[9007199254740993]").reason).toBe("number 9007199254740993 does not round-trip");
    expect(failure('{"id":-12345678901234567891}').problem).toBe("number");
    expect(failure("[9007199254740993.0]").problem).toBe("number");
    expect(failure("[9.007199254740993e15]").problem).toBe("number");
  });

  test("a non-zero number that underflows to 0 is rejected", () => {
    expect(failure("[1e-400]").problem).toBe("number");
  });

  test("digits past a double's precision are rejected: a rewrite would drop them", () => {
    expect(failure("[3.141592653589793238]").problem).toBe("number");
    expect(parseJson("[0.30000000000000004,5e-324,0.1]")).toEqual([0.30000000000000004, 5e-324, 0.1]);
  });

  test("JSONC hex literals beyond 2^53 are rejected, small ones pass", () => {
    expect(parseJson('{"a":0x1F}', { jsonc: true })).toEqual({ a: 31 });
    expect(failure('{"a":0x20000000000001}', true).problem).toBe("number");
  });

  test("roundTrips", () => {
    expect(roundTrips("123")).toBe(true);
    expect(roundTrips("1e308")).toBe(true);
    expect(roundTrips("100e-2")).toBe(true);
    expect(roundTrips("-0.000")).toBe(true);
    expect(roundTrips("1e309")).toBe(false);
    expect(roundTrips("0e999")).toBe(true);
    expect(roundTrips("12345678901234567890")).toBe(false);
    expect(roundTrips("12345678901234567000")).toBe(true); // the shortest form of its double
    // An exact double, but written back as 12345678901234567000: another integer to a BigInt reader.
    expect(roundTrips("12345678901234567168")).toBe(false);
    expect(roundTrips("18446744073709551616")).toBe(false);
    expect(roundTrips("1.7976931348623157e308")).toBe(true);
  });

  test("numbers inside strings and keys are not checked", () => {
    expect(parseJson('{"1e400":"9007199254740993"}')).toEqual({ "1e400": "9007199254740993" });
  });
});

describe("parseJson: syntax errors", () => {
  test("a syntax error is a JsonFormatError whose reason quotes no content", () => {
    const err = failure('{"token": secret-value}');
    expect(err.problem).toBe("syntax");
    expect(err.reason).toStartWith("invalid JSON");
    expect(err.reason).not.toContain("secret");
    expect(failure('{"a":1,}').reason).toStartWith("invalid JSON");
    expect(failure("{'a':1}").problem).toBe("syntax");
    expect(failure("{a: 1}", true).reason).toStartWith("invalid JSONC");
    expect(failure("{a: 1}", true).reason).not.toContain('"a"');
  });

  test("the parser's own punctuation stays, so the reason says what was expected", () => {
    expect(failure("{bad").reason).toBe("invalid JSON (Expected '}')");
    expect(failure('{"a" 1}').reason).toBe("invalid JSON (Expected ':' before value in object property definition)");
    expect(failure('{"a": "x" "secret"}').reason).not.toContain("secret");
  });
});

describe("parseJson: speed", () => {
  test("a large document is scanned in one pass", () => {
    const servers: Record<string, unknown> = {};
    for (let i = 0; i < 20000; i++) {
      servers[`server-${i}`] = { command: "node", args: ["x".repeat(200), String(i)], env: { A: "b" }, n: i * 1.5 };
    }
    const text = JSON.stringify({ mcpServers: servers }, null, 2);
    expect(text.length).toBeGreaterThan(5_000_000);
    const value = parseJson(text) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(value.mcpServers).length).toBe(20000);
    const dup = text.replace('"server-19999"', '"server-0"');
    expect(failure(dup).key).toBe("server-0");
  });
});
