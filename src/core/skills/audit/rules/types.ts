/**
 * @module skills/audit/rules/types
 * The shape of a line rule and the helpers every rule shares (severity by location, shell
 * segments, "does this interpreter run its stdin").
 */
import type { Severity } from "../../../schema/finding.ts";
import type { Location } from "../context.ts";
import { runsStdin } from "./shell.ts";

export { runsStdin };

export interface LineContext {
  location: Location;
  fenced: boolean;
  /** Relative path of the file. */
  rel: string;
}

export interface Hit {
  severity: Severity;
  message: string;
  /** A related rule name reported instead of the rule's own (e.g. `credential_use`). */
  rule?: string;
  category?: string;
}

export interface LineRule {
  rule: string;
  category: string;
  /** Cheap test on the whole (normalised) file; the rule is skipped for files it does not match. */
  quick: RegExp;
  /**
   * Lower-case literals, one of which occurs in every line `quick` matches: one pass of their
   * union over the lower-cased file finds the lines worth testing.
   */
  keywords: readonly string[];
  check(line: string, ctx: LineContext): Hit | null;
}

/** `critical` in code, `high` in Markdown (install.md §7.3 "by location"). */
export const byLocation = (ctx: LineContext): Severity => (ctx.location === "code" ? "critical" : "high");

const RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };
export const severityRank = (s: Severity): number => RANK[s];

/** The more severe of two hits (the first when equal). */
export function worst(a: Hit | null, b: Hit | null): Hit | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[b.severity] < RANK[a.severity] ? b : a;
}

/** Splits a shell line at single pipes (`||` is not a pipe). */
export function pipeSegments(line: string): string[] {
  return line.split(/(?<!\|)\|(?![|])/);
}

/** The index of the last segment (after the first) that runs its stdin, or -1. */
export function lastStdinInterpreter(segs: string[]): number {
  for (let j = segs.length - 1; j > 0; j--) if (runsStdin(segs[j]!)) return j;
  return -1;
}

/** A segment index of `segs` at or after `from` that runs its stdin, or -1. */
export function stdinInterpreterAfter(segs: string[], from: number): number {
  for (let j = from + 1; j < segs.length; j++) if (runsStdin(segs[j]!)) return j;
  return -1;
}

/**
 * Returns a function to call once per line checked: every 4,096 calls it runs a minor collection.
 * Rule checks leave garbage per line that JSC collects late; on a file of a few hundred thousand
 * command lines that was 150-300 MiB of peak memory.
 */
export function garbagePacer(every = 4096): () => void {
  let n = 0;
  return () => {
    if (++n % every === 0) Bun.gc(false);
  };
}
