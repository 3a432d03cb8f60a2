/**
 * @module cli/output
 * Results on stdout (aligned columns or one JSON document), messages on stderr (cli.md §1.2).
 */
import {
  cell,
  charCount,
  clampChars,
  sanitizeMessage,
  stripAnsi,
  type Diagnostic,
  type LemonError,
} from "../core/index.ts";
import type { CliIo } from "./io.ts";

export function printJson(io: CliIo, doc: Record<string, unknown>): void {
  io.out(JSON.stringify(doc) + "\n");
}

/** Plain aligned columns, two spaces apart; the last column is not padded. */
export function formatTable(headers: string[], rows: string[][]): string {
  return formatRows([headers, ...rows]);
}

/** Aligned rows without a header line (help text, key/value blocks). */
export function formatRows(rows: string[][], indent = ""): string {
  const all = rows.map((r) => r.map((c) => cell(c)));
  const widths = (all[0] ?? []).map((_, i) => Math.max(...all.map((r) => charCount(r[i] ?? ""))));
  return all
    .map((r) =>
      (
        indent + r.map((c, i) => (i === r.length - 1 ? c : c + " ".repeat((widths[i] ?? 0) - charCount(c)))).join("  ")
      ).trimEnd(),
    )
    .map((line) => line + "\n")
    .join("");
}

export function truncate(s: string, width: number): string {
  return clampChars(cell(s), width);
}

export function info(io: CliIo, quiet: boolean, message: string): void {
  if (!quiet) io.err(sanitizeMessage(message, 4096) + "\n");
}

/** `hint: <text>` on stderr; `--quiet` silences hints like any informational line. */
export function hint(io: CliIo, quiet: boolean, text: string): void {
  info(io, quiet, `hint: ${text}`);
}

/** Most diagnostics printed on stderr before pointing at `--json` (cli.md §1.2). */
const MAX_PRINTED_DIAGNOSTICS = 20;

/**
 * `warn: <path>: <message>` (or `error: …`) on stderr for warn/error diagnostics, unless quiet
 * (cli.md §1.2); `info` ones too when `withInfo` (a check-style report).
 */
export function printDiagnostics(
  io: CliIo,
  quiet: boolean,
  diagnostics: readonly Diagnostic[],
  withInfo = false,
): void {
  if (quiet) return;
  const shown = withInfo ? diagnostics : diagnostics.filter((d) => d.level !== "info");
  for (const d of shown.slice(0, MAX_PRINTED_DIAGNOSTICS)) {
    const where = d.path ?? d.source;
    io.err(`${d.level}: ${where !== undefined ? `${cell(where)}: ` : ""}${sanitizeMessage(d.message)}\n`);
  }
  if (shown.length > MAX_PRINTED_DIAGNOSTICS)
    io.err(`… and ${shown.length - MAX_PRINTED_DIAGNOSTICS} more; see --json\n`);
}

/**
 * The empty-listing line: `No skills found.` only when every root was read completely; a root cut
 * at its scan bound may hold skills past it (cli.md §1.2). True when it was the plain "none".
 */
export function printNoSkills(io: CliIo, diagnostics: readonly Diagnostic[]): boolean {
  if (diagnostics.some((d) => d.code === "scan_limit")) {
    io.out("No skills listed: a skill root was not scanned completely.\n");
    return false;
  }
  io.out("No skills found.\n");
  return true;
}

export function renderError(err: LemonError, io: CliIo, json: boolean, usage?: string): void {
  const message = sanitizeMessage(err.message);
  const hint = err.hint !== undefined ? sanitizeMessage(err.hint) : undefined;
  if (json) {
    const error: Record<string, unknown> = { code: err.code, message };
    if (hint !== undefined) error.hint = hint;
    if (err.details !== undefined) error.details = err.details;
    io.err(JSON.stringify({ ok: false, error }) + "\n");
    return;
  }
  io.err(`error [${err.code}]: ${message}\n`);
  if (hint !== undefined) io.err(`hint: ${hint}\n`);
  if (usage !== undefined) io.err(stripAnsi(usage).trimEnd() + "\n");
}
