/**
 * @module mcp/importers/common
 * What every importer shares (mcp.md §4.1–§4.2): reading a provider file with a diagnostic that
 * names the file (never its content), the common field mapping, and the acceptance rules — an
 * invalid name, a command-plus-URL entry, a VS Code `${input:…}` or a failed validation skips the
 * entry without claiming its name.
 */
import { isAbsolute } from "node:path";
import { envValue, type LemonContext } from "../../context.ts";
import { diagnostic, type Diagnostic } from "../../diagnostics.ts";
import { isValidServerName, MAX_TIMEOUT_MS, NAME_MESSAGE } from "../names.ts";
import { MAX_IMPORT_BYTES, parseText, readCapped, type Format } from "../read.ts";
import type { McpSettings } from "../settings.ts";
import type { McpServerConfig, ProviderId, SourceLevel, SourcedServer, VariableSyntax } from "../types.ts";
import { isObject, validateEntry } from "../validate.ts";

export type Obj = Record<string, unknown>;
export { isObject };

export interface ImportEnv {
  ctx: LemonContext;
  settings: McpSettings;
  /** Project directory `C`. */
  cwd: string;
}

export interface ServerLists {
  file: string;
  enabled: string[];
  disabled: string[];
}

export interface ImportResult {
  servers: SourcedServer[];
  diagnostics: Diagnostic[];
  /** omp `enabledServers` / `disabledServers`, applied to every imported source. */
  serverLists?: ServerLists[];
}

export interface FileSet {
  project: string[];
  user: string[];
}

export interface Importer {
  id: ProviderId;
  /** Candidate project files in reading order. */
  projectFiles(cwd: string): string[];
  /** Candidate user files under `home` in reading order (env overrides such as CODEX_HOME honoured). */
  userFiles(home: string, env: LemonContext["env"]): string[];
  /** omp reads its user files without external user discovery. */
  userByDefault?: boolean;
  load(ie: ImportEnv, files: FileSet): Promise<ImportResult>;
}

/** The variables that move some tool's user files (mcp.md §4.1). */
export const LOCATION_VARS = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME", "COPILOT_HOME"] as const;

/**
 * A location variable's value when it is an absolute path. A relative one would resolve inside
 * the project, whose files would then pass as the user's own and run untrusted; the XDG Base
 * Directory spec ignores such values too. `sources.ts` warns about them.
 */
export function locationValue(env: LemonContext["env"], name: (typeof LOCATION_VARS)[number]): string | undefined {
  const v = envValue(env, name);
  return v !== undefined && isAbsolute(v) ? v : undefined;
}

export const emptyResult = (): ImportResult => ({ servers: [], diagnostics: [] });

export type FileRead = { state: "missing" } | { state: "bad" } | { state: "ok"; root: unknown };

/** Reads and parses one provider file; a bad file adds a diagnostic naming it (never its content). */
export async function readProviderFile(
  file: string,
  format: Format,
  source: string,
  diagnostics: Diagnostic[],
  transform?: (text: string) => Promise<string>,
): Promise<FileRead> {
  const r = await readCapped(file, MAX_IMPORT_BYTES);
  if (r.kind === "missing") return { state: "missing" };
  if (r.kind === "error") {
    diagnostics.push(diagnostic("warn", "read_error", r.reason, { path: file, source }));
    return { state: "bad" };
  }
  const text = transform ? await transform(r.text) : r.text;
  const parsed = await parseText(text, format);
  if (!parsed.ok) {
    const code = parsed.problem === "duplicate_key" ? "duplicate_key" : "parse_error";
    diagnostics.push(diagnostic("warn", code, parsed.reason, { path: file, source }));
    return { state: "bad" };
  }
  return { state: "ok", root: parsed.value };
}

/** The name → entry map under `key`, or null with a diagnostic when it has the wrong type. */
export function serverMap(
  root: unknown,
  key: string,
  file: string,
  source: string,
  diagnostics: Diagnostic[],
): Obj | null {
  if (!isObject(root)) {
    diagnostics.push(diagnostic("warn", "invalid_file", "top level must be an object", { path: file, source }));
    return null;
  }
  const m = root[key];
  if (m === undefined) return null;
  if (!isObject(m)) {
    diagnostics.push(diagnostic("warn", "invalid_file", `${key} must be an object`, { path: file, source }));
    return null;
  }
  return m;
}

const TYPES: Readonly<Record<string, string>> = { stdio: "stdio", http: "http", streamablehttp: "http", sse: "sse" };

/**
 * A foreign `type` compared case-insensitively with `-` and `_` removed (mcp.md §4.2: Cursor
 * writes `streamablehttp`); anything else is returned as written for the caller or validation.
 */
export function mapType(t: unknown): unknown {
  if (typeof t !== "string") return t;
  return TYPES[t.toLowerCase().replace(/[-_]/g, "")] ?? t;
}

/** Foreign tools accept longer timeouts than §3.1's cap, so imports clamp them (§4.2). */
const TIMEOUT_CAP = MAX_TIMEOUT_MS;
const TIMEOUT_KEYS = ["timeout_ms", "tool_timeout_ms", "ready_timeout_ms"] as const;

/** Clamps over-cap integer timeouts in place; returns the `<field> clamped to <cap> ms` warnings. */
function clampTimeouts(entry: McpServerConfig): string[] {
  const warnings: string[] = [];
  for (const k of TIMEOUT_KEYS) {
    const v = entry[k];
    if (typeof v === "number" && Number.isInteger(v) && v > TIMEOUT_CAP) {
      entry[k] = TIMEOUT_CAP;
      warnings.push(`${k} clamped to ${TIMEOUT_CAP} ms`);
    }
  }
  return warnings;
}

/** Booleans and the strings true/false/1/0; anything else leaves the default. */
export function mapEnabled(raw: Obj): boolean | undefined {
  if (raw.disabled === true || raw.disabled === "true" || raw.disabled === "1") return false;
  const v = raw.enabled;
  if (v === true || v === "true" || v === "1" || v === 1) return true;
  if (v === false || v === "false" || v === "0" || v === 0) return false;
  return undefined;
}

/** A millisecond count given as a number or numeric string. */
export function msValue(v: unknown): unknown {
  if (typeof v === "string" && /^\d+$/.test(v.trim())) return Number(v.trim());
  return v;
}

/** Copies the keys that are defined (so validation sees only what the file said). */
export function defined(o: Obj): McpServerConfig {
  const out: McpServerConfig = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * The tools a foreign tool calls without asking (mcp.md §4.2), from lists such as Cline's
 * `autoApprove` and Roo's `alwaysAllow`: exactly those become `tool_approvals: never`.
 */
export function autoApprovals(...lists: unknown[]): Record<string, "never"> | undefined {
  const tools = lists.flatMap(strList);
  // fromEntries defines own keys, so a tool named `__proto__` is a plain entry like any other.
  return tools.length > 0 ? Object.fromEntries(tools.map((t) => [t, "never" as const])) : undefined;
}

/** The fields most JSON providers share (command, args, env, cwd, url, headers, type, enabled). */
export function commonFields(raw: Obj): Obj {
  return {
    type: mapType(raw.type),
    command: raw.command,
    args: raw.args,
    env: raw.env,
    cwd: raw.cwd,
    url: raw.url,
    headers: raw.headers,
    enabled: mapEnabled(raw),
    // lemon's own approval field is honoured when an imported entry carries it (§4.2).
    approval: raw.approval,
    tool_approvals: autoApprovals(raw.alwaysAllow, raw.autoApprove),
  };
}

function mentionsInput(v: unknown): boolean {
  if (typeof v === "string") return v.includes("${input:");
  if (Array.isArray(v)) return v.some(mentionsInput);
  if (isObject(v)) return Object.values(v).some(mentionsInput);
  return false;
}

export interface Candidate {
  name: string;
  /** Position in the file (document order). */
  index: number;
  mapped: Obj;
  file: string;
  level: SourceLevel;
  vars: VariableSyntax;
  toolGlobs?: { enabled: string[]; disabled: string[] };
}

/** Applies the acceptance rules; accepted entries go to `out.servers`, the rest to diagnostics. */
export function accept(id: ProviderId, c: Candidate, out: ImportResult): void {
  const source = `${id}:${c.level}`;
  const where = `servers[${c.index}]`;
  const at = { path: c.file, source };
  if (!isValidServerName(c.name)) {
    out.diagnostics.push(diagnostic("warn", "invalid_name", `${where}: ${NAME_MESSAGE}`, at));
    return;
  }
  const loc = `${where} '${c.name}'`;
  const entry = defined(c.mapped);
  if (entry.command !== undefined && entry.url !== undefined) {
    out.diagnostics.push(
      diagnostic("warn", "invalid_entry", `${loc}: command and url are mutually exclusive`, { ...at, key: c.name }),
    );
    return;
  }
  if (mentionsInput(entry)) {
    out.diagnostics.push(
      diagnostic("warn", "unresolved_input", `${loc}: uses an \${input:…} variable, which lemon does not prompt for`, {
        ...at,
        key: c.name,
      }),
    );
    return;
  }
  const clamped = clampTimeouts(entry);
  const v = validateEntry({ ...entry, name: c.name });
  if (!v.ok) {
    out.diagnostics.push(diagnostic("warn", "invalid_entry", `${loc}: ${v.message}`, { ...at, key: c.name }));
    return;
  }
  for (const w of clamped) out.diagnostics.push(diagnostic("warn", "clamped", `${loc}: ${w}`, { ...at, key: c.name }));
  const s: SourcedServer = {
    name: c.name,
    source,
    file: c.file,
    index: c.index,
    // The foreign tools ask before a tool call unless told otherwise, so imports do too (§4.2);
    // lemon's own sources keep §3.1's default.
    entry: { ...v.entry, type: v.transport, approval: v.entry.approval ?? "always" },
    transport: v.transport,
    vars: c.vars,
    imported: true,
  };
  if (clamped.length > 0) s.warnings = clamped;
  if (c.toolGlobs && (c.toolGlobs.enabled.length > 0 || c.toolGlobs.disabled.length > 0)) s.toolGlobs = c.toolGlobs;
  out.servers.push(s);
}

/** Runs `each` over the entries of a name → entry map in document order. */
export function eachServer(
  map: Obj,
  fn: (name: string, raw: Obj, index: number) => void,
  onBad: (name: string, index: number) => void,
): void {
  let i = 0;
  for (const [name, raw] of Object.entries(map)) {
    if (isObject(raw)) fn(name, raw, i);
    else onBad(name, i);
    i++;
  }
}

export function badEntry(
  id: ProviderId,
  level: SourceLevel,
  file: string,
  name: string,
  index: number,
  out: ImportResult,
): void {
  const loc = isValidServerName(name) ? `servers[${index}] '${name}'` : `servers[${index}]`;
  out.diagnostics.push(
    diagnostic("warn", "invalid_entry", `${loc}: invalid MCP server config`, {
      path: file,
      source: `${id}:${level}`,
    }),
  );
}

export function strList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

export function merge(into: ImportResult, from: ImportResult): void {
  into.servers.push(...from.servers);
  into.diagnostics.push(...from.diagnostics);
  if (from.serverLists) (into.serverLists ??= []).push(...from.serverLists);
}

/** A simple per-file loader for providers whose files are independent. */
export async function loadEach(
  id: ProviderId,
  files: FileSet,
  format: Format,
  perFile: (root: unknown, file: string, level: SourceLevel, out: ImportResult) => void | Promise<void>,
): Promise<ImportResult> {
  const out = emptyResult();
  const jobs: { file: string; level: SourceLevel }[] = [
    ...files.project.map((file) => ({ file, level: "project" as const })),
    ...files.user.map((file) => ({ file, level: "user" as const })),
  ];
  // Read in parallel, apply in order: order decides which entry claims a name first.
  const roots = await Promise.all(
    jobs.map(async (j) => {
      const diags: Diagnostic[] = [];
      const read = await readProviderFile(j.file, format, `${id}:${j.level}`, diags);
      return { ...j, read, diags };
    }),
  );
  for (const r of roots) {
    out.diagnostics.push(...r.diags);
    if (r.read.state === "ok") await perFile(r.read.root, r.file, r.level, out);
  }
  return out;
}

/**
 * The Claude Desktop `mcpServers` map that omp and bare `mcp.json` files share: common fields,
 * `timeout` in ms and `enabledTools` / `disabledTools` globs.
 */
export function acceptDesktopMap(
  id: ProviderId,
  root: unknown,
  file: string,
  level: SourceLevel,
  out: ImportResult,
): void {
  const map = serverMap(root, "mcpServers", file, `${id}:${level}`, out.diagnostics);
  if (!map) return;
  eachServer(
    map,
    (name, raw, index) =>
      accept(
        id,
        {
          name,
          index,
          file,
          level,
          vars: "editor",
          mapped: { ...commonFields(raw), timeout_ms: msValue(raw.timeout) },
          toolGlobs: { enabled: strList(raw.enabledTools), disabled: strList(raw.disabledTools) },
        },
        out,
      ),
    (name, index) => badEntry(id, level, file, name, index, out),
  );
}
