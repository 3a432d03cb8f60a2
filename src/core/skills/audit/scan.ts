/**
 * @module skills/audit/scan
 * Runs the line rules over one text file: the raw lines, the same lines with disguises removed,
 * and any payload hidden in them as base64, hex or escapes. Each rule reports at most one finding
 * per file and line, the most severe.
 */
import type { Finding } from "../../schema/finding.ts";
import { clampChars, flattenLine } from "../../text.ts";
import {
  classifyLocation,
  lineOfOffset,
  lineStarts,
  logicalLines,
  type Location,
  type LogicalLine,
} from "./context.ts";
import { decodePayloads, normalizeText } from "./normalize.ts";
import { decodeExec, longLinePipes, obfuscation, remoteExec, remoteHit } from "./rules/execution.ts";
import { credentialRead, exfiltration, markdownExfil, sensitivePath } from "./rules/exfiltration.ts";
import {
  frontmatterMarkup,
  hiddenBlocks,
  hiddenUnicode,
  MAY_HIDE,
  promptInjection,
  remoteInstructionsAcrossLines,
} from "./rules/injection.ts";
import { awsSecretsNearKeyIds, hardcodedSecret, maskSecrets, pemKeys } from "./rules/secrets.ts";
import {
  destructive,
  mining,
  pathTraversal,
  persistence,
  privilege,
  reverseShell,
  tunnelOrDropsite,
} from "./rules/system.ts";
import { dataFlow, type Dialect } from "./rules/flow.ts";
import type { Hit, LineContext, LineRule } from "./rules/types.ts";
import { firstCommand, programOf, unwrap } from "./rules/shell.ts";
import { garbagePacer, severityRank } from "./rules/types.ts";

export const LINE_RULES: readonly LineRule[] = [
  remoteExec,
  decodeExec,
  obfuscation,
  exfiltration,
  markdownExfil,
  credentialRead,
  sensitivePath,
  destructive,
  persistence,
  reverseShell,
  tunnelOrDropsite,
  mining,
  privilege,
  promptInjection,
  hardcodedSecret,
  pathTraversal,
];

/** Rules that judge decoded payloads (the structure of a decoded blob says little about prose). */
const DECODED_RULES = LINE_RULES.filter((r) => r !== sensitivePath && r !== obfuscation && r !== markdownExfil);

const REMOTE_INSTRUCTIONS = "tells the agent to fetch remote instructions and follow them";

/** Excerpts are ≤ 120 characters, one line, invisible characters removed, secrets masked. */
export function excerptOf(line: string): string {
  return clampChars(flattenLine(maskSecrets(line)).replace(/\s+/g, " "), 120);
}

/** Findings kept per rule and file: the most severe win; the rest are counted in one line. */
const MAX_PER_RULE = 50;

class Collector {
  private readonly byKey = new Map<string, Finding>();
  /** Per rule: the kept keys, how many were dropped, and the least severe rank kept once full. */
  private readonly perRule = new Map<string, { keys: string[]; dropped: number; floor: number }>();
  constructor(private readonly rel: string) {}

  add(rule: LineRule | { rule: string; category: string }, hit: Hit, line: number, text: string, suffix = ""): void {
    const name = hit.rule ?? rule.rule;
    const rank = severityRank(hit.severity);
    const key = `${name}\u0000${line}`;
    const prev = this.byKey.get(key);
    if (prev && severityRank(prev.severity) <= rank) return;
    if (!prev) {
      let slot = this.perRule.get(name);
      if (slot === undefined) this.perRule.set(name, (slot = { keys: [], dropped: 0, floor: -1 }));
      if (slot.keys.length >= MAX_PER_RULE) {
        // Full: only a hit more severe than the least severe kept gets in, evicting it.
        slot.dropped++;
        if (rank >= slot.floor) return;
        let victim = 0;
        for (let i = 1; i < slot.keys.length; i++)
          if (this.rankOf(slot.keys[i]!) >= this.rankOf(slot.keys[victim]!)) victim = i;
        this.byKey.delete(slot.keys[victim]!);
        slot.keys.splice(victim, 1);
      }
      slot.keys.push(key);
      if (slot.keys.length >= MAX_PER_RULE)
        slot.floor = slot.keys.reduce((m, k) => Math.max(m, k === key ? rank : this.rankOf(k)), -1);
    }
    this.byKey.set(key, {
      rule: name,
      category: hit.category ?? rule.category,
      severity: hit.severity,
      file: this.rel,
      line,
      message: hit.message + suffix,
      excerpt: excerptOf(text),
    });
    // An upgrade in place can lower the floor of a full slot.
    const slot = this.perRule.get(name)!;
    if (prev && slot.keys.length >= MAX_PER_RULE)
      slot.floor = slot.keys.reduce((m, k) => Math.max(m, this.rankOf(k)), -1);
  }

  private rankOf(key: string): number {
    return severityRank(this.byKey.get(key)!.severity);
  }

  findings(): Finding[] {
    const all = [...this.byKey.values()];
    const noisy = new Set(
      all.filter((f) => f.category === "exfiltration" && f.rule !== "sensitive_path").map((f) => f.line),
    );
    const out = all.filter((f) => !(f.rule === "sensitive_path" && noisy.has(f.line)));
    for (const [name, slot] of this.perRule)
      if (slot.dropped > 0)
        out.push({
          rule: "finding_limit",
          category: "structure",
          severity: "low",
          file: this.rel,
          line: 0,
          message: `${slot.dropped} more ${name} finding(s) not listed`,
          excerpt: "",
        });
    return out;
  }
}

/** Rules read a line at most this long at a time: a multi-MiB line would make their regexes quadratic. */
const WINDOW = 4096;
const OVERLAP = 512;

/**
 * A long line as overlapping windows (whitespace runs squeezed first, so padding cannot split a
 * command), made one at a time: a 12 MiB line never exists as 3,000 window copies at once.
 */
function* windows(text: string): Generator<string> {
  if (text.length <= WINDOW) return yield text;
  const t = text.replace(/[ \t]{2,}/g, " ");
  if (t.length <= WINDOW) return yield t;
  const pace = garbagePacer(64);
  for (let i = 0; ; i += WINDOW - OVERLAP) {
    pace();
    yield t.slice(i, i + WINDOW);
    if (i + WINDOW >= t.length) break;
  }
}

let triggerOnce: RegExp | null = null;
const COMMAND_SEP_G = /\|\||&&|;|\|&?|(?<![<>])&(?!>)/g;
/** Stage commands that feed data without a rule keyword of their own (`env |`, `echo <b64> |`). */
const FEEDS = /\b(?:env|printenv|set|export|echo|printf|cat)\s+[^\s|]|\b(?:env|printenv|set|export)\b\s*$/;

/**
 * A line too long for one window, reduced to what the rules judge: whitespace squeezed, words over
 * 160 characters cut to their ends, and commands (between `|`, `;`, `&&`, `||`, `&`) with no rule
 * keyword that neither feed data, nor run a program, nor run their input dropped (`| cat`,
 * `; true`, any number of them). A downloader and its `| sh` then sit together however much lies
 * between them.
 */
function skeleton(text: string): string | null {
  triggerOnce ??= new RegExp(triggerRe().source);
  const t = text.replace(/[ \t]{2,}/g, " ").replace(/[^\s|;&<>()'"`]{160,}/g, (w) => w.slice(0, 96) + w.slice(-32));
  // Worth it only when it halves the line: past that, the windows have seen as much.
  const limit = text.length / 2;
  let out = "";
  const add = (cmd: string, sep: string) => {
    const run = unwrap(firstCommand(cmd));
    const keep =
      triggerOnce!.test(cmd.toLowerCase()) ||
      FEEDS.test(cmd) ||
      programOf(run) !== null ||
      (run.words[0] ?? "").includes("/");
    if (keep) out += (out === "" ? "" : sep) + (cmd.length > 1024 ? cmd.slice(0, 1024) : cmd);
  };
  const pace = garbagePacer(4096);
  let from = 0;
  let sep = "";
  for (const m of t.matchAll(COMMAND_SEP_G)) {
    pace();
    add(t.slice(from, m.index), sep);
    if (out.length > limit) return null;
    sep = m[0];
    from = m.index + m[0].length;
  }
  add(t.slice(from), sep);
  return out.length > limit ? null : out;
}

function runRules(rules: readonly LineRule[], text: string, ctx: LineContext): { rule: LineRule; hit: Hit }[] {
  const out: { rule: LineRule; hit: Hit }[] = [];
  for (const rule of rules) {
    if (!rule.quick.test(text)) continue;
    const hit = rule.check(text, ctx);
    if (hit !== null) out.push({ rule, hit });
  }
  return out;
}

let trigger: RegExp | null = null;
/** The union of every rule's keywords, matched against the lower-cased text (a case-sensitive union is far faster). */
function triggerRe(): RegExp {
  const words = [...new Set(LINE_RULES.flatMap((r) => r.keywords))].sort((a, b) => b.length - a.length);
  trigger ??= new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  return trigger;
}

/**
 * Runs every rule over the logical lines the trigger pass points at (one regex pass over the
 * whole text instead of one test per rule and line). `only` limits the lines considered.
 */
function scanLines(
  c: Collector,
  text: string,
  lines: LogicalLine[],
  location: Location,
  rel: string,
  only?: Set<number>,
): void {
  const starts = lineStarts(text);
  const logicalOf = new Int32Array(starts.length).fill(-1);
  lines.forEach((l, i) => {
    logicalOf[l.line - 1] = i;
  });
  for (let p = 0, cur = -1; p < logicalOf.length; p++) {
    if (logicalOf[p]! >= 0) cur = logicalOf[p]!;
    else logicalOf[p] = cur;
  }
  const candidates = new Set<number>();
  const re = triggerRe();
  // Lower-casing keeps the line structure (offsets may shift, so lines come from its own starts).
  const lower = text.toLowerCase();
  const lowStarts = lower.length === text.length ? starts : lineStarts(lower);
  re.lastIndex = 0;
  for (let m = re.exec(lower); m !== null; m = re.exec(lower)) {
    const phys = lineOfOffset(lowStarts, m.index);
    const idx = logicalOf[phys - 1]!;
    if (idx >= 0 && (!only || only.has(idx))) candidates.add(idx);
    // One hit is enough for a line: continue at the next physical line.
    if (phys >= lowStarts.length) break;
    re.lastIndex = lowStarts[phys]!;
  }
  const pace = garbagePacer();
  for (const idx of candidates) {
    pace();
    const l = lines[idx]!;
    const ctx: LineContext = { location, fenced: l.fenced, rel };
    for (const piece of windows(l.text))
      for (const { rule, hit } of runRules(LINE_RULES, piece, ctx)) c.add(rule, hit, l.line, piece);
    if (l.text.length <= WINDOW) continue;
    const bones = skeleton(l.text);
    if (bones)
      for (const piece of windows(bones))
        for (const { rule, hit } of runRules(LINE_RULES, piece, ctx)) c.add(rule, hit, l.line, piece);
    for (const { rule, hit } of longLinePipes(l.text, ctx)) c.add(rule, hit, l.line, l.text.slice(0, 200));
  }
}

const CODE_EXT = /\.(?:py|js|mjs|cjs|ts|mts|cts|rb|php|pl|lua)$/i;
const MAY_FLOW =
  /curl|wget|\bnc\b|ncat|socat|scp|rsync|requests\.|fetch|httpx|axios|urlopen|urllib|https?\.|\bgot\b|aiohttp|Connection|session\.|client\.|\.send|\.end\(|Invoke-WebRequest|\biwr\b|aria2c|dig\s|nslookup|\bhost\s|ping\s|rc\b|profile|config\.fish/;

/** Variables carried from line to line (rules/flow.ts); Markdown contributes its fenced code only. */
function scanFlow(c: Collector, rel: string, lines: LogicalLine[], location: Location): void {
  const flowLines = location === "markdown" ? lines.filter((l) => l.fenced) : lines;
  // One line flows too when it chains commands (`env > f; curl -F x=@f …`).
  const chained = flowLines.length === 1 && /;|&&|\|\|/.test(flowLines[0]!.text);
  if ((flowLines.length < 2 && !chained) || !flowLines.some((l) => MAY_FLOW.test(l.text))) return;
  const dialects: Dialect[] = location === "markdown" ? ["shell", "code"] : CODE_EXT.test(rel) ? ["code"] : ["shell"];
  for (const dialect of dialects)
    dataFlow(flowLines, dialect, (h) => {
      const ctx: LineContext = { location, fenced: location === "markdown", rel };
      const hit: Hit =
        h.download !== undefined
          ? remoteHit(h.download, ctx, h.message)
          : { severity: h.rule === "persistence" && location === "markdown" ? "high" : h.severity, message: h.message };
      c.add({ rule: h.rule, category: h.category }, hit, h.line, h.text);
    });
}

/** All findings of the text rules for one file. `location` defaults to install.md §7.3. */
export function scanText(rel: string, text: string, location: Location = classifyLocation(rel, text)): Finding[] {
  const c = new Collector(rel);
  const raw = logicalLines(text, location);
  scanLines(c, text, raw, location, rel);
  const starts = lineStarts(text);
  // Physical lines on demand: a split of a large file would hold every line at once.
  const lineAt = (i: number): string | undefined =>
    i < 0 || i >= starts.length ? undefined : text.slice(starts[i], (starts[i + 1] ?? text.length + 1) - 1);
  const lineOf = (n: number) => lineAt(n - 1) ?? "";
  const { payloads, blobs } = decodePayloads(text);
  for (const offset of blobs) {
    const line = lineOfOffset(starts, offset);
    c.add(obfuscation, { severity: "medium", message: "base64-like blob of 2,000+ characters" }, line, lineOf(line));
  }
  for (const d of payloads) {
    const line = lineOfOffset(starts, d.offset);
    const ctx: LineContext = { location, fenced: false, rel };
    for (const decodedLine of d.text.split("\n"))
      for (const dl of windows(decodedLine))
        for (const { rule, hit } of runRules(DECODED_RULES, dl, ctx))
          c.add(rule, hit, line, lineOf(line), ` (decoded from ${d.encoding})`);
  }
  const normal = normalizeText(text);
  if (normal !== text) {
    const rawByLine = new Map(raw.map((l) => [l.line, l.text]));
    const lines = logicalLines(normal, location);
    const changed = new Set<number>();
    lines.forEach((l, i) => {
      if (rawByLine.get(l.line) !== l.text) changed.add(i);
    });
    if (changed.size > 0) scanLines(c, normal, lines, location, rel, changed);
  }
  if (MAY_HIDE.test(text)) {
    for (let i = 0; i < starts.length; i++) {
      const hit = hiddenUnicode(lineAt(i)!, i === 0);
      if (hit !== null) c.add({ rule: "hidden_unicode", category: "injection" }, hit, i + 1, lineAt(i)!);
    }
  }
  for (const h of hiddenBlocks(normal)) {
    const line = lineOfOffset(lineStarts(normal), h.offset);
    c.add(promptInjection, h, line, lineOf(line));
  }
  scanFlow(c, rel, raw, location);
  if (/https?:\/\//i.test(text))
    for (const line of remoteInstructionsAcrossLines(starts.length, lineAt))
      c.add(promptInjection, { severity: "high", message: REMOTE_INSTRUCTIONS }, line, lineOf(line));
  if (rel === "SKILL.md")
    for (const line of frontmatterMarkup(lineAt))
      c.add(
        promptInjection,
        { severity: "high", message: "frontmatter carries prompt-structure markup" },
        line,
        lineOf(line),
      );
  if (/AKIA|ASIA/.test(text))
    for (const i of awsSecretsNearKeyIds(starts.length, lineAt))
      c.add(hardcodedSecret, { severity: "high", message: "hard-coded AWS secret access key" }, i + 1, lineOf(i + 1));
  for (const offset of pemKeys(text)) {
    const line = lineOfOffset(starts, offset);
    c.add(hardcodedSecret, { severity: "high", message: "private key in the bundle" }, line, lineOf(line));
  }
  return c.findings();
}
