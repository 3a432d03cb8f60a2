/**
 * @module skills/audit/rules/types
 * The shape of a line rule and the helpers every rule shares (severity by location, shell
 * segments, "does this interpreter run its stdin").
 */
import type { Severity } from "../../../schema/finding.ts";
import type { Location } from "../context.ts";

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

const SH = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh"]);
const PROGRAM_FLAGS: Record<string, Set<string>> = {
  sh: new Set(["-c"]),
  python: new Set(["-c", "-m"]),
  node: new Set(["-e", "-p", "--eval", "--print", "-r", "--require"]),
  perl: new Set(["-e", "-E"]),
  ruby: new Set(["-e"]),
  pwsh: new Set(["-c", "-command", "-f", "-file"]),
  php: new Set(["-r", "-f"]),
  lua: new Set(["-e"]),
};
const ARG_FLAGS = new Set(["-o", "+o", "-W", "-X", "-u", "-g"]);

function family(name: string): string | null {
  const base = name
    .replace(/^.*[/\\]/, "")
    .toLowerCase()
    .replace(/\.exe$/, "");
  if (SH.has(base)) return "sh";
  if (/^python[0-9.]*$/.test(base) || base === "py") return "python";
  if (base === "node" || base === "nodejs") return "node";
  if (base === "perl") return "perl";
  if (base === "ruby") return "ruby";
  if (base === "pwsh" || base === "powershell") return "pwsh";
  if (base === "php") return "php";
  if (base === "lua") return "lua";
  if (base === "iex" || base === "invoke-expression") return "iex";
  return null;
}

/**
 * True when a pipe segment starts an interpreter that runs its standard input as the program:
 * no script path and no `-c`/`-e`/`-m` program argument (`-` and `-s` do read stdin).
 */
export function runsStdin(segment: string): boolean {
  const head = segment.split(/&&|;|\|\||\)|`|2?>/)[0] ?? "";
  const toks = head
    .trim()
    .split(/\s+/)
    .filter((t) => t !== "");
  let i = 0;
  for (;;) {
    const t = toks[i];
    if (t === undefined) return false;
    if (t === "sudo" || t === "exec" || t === "command" || t === "nohup" || t === "time" || /\/env$|^env$/.test(t)) {
      i++;
      while (toks[i] !== undefined && (toks[i]!.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(toks[i]!))) {
        if (toks[i] === "-u") i++;
        i++;
      }
      continue;
    }
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
      i++;
      continue;
    }
    break;
  }
  const fam = family(toks[i]!.replace(/^["']|["']$/g, ""));
  if (fam === null) return false;
  if (fam === "iex") return true;
  const programFlags = PROGRAM_FLAGS[fam]!;
  for (let j = i + 1; j < toks.length; j++) {
    const t = toks[j]!.replace(/^["']|["']$/g, "");
    if (t === "-" || t === "-s" || t === "--") return true;
    if (programFlags.has(t.toLowerCase())) return false;
    if (t.startsWith("-") || t.startsWith("+")) {
      if (ARG_FLAGS.has(t)) j++;
      continue;
    }
    return false;
  }
  return true;
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
