/**
 * @module diagnostics
 * Non-fatal findings returned beside results: a bad file is reported, never thrown.
 */

export type DiagnosticLevel = "error" | "warn" | "info";

/** cli.md §1.4 Diagnostic: `path`, `key` and `source` only when known. */
export interface Diagnostic {
  level: DiagnosticLevel;
  code: string;
  message: string;
  path?: string;
  key?: string;
  /** An MCP source label such as "claude:project". */
  source?: string;
}

/** A diagnostic with only the extra fields that are set. */
export function diagnostic(
  level: DiagnosticLevel,
  code: string,
  message: string,
  extra: { path?: string; key?: string; source?: string } = {},
): Diagnostic {
  const d: Diagnostic = { level, code, message };
  if (extra.path !== undefined) d.path = extra.path;
  if (extra.key !== undefined) d.key = extra.key;
  if (extra.source !== undefined) d.source = extra.source;
  return d;
}
