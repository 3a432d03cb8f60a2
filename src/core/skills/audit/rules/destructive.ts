/**
 * @module skills/audit/rules/destructive
 * `destructive` (install.md §7.3): recursive deletes of the root or home directory (`rm`, `find`)
 * in their usual spellings, and commands that wipe a disk or file system.
 */
import type { Hit, LineRule } from "./types.ts";
import { byLocation, worst } from "./types.ts";

// `\rm` skips aliases; it is still rm.
const RM_G = /(?:^|[\s;&|(`$\\]|sudo\s)rm\s+([^;&|`)\n]*)/g;
const ROOT_TARGETS = new Set([
  "/",
  "/*",
  "~",
  "~/",
  "~/*",
  "$HOME",
  "${HOME}",
  "$HOME/",
  "${HOME}/",
  "$HOME/*",
  "${HOME}/*",
  "/etc",
  "/usr",
  "/bin",
  "/boot",
  "/var",
  "/home",
  "/lib",
  "/root",
  "/System",
  "/Users",
  "C:\\",
  "C:/",
]);
const EXEMPT = new Set([
  "node_modules",
  "dist",
  "build",
  "target",
  ".cache",
  "__pycache__",
  ".next",
  "out",
  "coverage",
  ".venv",
  "venv",
  ".pytest_cache",
  ".turbo",
  "tmp",
]);

/**
 * A path as the shell would see it for the root/home test: quotes gone (`"${HOME}"/`),
 * `${HOME:?}`/`${HOME:-…}` read as `$HOME`, and trailing `/`, `/*`, `/.` dropped (`/` stays `/`).
 */
function canonicalTarget(t: string): string {
  const s = t
    .replace(/["']/g, "")
    .replace(/\$\{(HOME|USERPROFILE)(?:[:?=+-][^}]*)?\}/g, "$$$1")
    .replace(/(?:\/\*?|\/\.)+$/, "");
  return s === "" && t.replace(/["']/g, "").startsWith("/") ? "/" : s;
}
const ROOT_CANON = new Set([...ROOT_TARGETS].map(canonicalTarget));

function rmHit(args: string): Hit | "low" | null {
  const toks = args
    .trim()
    .split(/\s+/)
    .map((t) => t.replace(/^["']|["']$/g, ""));
  let recursive = false;
  let force = false;
  const targets: string[] = [];
  for (const t of toks) {
    if (t === "--recursive") recursive = true;
    else if (t === "--force") force = true;
    else if (t === "--no-preserve-root") return { severity: "critical", message: "rm --no-preserve-root" };
    else if (/^-[A-Za-z]+$/.test(t)) {
      if (/[rR]/.test(t)) recursive = true;
      if (t.includes("f")) force = true;
    } else if (t !== "--" && t !== "") targets.push(t);
  }
  if (!recursive) return null;
  if (targets.some((t) => ROOT_TARGETS.has(t) || ROOT_CANON.has(canonicalTarget(t))))
    return { severity: "critical", message: "recursive delete of the root or home directory" };
  if (!force) return null;
  const benign = (t: string) => {
    const name = t.replace(/\/+$/, "").replace(/^.*\//, "");
    return EXEMPT.has(name) || /^\/tmp\//.test(t) || /^\$\{?TMPDIR\}?\//.test(t) || /^\/var\/tmp\//.test(t);
  };
  return targets.length > 0 && targets.every(benign) ? null : "low";
}

const DISK =
  /\bmkfs(?:\.[a-z0-9]+)?\s+\S|\bdd\b[^;|&]*\bof=\/dev\/(?!null\b|zero\b|stdout\b|stderr\b|fd\/|u?random\b|tty)|>\s*\/dev\/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d|mmcblk\d|xvd[a-z]|vd[a-z])|\bformat\s+[A-Za-z]:(?=\s|$|\/)|\bdiskpart\b.*\bclean\b|\bshred\b[^;|&]*\/dev\/|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\b(?:Remove-Item|rd|rmdir)\b.*(?:-Recurse|\/s)\b.*\s["']?(?:C:\\|\$env:USERPROFILE|~)["']?(?:\s|$)/i;

const FIND_G = /(?:^|[\s;&|(`$\\]|sudo\s)find\s+([^;&|`)\n]*)/g;
/** Tests that narrow what find deletes to some files (`-name '*.pyc'`), not the whole tree. */
const FIND_NARROWS =
  /^-(?:i?name|i?path|i?wholename|i?regex|newer\w*|[amc](?:time|min)|size|user|group|uid|gid|empty|perm|links|lname|samefile|inum)$/;

/** `find / -delete`, `find ~ -exec rm -rf {} +`: the whole root or home tree removed. */
function findHit(args: string): boolean {
  const toks = args.trim().split(/\s+/);
  const roots: string[] = [];
  let i = 0;
  while (i < toks.length && /^-[HLP]$|^-O\d$|^-D$/.test(toks[i]!)) i++;
  for (; i < toks.length && !/^[-!(]/.test(toks[i]!); i++) roots.push(toks[i]!);
  if (!roots.some((r) => ROOT_CANON.has(canonicalTarget(r)))) return false;
  const rest = toks.slice(i);
  if (rest.some((t) => FIND_NARROWS.test(t))) return false;
  return (
    rest.includes("-delete") ||
    rest.some((t, j) => /^-(?:exec|execdir|ok)$/.test(t) && /^(?:\S*\/)?rm$/.test(rest[j + 1] ?? ""))
  );
}

export const destructive: LineRule = {
  rule: "destructive",
  keywords: [
    "rm ",
    "rm\t",
    "mkfs",
    "dd ",
    "dd\t",
    "/dev/",
    "format",
    "diskpart",
    "shred",
    ":()",
    "remove-item",
    "rd ",
    "rmdir",
    "find ",
  ],
  category: "destructive",
  quick: /\brm\s|mkfs|\bdd\s|>\s*\/dev\/|\bformat\s+[A-Za-z]:|diskpart|shred|:\(\)|Remove-Item|\brd\s|rmdir|\bfind\s/i,
  check(line, ctx) {
    let hit: Hit | null = DISK.test(line)
      ? { severity: byLocation(ctx), message: "destroys a disk or file system" }
      : null;
    let low = false;
    for (const m of line.matchAll(RM_G)) {
      const r = rmHit(m[1]!);
      if (r === "low") low = true;
      else if (r !== null) hit = worst(hit, { severity: byLocation(ctx), message: r.message });
    }
    for (const m of line.matchAll(FIND_G))
      if (findHit(m[1]!))
        hit = worst(hit, { severity: byLocation(ctx), message: "find deletes the root or home directory tree" });
    if (hit === null && low) return { severity: "low", message: "rm -rf of a path" };
    return hit;
  },
};
