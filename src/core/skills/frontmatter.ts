/**
 * @module skills/frontmatter
 * Splits a SKILL.md into header and body and parses YAML (`---`) or TOML (`+++`) headers
 * (skills.md §4.1). The parsers load lazily: listing an unchanged tree never needs them.
 */
import { decodeUtf8 } from "../text.ts";
import { parseTomlDetailed } from "../toml.ts";
import { MSG } from "./messages.ts";
import { parsePlainYaml } from "./yaml-fast.ts";

/** SKILL.md size limit (skills.md §2.2). */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;
/** Frontmatter size limit, checked before parsing (skills.md §4.1 rule 3). */
const MAX_HEADER_BYTES = 65536;
const MAX_ALIASES = 100;

/** Which header a SKILL.md has. */
export type FrontmatterKind = "yaml" | "toml" | "none";

/** The split file with its parsed header mapping, or the parse error. */
export type ParsedSkillFile =
  | (Split & { ok: true; data: Record<string, unknown> })
  | { ok: false; code: "parse_error"; message: string };

// The one strict decoder is text.ts's; exported here too for this module's importers.
export { decodeUtf8 };

/** A SKILL.md cut at its fences: the header text (not parsed) and the body. */
export interface Split {
  kind: FrontmatterKind;
  header: string;
  body: string;
  /** 1-based line where the body starts. */
  bodyStartLine: number;
}

/** Finds the frontmatter fences (skills.md §4.1 rule 2); `error` when the header is not closed. */
export function splitFrontmatter(text: string): Split | { error: string } {
  const lines = text.split(/\r?\n/);
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === "" && i < lines.length - 1) i++;
  const first = (lines[i] ?? "").replace(/[ \t]+$/, "");
  const fence = first === "---" ? "---" : first === "+++" ? "+++" : null;
  if (fence === null) return { kind: "none", header: "", body: text, bodyStartLine: 1 };
  let end = -1;
  for (let j = i + 1; j < lines.length; j++) {
    if (lines[j]!.replace(/[ \t]+$/, "") === fence) {
      end = j;
      break;
    }
  }
  if (end < 0) return { error: MSG.notClosed };
  const header = lines.slice(i + 1, end).join("\n");
  // Body keeps the original line endings after the closing line.
  let offset = 0;
  for (let j = 0; j <= end; j++) {
    const nl = text.indexOf("\n", offset);
    offset = nl < 0 ? text.length : nl + 1;
  }
  return { kind: fence === "---" ? "yaml" : "toml", header, body: text.slice(offset), bodyStartLine: end + 2 };
}

/** A fresh plain object tree: prototype keys become ordinary data, nothing is shared. */
function plainCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainCopy);
  if (value instanceof Date) return value;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: plainCopy(v), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

async function parseYaml(header: string): Promise<Record<string, unknown> | string> {
  const fast = parsePlainYaml(header);
  if (fast !== null && typeof fast === "object" && !Array.isArray(fast))
    return plainCopy(fast) as Record<string, unknown>;
  return parseYamlReference(header);
}

/**
 * The `yaml` package: YAML 1.2 core schema, duplicate keys rejected, at most 100 aliases. Keys are
 * strings: a scalar key is its source text (`1:`, `null:` and `'1':` are the keys "1", "null" and
 * "1", so the last two collide as duplicates instead of one silently replacing the other), and a
 * collection, alias or tagged key is a parse error where the package would stringify it and warn.
 * `logLevel: "error"` keeps the package from ever printing: stderr is the CLI's.
 */
export async function parseYamlReference(header: string): Promise<Record<string, unknown> | string> {
  const { parseDocument } = await import("yaml");
  const doc = parseDocument(header, {
    schema: "core",
    uniqueKeys: true,
    stringKeys: true,
    prettyErrors: false,
    strict: true,
    logLevel: "error",
  });
  if (doc.errors.some((e) => e.code === "NON_STRING_KEY")) return MSG.yamlKeyNotString;
  const dupe = doc.errors.find((e) => e.code === "DUPLICATE_KEY");
  if (dupe) {
    const at = header
      .slice(dupe.pos[0])
      .split(/[:\n]/)[0]!
      .trim()
      .replace(/^["']|["']$/g, "");
    return MSG.duplicateKeyYaml(at.slice(0, 64) || "?");
  }
  const err = doc.errors[0];
  if (err) return MSG.yamlError(firstLine(err.message));
  let value: unknown;
  try {
    // yaml counts the anchored node's own resolution as the first pass (and multiplies nested
    // ones), so 100 aliases of one value are 101 passes: the limit is the contract's plus one.
    value = doc.toJS({ maxAliasCount: MAX_ALIASES + 1 });
  } catch (e) {
    const msg = (e as Error).message;
    if (/alias/i.test(msg)) return MSG.yamlAliases;
    return MSG.yamlError(firstLine(msg));
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) return MSG.notMapping;
  return plainCopy(value) as Record<string, unknown>;
}

async function parseTomlHeader(header: string): Promise<Record<string, unknown> | string> {
  const r = await parseTomlDetailed(header);
  if (r.ok) return plainCopy(r.value) as Record<string, unknown>;
  // The parser's own text quotes the header; the key or the line is enough to find the fault.
  if (r.problem === "duplicate_key") return MSG.tomlError(r.reason);
  return MSG.tomlError(r.line !== null ? `syntax error at line ${r.line}` : "syntax error");
}

function firstLine(s: string): string {
  return (s.split("\n")[0] ?? "").trim().replace(/\s+/g, " ").slice(0, 200);
}

/** Splits decoded SKILL.md text at its fences and parses the header (size checked first). */
export async function parseSkillText(text: string): Promise<ParsedSkillFile> {
  const split = splitFrontmatter(text);
  if ("error" in split) return { ok: false, code: "parse_error", message: split.error };
  if (split.kind === "none") return { ...split, ok: true, data: {} };
  if (Buffer.byteLength(split.header, "utf8") > MAX_HEADER_BYTES)
    return { ok: false, code: "parse_error", message: MSG.headerTooLarge };
  if (split.header.trim() === "") return { ...split, ok: true, data: {} };
  const parsed = split.kind === "yaml" ? await parseYaml(split.header) : await parseTomlHeader(split.header);
  if (typeof parsed === "string") return { ok: false, code: "parse_error", message: parsed };
  return { ...split, ok: true, data: parsed };
}
