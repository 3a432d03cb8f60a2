/**
 * @module mcp/lemon-sources
 * lemon's own sources (mcp.md §2.1 rows 1–4): the project and global `mcp.json`, the
 * `LEMON_MCP_SERVERS` env var and `[[mcp.servers]]` / the module's `mcp.servers`. Invalid JSON or
 * a wrong top level skips the whole source with a diagnostic; a bad entry skips only itself.
 */
import type { LemonContext } from "../context.ts";
import { dirname } from "node:path";
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import { stateDirProblem } from "../fsx/state-dir.ts";
import { scopePathsFor, type Scope } from "../paths.ts";
import { firstFailure } from "../schema/first-failure.ts";
import { isMcpEnvServers, isMcpJson, McpEnvServersData, McpJsonData } from "../schema/mcp-json.checks.js";
import type { McpEnvServers, McpJson } from "../schema/mcp-json.ts";
import { isValidServerName } from "./names.ts";
import { parseText, readCapped } from "./read.ts";
import type { LemonSourceLabel, SourcedServer } from "./types.ts";
import { isObject, locator, validateEntry } from "./validate.ts";

const SHAPES = {
  file: { check: isMcpJson, data: McpJsonData },
  env: { check: isMcpEnvServers, data: McpEnvServersData },
};

/** Why a parsed lemon file (or `LEMON_MCP_SERVERS`) has the wrong top-level shape, or null. */
export function shapeProblem(which: "file" | "env", value: unknown): string | null {
  const shape = SHAPES[which];
  return shape.check(value) ? null : firstFailure(shape.data, value, "invalid document");
}

/** The lemon file of a scope (`global`: `A/mcp.json`, else `C/.lemon/mcp.json`). */
export function targetFile(ctx: LemonContext, opts: { global?: boolean }): { scope: Scope; file: string } {
  const scope: Scope = opts.global ? "global" : "project";
  return { scope, file: scopePathsFor(ctx, scope).mcpJson };
}

export interface LemonFile {
  file: string;
  label: LemonSourceLabel;
  exists: boolean;
  /** Why the file is unreadable or invalid (then it contributes nothing and is never rewritten), else null. */
  invalid: string | null;
  /** Present only for a valid file. */
  doc: McpJson | null;
  servers: SourcedServer[];
  diagnostics: Diagnostic[];
}

/** Entries of `servers` then `mcpServers`, with `mcpServers` keys as names. */
export function rawEntries(doc: McpJson): unknown[] {
  const out: unknown[] = [...(doc.servers ?? [])];
  for (const [name, raw] of Object.entries(doc.mcpServers ?? {})) out.push(isObject(raw) ? { ...raw, name } : raw);
  return out;
}

/** Validates entries of one lemon source; bad ones become diagnostics and claim nothing. */
export function sourceEntries(
  label: string,
  entries: unknown[],
  file: string | undefined,
  diagnostics: Diagnostic[],
): SourcedServer[] {
  const out: SourcedServer[] = [];
  entries.forEach((raw, index) => {
    const v = validateEntry(raw);
    const where = locator(index, raw);
    if (!v.ok) {
      diagnostics.push(
        diagnostic("warn", "invalid_entry", `${where}: ${v.message}`, {
          source: label,
          ...(file !== undefined ? { path: file } : {}),
          ...(isObject(raw) && isValidServerName(raw.name) ? { key: raw.name } : {}),
        }),
      );
      return;
    }
    const s: SourcedServer = {
      name: v.entry.name,
      source: label,
      index,
      entry: v.entry,
      transport: v.transport,
      vars: "lemon",
      imported: false,
    };
    if (file !== undefined) s.file = file;
    out.push(s);
  });
  return out;
}

export async function readLemonFile(file: string, label: LemonSourceLabel): Promise<LemonFile> {
  const diagnostics: Diagnostic[] = [];
  const base = { file, label, diagnostics };
  const r = await readCapped(file);
  if (r.kind === "missing") {
    const dirProblem = stateDirProblem(dirname(file), label);
    if (dirProblem) diagnostics.push(dirProblem);
    return { ...base, exists: false, invalid: null, doc: null, servers: [] };
  }
  if (r.kind === "error") {
    diagnostics.push(diagnostic("error", "read_error", r.reason, { path: file, source: label }));
    return { ...base, exists: true, invalid: r.reason, doc: null, servers: [] };
  }
  const parsed = await parseText(r.text, "json");
  const problem = parsed.ok ? shapeProblem("file", parsed.value) : parsed.reason;
  if (!parsed.ok || problem !== null) {
    const code = !parsed.ok && parsed.problem === "duplicate_key" ? "duplicate_key" : "parse_error";
    const reason = problem ?? "invalid";
    diagnostics.push(diagnostic("error", code, reason, { path: file, source: label }));
    return { ...base, exists: true, invalid: reason, doc: null, servers: [] };
  }
  const doc = parsed.value as McpJson;
  return {
    ...base,
    exists: true,
    invalid: null,
    doc,
    servers: sourceEntries(label, rawEntries(doc), file, diagnostics),
  };
}

export async function readEnvSource(
  value: string | undefined,
): Promise<{ servers: SourcedServer[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  if (value === undefined || value.trim() === "") return { servers: [], diagnostics };
  const parsed = await parseText(value, "json");
  const problem = parsed.ok ? shapeProblem("env", parsed.value) : parsed.reason;
  if (!parsed.ok || problem !== null) {
    diagnostics.push(
      diagnostic("error", "parse_error", `LEMON_MCP_SERVERS: ${problem ?? "invalid"}`, {
        source: "lemon:env",
        key: "LEMON_MCP_SERVERS",
      }),
    );
    return { servers: [], diagnostics };
  }
  const v = parsed.value as McpEnvServers;
  const entries = Array.isArray(v) ? v : v.servers;
  return { servers: sourceEntries("lemon:env", entries, undefined, diagnostics), diagnostics };
}
