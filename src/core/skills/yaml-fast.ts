/**
 * @module skills/yaml-fast
 * Most SKILL.md headers are plain block mappings. Those are parsed with Bun's native YAML
 * parser (about 30× faster than loading and warming the `yaml` package on a cold start) after a
 * line scan proves they use nothing whose semantics could differ: no anchors, aliases, tags,
 * flow mappings, complex or merge keys, no key the core schema reads as a non-string, and no
 * duplicate keys (Bun keeps the last silently). Anything else returns null and goes through the
 * `yaml` package, which stays the reference.
 */

const BLOCK_SCALAR = /^[|>][-+0-9]*\s*(#.*)?$/;
const KEY = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"?\-&*!|>{[%@`][^#]*?|-[^\s#][^#]*?)\s*:(?:\s|$)/;
const RISKY = /(^|[\s[,:])([&*!]\S|\{)|<<|^\s*[?%]|^\s*---|^\s*\.\.\.\s*$/;

/**
 * Plain keys the core schema reads as null, a boolean or a number. The reference parser keeps such a
 * key's source text (`0x10`, `~`), Bun converts it (`16`, `null`): they go to the reference parser.
 */
const NON_STRING_KEY = new RegExp(
  `^(?:${[
    "~|null|Null|NULL|true|True|TRUE|false|False|FALSE",
    "[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+",
    "[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?",
    "[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)",
  ].join("|")})$`,
);

function stripQuoted(s: string): string {
  return s.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, '""');
}

function unquote(k: string): string {
  if (k.startsWith('"')) {
    try {
      return JSON.parse(k) as string;
    } catch {
      return k;
    }
  }
  if (k.startsWith("'")) return k.slice(1, -1).replace(/''/g, "'");
  return k.trim();
}

/** True when the header uses only constructs both parsers read alike and has no duplicate key. */
export function isPlainHeader(header: string): boolean {
  const stack: { indent: number; keys: Set<string> }[] = [];
  let blockIndent = -1;
  for (const raw of header.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (line.includes("\t") && /^\s*\t/.test(line)) return false;
    const trimmed = line.trimStart();
    const indent = line.length - trimmed.length;
    if (blockIndent >= 0) {
      if (trimmed === "" || indent > blockIndent) continue;
      blockIndent = -1;
    }
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    if (RISKY.test(stripQuoted(line))) return false;
    let col = indent;
    let rest = trimmed;
    let fresh = false;
    while (rest === "-" || rest.startsWith("- ")) {
      while (stack.length > 0 && stack[stack.length - 1]!.indent > col) stack.pop();
      const after = rest.slice(1);
      const inner = after.trimStart();
      col += 1 + (after.length - inner.length);
      rest = inner;
      fresh = true;
      if (rest === "") break;
    }
    const m = KEY.exec(rest);
    if (!m) {
      if (BLOCK_SCALAR.test(rest)) blockIndent = col - 1;
      continue;
    }
    const key = unquote(m[1]!);
    if (!/^["']/.test(m[1]!) && NON_STRING_KEY.test(key)) return false;
    while (stack.length > 0 && stack[stack.length - 1]!.indent > col) stack.pop();
    if (fresh) {
      while (stack.length > 0 && stack[stack.length - 1]!.indent >= col) stack.pop();
      stack.push({ indent: col, keys: new Set() });
    } else if (stack.length === 0 || stack[stack.length - 1]!.indent !== col) {
      stack.push({ indent: col, keys: new Set() });
    }
    const top = stack[stack.length - 1]!;
    if (top.keys.has(key)) return false;
    top.keys.add(key);
    const value = rest.slice(m[0].length).trim();
    if (BLOCK_SCALAR.test(value)) blockIndent = col;
  }
  return true;
}

/** The parsed header, or null when the reference parser must decide. */
export function parsePlainYaml(header: string): unknown {
  if (typeof Bun === "undefined" || !("YAML" in Bun) || !isPlainHeader(header)) return null;
  try {
    return Bun.YAML.parse(header);
  } catch {
    return null;
  }
}
