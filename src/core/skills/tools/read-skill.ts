/**
 * @module skills/tools/read-skill
 * The `read_skill` agent tool (skills.md §8): one effective skill in the view an agent asks for.
 * Hidden, disabled, not-ready and platform-incompatible skills load (the agent asked for that key);
 * blocked ones never do, and an overridden block is re-proved against the files before each load
 * (install.md §8 item 4). Every failure is a result with `isError: true`, never a throw, and every
 * call reports one `skill.load` event that carries no skill text.
 */
import { clampChars, sanitizeMessage } from "../../text.ts";
import { isDisplayable, type SkillEntry } from "../entry.ts";
import type { ValidRecord } from "../load.ts";
import type { SkillRegistry } from "../registry.ts";
import { withCwd, type LemonContext } from "../../context.ts";
import type { RecordCache } from "../catalog.ts";
import { lookupKey } from "./lookup.ts";
import { parseSkillBytes } from "../skill-file.ts";
import { escapeKey } from "../skill-key.ts";
import { readContained, readContainedBytes, type ReadProblem } from "./contained-read.ts";
import {
  bodyLimit,
  cutBody,
  findSection,
  headerText,
  headingList,
  manifestText,
  statusText,
} from "./read-skill-text.ts";
import { errorResult, plainParams, textResult, type ToolCallContext, type ToolResult } from "./result.ts";
import { blockedMessage } from "./blocked.ts";
import { eventTs } from "../usage/events.ts";
import { shownProvenance } from "./shown-provenance.ts";

/** The views of skills.md §8; any other value reads as `full`. */
export type ReadSkillView = "full" | "summary" | "section" | "file";

/** The JSON parameters of `read_skill` (skills.md §8); unchecked here, the tool validates them. */
export interface ReadSkillParams {
  key: string;
  view?: ReadSkillView;
  section?: string;
  path?: string;
  include_status?: boolean;
  include_manifest?: boolean;
  max_chars?: number;
}

/** Why a call failed (skills.md §8 `details.error`). */
export type ReadSkillError = "not_found" | "invalid_params" | "outside_skill" | "read_failed" | "blocked";

/** `details` of a `read_skill` result: the success fields, or `error` with what failed. */
export interface ReadSkillDetails {
  key: string;
  view?: ReadSkillView;
  /** The skill directory (absolute, as found). */
  path?: string;
  scope?: "project" | "global";
  source_kind?: string | null;
  trust_level?: string | null;
  activation_state?: string;
  truncated?: boolean;
  /** Characters of the returned text. */
  chars?: number;
  /** The heading matched (`section` view). */
  section?: string;
  /** True when the files are no longer the bundle the lock record vouches for (trust then shown as null). */
  locally_modified?: boolean;
  /** The file shown (`file` view), relative to the skill directory as given. */
  file?: string;
  error?: ReadSkillError;
  /** Keys listed after `Skill not found` (displayable skills, sorted, at most 50). */
  suggestions?: string[];
}

/** The `skill.load` event fields of skills.md §11 (snake_case; never body text). */
export interface SkillLoadEvent {
  ts: string;
  key: string;
  scope: "project" | "global" | null;
  view: ReadSkillView | "uri";
  section?: string;
  path?: string;
  result: "ok" | "not_found" | "error";
  error_code?: string;
  chars: number;
  duration_ms: number;
  tool_call_id?: string;
  session_key?: string;
  run_id?: string;
  agent_id?: string;
}

/** What a tool call runs against: the instance's registry, a cwd, the clock and the event sink. */
export interface ToolHost {
  registry: SkillRegistry;
  /**
   * The instance's context and a record cache of its own: with both, one key is resolved from
   * current search snapshots without building a whole listing (lookup.ts).
   */
  fast?: { context: LemonContext; cache: RecordCache };
  /** Project directory (default: the instance's). */
  cwd?: string;
  now: () => Date;
  /**
   * Receives every `skill.load`, awaited before the result is returned (the usage sidecar records
   * it first); a sink that throws or rejects never fails the call.
   */
  emit?: (e: SkillLoadEvent) => void | Promise<void>;
}

const VIEWS: readonly ReadSkillView[] = ["full", "summary", "section", "file"];
const MAX_SUGGESTIONS = 50;
const SUGGESTION_DESCRIPTION_CHARS = 200;

export const KEY_MESSAGE = "Parameter 'key' must be a non-empty string.";
const PARAMS_MESSAGE = "Parameters must be a JSON object.";

/** An agent's key or path echoed in a message: escaped and clamped (cli.md §1.2), never 3 MB of it. */
export const echoed = (s: string) => clampChars(escapeKey(s), 200);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The run-context fields of an event, from the embedder's tool-call context. */
export function runContext(ctx: ToolCallContext | undefined): Partial<SkillLoadEvent> {
  const out: Partial<SkillLoadEvent> = {};
  if (typeof ctx?.toolCallId === "string") out.tool_call_id = ctx.toolCallId;
  if (typeof ctx?.sessionKey === "string") out.session_key = ctx.sessionKey;
  if (typeof ctx?.runId === "string") out.run_id = ctx.runId;
  if (typeof ctx?.agentId === "string") out.agent_id = ctx.agentId;
  return out;
}

/** Hands an event to the sink; a sink that throws is the host's problem, never the agent's. */
export async function emitSafely(host: ToolHost, e: SkillLoadEvent): Promise<void> {
  try {
    await host.emit?.(e);
  } catch {
    // isolated: the event hub logs its own listeners' failures
  }
}

/** `Skill not found: <key>` and what the agent could have asked for instead. */
function notFoundText(key: string, entries: readonly SkillEntry[]): { text: string; keys: string[] } {
  const shown = entries.filter(isDisplayable).slice(0, MAX_SUGGESTIONS);
  const head = `Skill not found: ${echoed(key)}`;
  if (shown.length === 0) return { text: `${head}\n\nNo skills are currently available.`, keys: [] };
  const lines = shown.map((e) => {
    const d = sanitizeMessage(e.description, 4096);
    return `- ${e.key}: ${d === "" ? "(none)" : [...d].length > SUGGESTION_DESCRIPTION_CHARS ? `${[...d].slice(0, SUGGESTION_DESCRIPTION_CHARS - 1).join("")}…` : d}`;
  });
  return { text: `${head}\n\nAvailable skills:\n${lines.join("\n")}`, keys: shown.map((e) => e.key) };
}

/** A path echoed in a message: control and invisible characters written as `\uXXXX`. */
const shownPath = (p: string) => echoed(p);

interface Outcome {
  result: ToolResult<ReadSkillDetails>;
  scope: "project" | "global" | null;
}

const fail = (
  text: string,
  details: ReadSkillDetails & { error: ReadSkillError },
  scope: "project" | "global" | null = null,
): Outcome => ({ result: errorResult(text, details), scope });

const readFailure = (key: string, path: string, problem: Exclude<ReadProblem, "outside">, scope: Outcome["scope"]) =>
  fail(`Could not read '${shownPath(path)}': ${problem}`, { error: "read_failed", key, file: path }, scope);

/**
 * SKILL.md's text and body, read again now (the listing may be up to one check interval old),
 * with the containment of view=file: a skill directory swapped for a link since the scan is refused.
 */
async function skillText(
  rec: ValidRecord,
): Promise<{ text: string; body: string } | Exclude<ReadProblem, "outside"> | "invalid"> {
  const read = readContainedBytes(rec.candidate.realPath, "SKILL.md");
  if (!read.ok) return read.problem === "outside" ? "invalid" : read.problem;
  const parsed = await parseSkillBytes(read.bytes);
  // It no longer parses or validates: an invalid skill is an unknown key (skills.md §2.2).
  return parsed.ok ? { text: parsed.text, body: parsed.body } : "invalid";
}

/** The effective skill of `key`, or null: one key's lookup with a `fast` host, else a listing. */
export async function findSkill(
  host: ToolHost,
  key: string,
): Promise<{ entry: SkillEntry; rec: ValidRecord; ctx: LemonContext } | null> {
  if (host.fast !== undefined) {
    const ctx = withCwd(host.fast.context, host.cwd);
    const found = await lookupKey(host.registry, ctx, key, host.fast.cache);
    return found === undefined ? null : { entry: found.entry, rec: found.record, ctx };
  }
  const v = await host.registry.view(host.cwd !== undefined ? { cwd: host.cwd } : {});
  const entry = v.entries.find((e) => e.key === key);
  const rec = v.discovery.effective.get(key);
  return entry === undefined || rec === undefined ? null : { entry, rec, ctx: v.ctx };
}

/** `not_found` with the suggestions of the current listing (without `except`). */
async function notFoundOutcome(host: ToolHost, key: string, except?: string): Promise<Outcome> {
  const v = await host.registry.view(host.cwd !== undefined ? { cwd: host.cwd } : {});
  const nf = notFoundText(
    key,
    v.entries.filter((e) => e.key !== except),
  );
  return fail(nf.text, { error: "not_found", key, suggestions: nf.keys });
}

async function run(host: ToolHost, p: Record<string, unknown>, view: ReadSkillView, key: string): Promise<Outcome> {
  const found = await findSkill(host, key);
  if (found === null) return notFoundOutcome(host, key);
  const { entry, rec } = found;
  const scope = entry.scope;
  const blocked = await blockedMessage(found.ctx, entry, rec.candidate);
  if (blocked !== null) return fail(blocked, { error: "blocked", key, path: entry.path }, scope);

  const prov = await shownProvenance(entry);
  const parts = [headerText(entry, prov)];
  if (p.include_status === true) parts.push(statusText(entry));
  if (p.include_manifest === true) {
    const m = manifestText(rec.manifest);
    if (m !== null) parts.push(m);
  }
  const limit = bodyLimit(p.max_chars);
  const base: ReadSkillDetails = {
    key,
    view,
    path: entry.path,
    scope,
    source_kind: entry.source_kind,
    trust_level: prov.trust_level,
    activation_state: entry.activation_state,
    ...(prov.modified ? { locally_modified: true } : {}),
  };
  let truncated = false;
  const body = (heading: string, text: string) => {
    const cut = cutBody(text, limit);
    truncated = cut.truncated;
    parts.push(`${heading}\n${cut.text}`);
  };
  if (view === "file") {
    const rel = typeof p.path === "string" ? p.path : "";
    if (rel === "")
      return fail(
        'No path given. Pass "path" relative to the skill directory.',
        { error: "invalid_params", key },
        scope,
      );
    const read = readContained(entry.real_path, rel);
    if (!read.ok) {
      if (read.problem === "outside")
        return fail(
          `Path '${shownPath(rel)}' is outside the skill directory.`,
          { error: "outside_skill", key, file: rel },
          scope,
        );
      return readFailure(key, rel, read.problem, scope);
    }
    base.file = rel;
    if (read.text === null)
      parts.push(`## File: ${shownPath(rel)}\nFile '${shownPath(rel)}' is binary (${read.bytes} bytes); not shown.`);
    else body(`## File: ${shownPath(rel)}`, read.text);
  } else if (view === "full" || view === "section") {
    const skill = await skillText(rec);
    if (skill === "invalid") return notFoundOutcome(host, key, key);
    if (typeof skill === "string") return readFailure(key, "SKILL.md", skill, scope);
    if (view === "full") body("## Content", skill.text);
    else {
      const want = typeof p.section === "string" ? p.section : "";
      if (want.trim() === "")
        return fail(
          `No section given. Pass "section" with one of this skill's headings: ${headingList(skill.body)}.`,
          { error: "invalid_params", key },
          scope,
        );
      const found = findSection(skill.body, want);
      if (found === null)
        return fail(
          `Section '${sanitizeMessage(want, 512)}' not found in skill content.`,
          { error: "invalid_params", key, section: want },
          scope,
        );
      base.section = found.name;
      body(`## Section: ${found.name}`, found.text);
    }
  }
  const text = parts.join("\n\n");
  return { result: textResult(text, { ...base, truncated, chars: [...text].length }), scope };
}

/**
 * Runs `read_skill` with untrusted `params`. Resolves to a result in every case: bad parameters,
 * unknown keys, blocked skills and unreadable files are `isError: true` with the messages of
 * skills.md §8; anything unexpected is a `read_failed` result naming no internals. `refused` is
 * a failure its caller found before the tool could run (a bad call context): reported like any
 * other, event included.
 */
export async function readSkill(
  host: ToolHost,
  params: unknown,
  ctx?: ToolCallContext,
  refused?: string,
): Promise<ToolResult<ReadSkillDetails>> {
  const started = performance.now();
  const plain = plainParams(params);
  if (plain === null) refused ??= PARAMS_MESSAGE;
  const p = plain !== null && isRecord(plain.value) ? plain.value : {};
  const rawKey = p.key;
  const key = typeof rawKey === "string" ? rawKey : "";
  const view: ReadSkillView = VIEWS.includes(p.view as ReadSkillView) ? (p.view as ReadSkillView) : "full";
  let out: Outcome;
  if (refused !== undefined) out = fail(refused, { error: "invalid_params", key });
  else if (key.trim() === "") out = fail(KEY_MESSAGE, { error: "invalid_params", key });
  else {
    try {
      out = await run(host, p, view, key);
    } catch (err) {
      const msg = err instanceof Error ? sanitizeMessage(err.message) : "internal error";
      out = fail(`Could not read skill '${echoed(key)}': ${msg}`, { error: "read_failed", key });
    }
  }
  const d = out.result.details;
  const event: SkillLoadEvent = {
    ts: eventTs(host),
    key,
    scope: out.scope,
    view,
    ...(view === "section" && typeof p.section === "string" ? { section: p.section } : {}),
    ...(view === "file" && typeof p.path === "string" ? { path: p.path } : {}),
    result: !out.result.isError ? "ok" : d.error === "not_found" ? "not_found" : "error",
    ...(out.result.isError && d.error !== "not_found" ? { error_code: d.error } : {}),
    chars: out.result.isError ? 0 : (d.chars ?? 0),
    duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    ...runContext(ctx),
  };
  await emitSafely(host, event);
  return out.result;
}
