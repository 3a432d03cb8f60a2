/**
 * @module cli/commands/mcp/review
 * The review of a project MCP server before it is trusted (mcp.md §4.4), one renderer for
 * `lemon mcp trust` and the terminal question of `lemon mcp test NAME`: source file, exactly
 * what would run, where env and header values and the URL would send the user's variables, and
 * approval. Every shown value is escaped, so a hostile name, argument or path cannot move the
 * cursor, recolour or hide text; arguments are quoted so `"--safe --evil"` reads as one.
 */
import type { McpTrustRequest } from "../../../core/mcp/index.ts";

/** Control, format (bidi, zero-width), separator, private-use and unassigned characters, and odd spaces. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/gu;

const hex = (c: string) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`;

/** A value with every unsafe character written as `\u{…}`; lone surrogates too. */
export function escapeShown(s: string): string {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    out += cp >= 0xd800 && cp <= 0xdfff ? hex(ch) : ch.replace(UNSAFE, hex);
  }
  return out;
}

/** One argument as a shell user would read it: bare when plain, else double-quoted with escapes. */
export function shownArg(a: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(a)) return a;
  return `"${escapeShown(a.replace(/\\/g, "\\\\").replace(/"/g, '\\"'))}"`;
}

/** The review of one server (stderr). */
export function describeServer(r: McpTrustRequest): string {
  const rows: [string, string][] = [
    ["source", `${escapeShown(r.source)}, ${r.file ? escapeShown(r.file) : "(no file)"}`],
  ];
  rows.push(["transport", r.transport]);
  if (r.command !== null) rows.push(["command", shownArg(r.command)]);
  if (r.args !== null) rows.push(["args", r.args.length > 0 ? r.args.map(shownArg).join(" ") : "(none)"]);
  if (r.transport === "stdio") rows.push(["cwd", r.cwd !== null ? shownArg(r.cwd) : "(the project directory)"]);
  if (r.url !== null) rows.push(["url", escapeShown(r.url)]);
  // Values only as their placeholders (literal text is `****`): where a secret would go, not what it is.
  const values = (names: string[], shown: Record<string, string>, sep: string) =>
    names.length > 0
      ? names
          .map((n) => `${escapeShown(n)}${sep}${escapeShown(Object.hasOwn(shown, n) ? shown[n]! : "****")}`)
          .join(", ")
      : "none";
  rows.push(["env", values(r.envNames, r.envValues, "=")]);
  if (r.transport !== "stdio") rows.push(["headers", values(r.headerNames, r.headerValues, ": ")]);
  if (r.sentVariables.length > 0)
    rows.push([
      "sends",
      `${r.sentVariables.map((n) => `$${escapeShown(n)}`).join(", ")} (values from your environment)`,
    ]);
  rows.push(["approval", r.approval]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return (
    `Project MCP server '${escapeShown(r.server)}' would run:\n` +
    rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}\n`).join("")
  );
}
