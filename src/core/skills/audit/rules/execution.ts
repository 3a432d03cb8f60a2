/**
 * @module skills/audit/rules/execution
 * Code fetched or decoded at run time and executed: `remote_exec`, `decode_exec`, `obfuscation`
 * (install.md §7.3).
 */
import type { Hit, LineContext, LineRule } from "./types.ts";
import { commandsOf, firstCommand, programOf, unwrap } from "./shell.ts";
import {
  byLocation,
  garbagePacer,
  lastStdinInterpreter,
  pipeSegments,
  runsStdin,
  stdinInterpreterAfter,
} from "./types.ts";

const DOWNLOADER = /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|aria2c|DownloadString|DownloadFile)\b/i;
/** Download commands whose names are common words (`fetch`, `http`): only as the command run. */
const DOWNLOAD_COMMANDS = new Set([
  "fetch",
  "http",
  "https",
  "xh",
  "xhs",
  "curlie",
  "lwp-download",
  "lwp-request",
  "axel",
  "aria2c",
]);
const DOWNLOAD_WORD = /\b(?:fetch|https?|xhs?|curlie|lwp-download|lwp-request|axel)\s/i;

/** A pipe stage that downloads: a downloader named anywhere in it, or run as its command. */
function downloads(segment: string): boolean {
  if (DOWNLOADER.test(segment)) return true;
  if (!DOWNLOAD_WORD.test(segment)) return false;
  const name = (unwrap(firstCommand(segment)).words[0] ?? "").replace(/^.*\//, "").toLowerCase();
  return DOWNLOAD_COMMANDS.has(name);
}
const URL_G = /https?:\/\/[^\s'"`)|;<>\\]+/gi;

const KNOWN_INSTALLER_HOSTS = new Set([
  "sh.rustup.rs",
  "bun.sh",
  "deno.land",
  "astral.sh",
  "get.docker.com",
  "get.pnpm.io",
  "deb.nodesource.com",
  "rpm.nodesource.com",
]);
const KNOWN_INSTALLER_PREFIXES = [
  "https://raw.githubusercontent.com/Homebrew/install/",
  "https://raw.githubusercontent.com/nvm-sh/nvm/",
];

type UrlClass = "insecure" | "installer" | "other" | "none";

/** Plain http or an IP-literal host is always critical; a known installer is softened in Markdown. */
function classifyUrl(text: string): UrlClass {
  const urls = text.match(URL_G);
  if (!urls) return "none";
  let cls: UrlClass = "installer";
  for (const raw of urls) {
    // A regex, not `new URL`: native URL objects per line cost memory the GC does not see.
    const m = /^(https?):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^/:?#]+)/i.exec(raw);
    if (m === null) {
      cls = "other";
      continue;
    }
    const host = m[2]!.toLowerCase();
    if (m[1]!.toLowerCase() === "http" || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith("["))
      return "insecure";
    const known = KNOWN_INSTALLER_HOSTS.has(host) || KNOWN_INSTALLER_PREFIXES.some((p) => raw.startsWith(p));
    if (!known) cls = "other";
  }
  return cls;
}

/** The severity of running what `text` downloads: by location, softened for known installers. */
export function remoteHit(text: string, ctx: LineContext, message: string): Hit {
  const cls = classifyUrl(text);
  if (cls === "insecure") return { severity: "critical", message: `${message} from a plain-http or IP-address URL` };
  if (cls === "installer" && ctx.location === "markdown")
    return { severity: "medium", message: `${message} (well-known installer)` };
  return { severity: byLocation(ctx), message };
}

const RUNNER = String.raw`(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|da|k|fi)?sh|python[0-9.]*|node|perl|ruby|pwsh|powershell|source|\.)`;

const RUN_AFTER_G = new RegExp(
  String.raw`(?:&&|;|\|\||\bthen)\s*(?:chmod\s+\S+\s+\S+\s*(?:&&|;)\s*)?(?:${RUNNER}\s+(?:-\S+\s+)*["']?((?:\S*\/)?[^\s"';&|/]+)|(?:sudo\s+)?["']?(\.{0,2}\/(?:\S*\/)?[^\s"';&|/]+))`,
  "g",
);

/** `curl -o f URL && sh f`, `wget URL/x.sh; bash x.sh`, `… && ./x.sh`. */
function downloadThenRun(line: string): boolean {
  const names = new Set<string>();
  // `-o f`, combined short flags (`-sSLo f`, `-qO f`), `--output f`, `-OutFile f`.
  for (const m of line.matchAll(/(?:\s-[a-zA-Z]*[oO]|--output(?:-document)?=?|-OutFile)\s*["']?([^\s"';&|]+)/g))
    names.add(m[1]!);
  for (const m of line.matchAll(/https?:\/\/[^\s'"]*\/([\w.-]+\.(?:sh|bash|py|pl|rb|js|ps1|php))\b/g)) names.add(m[1]!);
  // `curl URL > f`, `curl URL | tee f`: the download's own redirect names the file.
  for (const m of line.matchAll(/(?:[^>&0-9]>|\|\s*tee(?:\s+-a)?)\s*["']?([^\s"';&|>]+)/g)) names.add(m[1]!);
  const bases = new Set<string>();
  for (const raw of names) if (raw !== "-" && raw !== "/dev/null") bases.add(raw.replace(/^.*\//, ""));
  if (bases.size === 0) return false;
  // One shared regex for the file each later command runs (a regex per line and name would be
  // compiled anew for every line of a large file).
  for (const m of line.matchAll(RUN_AFTER_G)) {
    const ran = (m[1] ?? m[2] ?? "").replace(/["']+$/, "").replace(/^.*\//, "");
    if (bases.has(ran)) return true;
  }
  return false;
}

const EVAL_FETCH =
  /\beval\s+["']?\$\(\s*(?:curl|wget)\b|\beval\s+["']?`\s*(?:curl|wget)\b|(?:^|[\s;&|(])(?:source|\.|(?:ba|z)?sh|python[0-9.]*|perl|ruby|node)\s+<\(\s*(?:curl|wget)\b|(?:ba|z)?sh\s+-c\s+["']?\$\(\s*(?:curl|wget)\b/;
const CODE_FETCH =
  /(?:urlopen|urllib\.request|requests\.get|httpx\.get)\b.*\bexec\s*\(|\bexec\s*\(.*(?:urlopen|requests\.get|httpx\.get)|\b(?:iex|Invoke-Expression)\b.*(?:DownloadString|Invoke-WebRequest|\biwr\b|\birm\b|Invoke-RestMethod)|DownloadString\(.*\)\s*\|\s*(?:iex|Invoke-Expression)\b|\beval\s*\(.*\bfetch\s*\(|new\s+Function\s*\(.*\bfetch\s*\(|\beval\s*\(\s*(?:URI\.)?open\s*\(\s*["']https?:|\beval\s*\(\s*Net::HTTP\.get/i;

/** A `$(…)`, `<(…)` or backtick substitution whose command matches `what`. */
export function substitutes(word: string, what: RegExp): boolean {
  for (const m of word.matchAll(/[$<]\((.*)\)|`([^`]*)`/g)) if (what.test(m[1] ?? m[2] ?? "")) return true;
  return false;
}

/**
 * A command that runs what a substitution yields as its program: `bash <(curl …)`,
 * `bash < <(curl …)`, `python3 -c "$(curl …)"`, `eval "$(wget -qO- …)"`, `source <(curl …)`.
 */
export function runsSubstitution(line: string, what: RegExp): boolean {
  if (!line.includes("(") && !line.includes("`")) return false;
  for (const cmd of commandsOf(line)) {
    const run = unwrap(cmd);
    if (run.words[0] === "eval") {
      if (run.words.slice(1).some((w) => substitutes(w, what))) return true;
      continue;
    }
    const prog = programOf(run);
    if (prog === null) continue;
    if (prog.stdin ? run.stdin.some((w) => substitutes(w, what)) : substitutes(prog.program ?? "", what)) return true;
  }
  return false;
}

/** `wget URL` and `curl -O URL` save under the URL's last path segment. */
export const REMOTE_NAME =
  /\bwget\b(?![^;&|]*\s(?:-O|--output-document)\b)|\bcurl\b[^;&|]*\s(?:-[a-zA-Z]*O[a-zA-Z]*|--remote-name(?:-all)?)(?=\s)/;
export const URL_BASENAME_G = /https?:\/\/[^\s'"`?#;&|]*\/([\w.-]+)/g;

/**
 * A statement running the text held in a variable as a program: `eval "$x"`, `bash -c "$x"`,
 * `python3 -c "$x"`, `bash <<< "$x"`, `echo "$x" | sh`. Returns the variable's name.
 */
export function runsVariable(text: string, names: ReadonlyMap<string, unknown>): string | null {
  const ref = (w: string | null | undefined) => {
    if (w == null) return null;
    for (const m of w.matchAll(/\$\{?([A-Za-z_]\w*)/g)) if (names.has(m[1]!)) return m[1]!;
    return null;
  };
  for (const cmd of commandsOf(text)) {
    const run = unwrap(cmd);
    if (run.words[0] === "eval") {
      for (const w of run.words.slice(1)) if (ref(w) !== null) return ref(w);
      continue;
    }
    const prog = programOf(run);
    if (prog === null) continue;
    const hit = prog.stdin ? run.stdin.map(ref).find((r) => r !== null) : ref(prog.program);
    if (hit) return hit;
  }
  const segs = pipeSegments(text);
  for (let i = 0; i < segs.length - 1; i++) {
    const name = ref(segs[i]!);
    if (name !== null && segs.slice(i + 1).some(runsStdin)) return name;
  }
  return null;
}

/** Fetching code in a program (`fetch(`, `URI.open`, `LWP`, `Net::HTTP`) and evaluating it on the same line. */
const FETCH_IN_CODE =
  /\bfetch\s*\(|\bURI\.open\b|\bopen-uri\b|\bLWP::|\bNet::HTTP\b|\bget\s*\(\s*["']https?:|\burlopen\s*\(|\brequests\.get\s*\(|\bhttpx\.get\s*\(|\bhttps?\.get\s*\(|\bHTTP::Tiny\b|\bfile_get_contents\s*\(\s*["']https?:/;
const EVALUATES = /\beval\b|\bnew\s+Function\s*\(|\bvm\.runIn\w*\s*\(|\binstance_eval\b/;

export const remoteExec: LineRule = {
  rule: "remote_exec",
  keywords: [
    "curl",
    "wget",
    "fetch ",
    "http ",
    "https ",
    "xh ",
    "xhs ",
    "lwp-",
    "axel",
    "iwr",
    "irm",
    "invoke-",
    "aria2c",
    "download",
    "urlopen",
    "urllib",
    "requests.get",
    "httpx",
    "eval",
    "iex",
  ],
  category: "execution",
  quick:
    /curl|wget|\biwr\b|\birm\b|Invoke-|aria2c|Download|urlopen|urllib|requests\.get|httpx|\beval\b|\biex\b|\b(?:fetch|https?|xhs?|lwp-\w+|axel)\s/i,
  check(line, ctx) {
    if (
      EVAL_FETCH.test(line) ||
      CODE_FETCH.test(line) ||
      (FETCH_IN_CODE.test(line) && EVALUATES.test(line)) ||
      runsSubstitution(line, DOWNLOADER)
    )
      return remoteHit(line, ctx, "remote code executed from a download");
    if (!DOWNLOADER.test(line) && !DOWNLOAD_WORD.test(line)) return null;
    const segs = pipeSegments(line);
    // Only a downloader before the last stage running stdin matters: one pass, not one per downloader.
    const last = lastStdinInterpreter(segs);
    for (let i = 0; i < last; i++) {
      if (!downloads(segs[i]!)) continue;
      const j = stdinInterpreterAfter(segs, i);
      return remoteHit(segs.slice(i, j).join("|"), ctx, "download piped into an interpreter");
    }
    if (downloadThenRun(line)) return remoteHit(line, ctx, "downloaded script executed");
    return null;
  },
};

const DECODER =
  /\bbase64\s+(?:-\w*d\w*|--decode)\b|\bopenssl\s+(?:base64|enc)\b.*\s-d\b|\bxxd\s+(?:-\w+\s+)*-r|\buudecode\b|\bprintf\s+["']?(?:\\x[0-9a-fA-F]{2}){4}|\bbase32\s+(?:-d|--decode)\b|\brev(?=\s*\|)/;
const EVAL_DECODED =
  /\beval\s+["']?[$`(]+.*\b(?:base64|base32|xxd|openssl|uudecode)\b|(?:ba|z)?sh\s+-c\s+["']?\$\(.*\b(?:base64|xxd)\s+-|(?:source|\.)\s+<\(.*\b(?:base64|xxd)\s+-|\beval\s*\(\s*(?:atob|unescape|Buffer\.from|decodeURIComponent|String\.fromCharCode)\s*\(|\bFunction\s*\(\s*atob\s*\(|\b(?:exec|eval)\s*\(.*\b(?:b64decode|b32decode|decodebytes|fromhex|unhexlify|codecs\.decode|zlib\.decompress|marshal\.loads|decompress)\b|\bFromBase64String\b.*\b(?:iex|Invoke-Expression)\b|\b(?:iex|Invoke-Expression)\b.*\bFromBase64String\b|\b(?:powershell|pwsh)(?:\.exe)?\b.*\s-(?:e|ec|en|enc|enco|encod|encode|encoded|encodedcommand)\s+["']?[A-Za-z0-9+/=]{8,}/i;

export const decodeExec: LineRule = {
  rule: "decode_exec",
  keywords: [
    "base64",
    "base32",
    "xxd",
    "openssl",
    "uudecode",
    "printf",
    "rev",
    "eval",
    "exec",
    "function",
    "frombase64string",
    "powershell",
    "pwsh",
  ],
  category: "obfuscation",
  quick: /base64|base32|xxd|openssl|uudecode|printf|\brev\b|eval|exec|Function|FromBase64String|powershell|pwsh/i,
  check(line) {
    if (EVAL_DECODED.test(line)) return { severity: "critical", message: "decoded data executed" };
    if (!DECODER.test(line)) return null;
    const segs = pipeSegments(line);
    const last = lastStdinInterpreter(segs);
    for (let i = 0; i < last; i++)
      if (DECODER.test(segs[i]!)) return { severity: "critical", message: "decoded data piped into an interpreter" };
    return null;
  },
};

const FROM_CHAR_CODE = /fromCharCode\(\s*(?:[^,()]+,\s*){7,}[^,()]+\)/;
const ESCAPE_RUN = /(?:\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\u\{[0-9a-fA-F]+\}){16,}/;
const DYN_IMPORT = /__import__\s*\(\s*["'](?:os|subprocess|pty|socket)["']\s*\)/;

export const obfuscation: LineRule = {
  rule: "obfuscation",
  keywords: ["fromcharcode", "\\x", "\\u", "__import__"],
  category: "obfuscation",
  quick: /fromCharCode|\\[xu]|__import__/,
  check(line) {
    if (FROM_CHAR_CODE.test(line)) return { severity: "high", message: "String.fromCharCode with many codes" };
    if (ESCAPE_RUN.test(line)) return { severity: "high", message: "long run of \\x/\\u escapes" };
    if (DYN_IMPORT.test(line)) return { severity: "high", message: "dynamic __import__ of a system module" };
    return null;
  },
};

/**
 * The pipe checks of `remote_exec` and `decode_exec` over a line too long for one window, in one
 * pass over its stages (each read only up to 1,024 characters, long words cut to their ends): a
 * downloader or decoder stage followed, however far along, by a stage running its stdin.
 */
export function longLinePipes(line: string, ctx: LineContext): { rule: LineRule; hit: Hit }[] {
  let download: string | null = null;
  let decoder = false;
  const out: { rule: LineRule; hit: Hit }[] = [];
  let from = 0;
  const stages = line.matchAll(/(?<!\|)\|(?!\|)/g);
  const pace = garbagePacer();
  for (let m = stages.next(); ; m = stages.next()) {
    pace();
    const end = m.done ? line.length : m.value.index;
    const seg = line
      .slice(from, Math.min(end, from + 4096))
      .replace(/[^\s|;&<>()'"`]{160,}/g, (w) => w.slice(0, 96) + w.slice(-32))
      .slice(0, 1024);
    if (from > 0 && (download !== null || decoder) && runsStdin(seg)) {
      if (download !== null)
        out.push({ rule: remoteExec, hit: remoteHit(download, ctx, "download piped into an interpreter") });
      if (decoder)
        out.push({
          rule: decodeExec,
          hit: { severity: "critical", message: "decoded data piped into an interpreter" },
        });
      return out;
    }
    if (download === null && downloads(seg)) download = seg;
    decoder ||= DECODER.test(seg);
    if (m.done) return out;
    from = end + 1;
  }
}
