/**
 * @module skills/audit/context
 * Where a line lives decides how strictly it is judged (install.md §7.3): a file is *code* (what
 * the bundle would run) or *Markdown* (what the agent reads). This module classifies files, splits
 * text into logical lines (backslash-newline continuations joined) and tracks fenced blocks.
 */

export type Location = "code" | "markdown";

const SCRIPT_EXT = /\.(sh|bash|zsh|fish|ksh|py|js|mjs|cjs|ts|mts|cts|rb|pl|php|lua|ps1|psm1|bat|cmd)$/i;
const MARKDOWN_EXT = /\.(md|markdown)$/i;

/** install.md §7.3: scripts/, a shebang or a script extension make code; other .md is Markdown. */
export function classifyLocation(rel: string, text: string): Location {
  if (looksExecutable(rel, text)) return "code";
  if (MARKDOWN_EXT.test(rel)) return "markdown";
  return "code";
}

/** What the bundle would run (install.md §7.3): under scripts/, a shebang or a script extension. */
export function looksExecutable(rel: string, text: string): boolean {
  return rel.startsWith("scripts/") || rel.includes("/scripts/") || text.startsWith("#!") || SCRIPT_EXT.test(rel);
}

export interface LogicalLine {
  /** 1-based number of the first physical line. */
  line: number;
  text: string;
  /** Inside a fenced code block (Markdown only). */
  fenced: boolean;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

const PIPE_END = /(?:\|\||&&|[^|\\]\|)\s*$/;

/**
 * Physical lines joined at a trailing backslash (and, in code, a trailing `|`, `&&`, `||`);
 * fences tracked for Markdown.
 */
export function logicalLines(text: string, location: Location): LogicalLine[] {
  const physical = text.split("\n");
  const out: LogicalLine[] = [];
  let fence: string | null = null;
  for (let i = 0; i < physical.length; i++) {
    let cur = physical[i]!;
    const start = i + 1;
    if (cur.endsWith("\r")) cur = cur.slice(0, -1);
    if (location === "markdown") {
      const m = FENCE.exec(cur);
      if (m) {
        const marker = m[1]!;
        if (fence === null) fence = marker;
        else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
        out.push({ line: start, text: cur, fenced: false });
        continue;
      }
    }
    // Cap the join so one huge escaped blob cannot become a quadratic line.
    let joined = 0;
    // Shell code also continues after a trailing `|`, `&&` or `||` (a Markdown table row is not code).
    const code = location !== "markdown" || fence !== null;
    for (; i + 1 < physical.length && joined < 200; joined++) {
      const escaped = cur.endsWith("\\") && !cur.endsWith("\\\\");
      if (!escaped && !(code && PIPE_END.test(cur) && !/^\s*\|/.test(cur))) break;
      if (location === "markdown" && FENCE.test(physical[i + 1]!)) break;
      i++;
      let next = physical[i]!;
      if (next.endsWith("\r")) next = next.slice(0, -1);
      cur = (escaped ? cur.slice(0, -1) : cur) + " " + next.trimStart();
    }
    out.push({ line: start, text: cur, fenced: fence !== null });
  }
  return out;
}

/** Offsets at which each physical line starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line number of a character offset, given `lineStarts`. */
export function lineOfOffset(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
