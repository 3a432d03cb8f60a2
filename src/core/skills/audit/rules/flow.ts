/**
 * @module skills/audit/rules/flow
 * Data flow within one file (issue 9 §3): a secret read into a variable on one line and sent on
 * another (`K=$(cat ~/.ssh/id_rsa)` … `curl -d "k=$K" …`, `key = os.environ["X_TOKEN"]` …
 * `requests.post(url, data=key)`), and a start-up file path kept in a variable and appended to
 * later. Shell, Python and JavaScript alike: variables are tracked forward through assignments
 * (`$NAME`/`${NAME}` in shell, bare identifiers in code), statements spanning lines are joined.
 */
import type { Severity } from "../../../schema/finding.ts";
import type { LogicalLine } from "../context.ts";
import { REMOTE_NAME, runsVariable, URL_BASENAME_G } from "./execution.ts";
import { garbagePacer } from "./types.ts";
import {
  CODE_SECRET,
  CODE_SENDER,
  CRED_FILE,
  CRED_USE_G,
  ENV_DUMP,
  hostOf,
  LOOPBACK,
  SECRET_VAR,
  SHELL_SENDER,
  URL_G,
} from "./exfiltration.ts";

export type Dialect = "shell" | "code";

export interface FlowHit {
  line: number;
  rule: "exfiltration" | "persistence" | "remote_exec";
  category: "exfiltration" | "persistence" | "execution";
  severity: Severity;
  message: string;
  text: string;
  /** For `remote_exec`: the statement that downloaded the file (its URL decides the severity). */
  download?: string;
}

type Taint = "cred" | "env" | "rc";

/** `NAME=…`, `export NAME=…`, `const name = …`, `name: str = …` (not `==`, `=>`, `<=`). */
const ASSIGN =
  /^\s*(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)*|typeset\s+|(?:const|let|var|my|our)\s+|set\s+-gx?\s+)?\$?([A-Za-z_]\w*)\s*(?::\s*[\w[\], |.]+)?\s*(?:=|:=)(?![=>]|~\s)\s*(.+)$/;
/** `const { GITHUB_TOKEN, HOME: home } = process.env`: the secret-named bindings carry the secret. */
const DESTRUCTURE = /^\s*(?:const|let|var)\s*\{([^}]+)\}\s*=\s*(?:process\.env|Deno\.env\.toObject\(\))\s*;?\s*$/;
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL/i;
/** `while read … VAR …; do` … `done < FILE`: the loop's variables come from FILE. */
const WHILE_READ = /\bwhile\s+(?:IFS=\S*\s+)?read\s+(?:-\w+\s+)*([A-Za-z_][\w\s]*?)\s*(?:;|$|\bdo\b)/;
const DONE_FROM = /^\s*done\s*<\s*["']?([^\s"';&|]+)/;
const WITH_OPEN = /\bwith\s+open\s*\((.+?)\)\s+as\s+([A-Za-z_]\w*)\s*:/;
const READ_INTO = /^\s*read\s+(?:-\w+\s+)*([A-Za-z_]\w*)\s*<\s*(.+)$/;
const LOOSE_CRED =
  /["'`]\.ssh["'`/]|["'`]\.aws["'`/].*credentials|["'`]\.gnupg["'`/]|["'`]\.kube["'`/].*config|["'`]\.netrc["'`]/;
const RC_FILE =
  /(?:^|[\s"'`/=(])\.(?:bashrc|zshrc|profile|bash_profile|zprofile|bash_login|zshenv|zlogin|kshrc)\b|\bconfig\.fish\b|\bfish\/conf\.d\//;
/**
 * Where a value goes, from the last marker before it: a header (`-H`, `Authorization`,
 * `headers=`), a credential or query (`-u`, `?k=`, `params=`), or a body (`-d`, `data=`, `body:`).
 */
const ROLE_G =
  /(?:^|\s)(?:-H|--header)\b|Authorization|Bearer|headers?\s*[=:[]|\bauth\s*[=:]|X-API-Key|api-key\s*:|\btoken\s+["'`]?$|[?&][\w.-]+=|\bparams\s*[=:]|(?:^|\s)(?:-u|--user)\b|(?:^|\s)(?:-d|--data[\w-]*|-F|--form[\w-]*|--json|-T|--upload-file|--post-data|--post-file|--body-data|--body-file|-InFile|-Body)\b|\b(?:data|json|body|content|files|payload)\s*[=:]/gi;
type Role = "header" | "query" | "body" | "none";

function roleBefore(pre: string): Role {
  let role: Role = "none";
  for (const m of pre.matchAll(ROLE_G)) {
    const t = m[0].trim();
    if (/^(?:-H|--header|Authorization|Bearer|headers?|auth|X-API-Key|api-key|token)/i.test(t)) role = "header";
    else if (/^(?:[?&]|params|-u|--user)/i.test(t)) role = "query";
    else role = "body";
  }
  return role;
}
const SHELL_WRITE =
  /(?:^|[\s;&|)0-9])>>?\s*["']?$|\btee\s+(?:-a\s+)?["']?$|\b(?:cp|mv|install)\s+(?:-\S+\s+)*\S+\s+["']?$/;
const CODE_WRITE = /\b(?:open|appendFile|appendFileSync|writeFile|writeFileSync|createWriteStream)\s*\(\s*$/;
const CODE_WRITE_MODE =
  /\bopen\s*\([^)]*,\s*["'][aw+]|\.(?:write_text|open\s*\(\s*["'][aw])|appendFile|writeFile|createWriteStream/;

/** A credential (or the environment) copied, archived or redirected into a file: the file is now one. */
const COPY_TO = /\b(?:cp|mv|install|ln)\s+(?:-\S+\s+)*(\S+)\s+["']?([^\s"';&|]+)/;
const ARCHIVE_TO = /\b(?:tar\s+-?c\w*f\s+|zip\s+(?:-\S+\s+)*|7z\s+a\s+)["']?([^\s"';&|]+)\s+(.+)/;
const REDIRECT_TO = /^(.*?[^>&0-9])>\s*["']?([^\s"';&|>]+)/;
const PY_COPY = /\bshutil\.copy\w*\s*\((.+?),\s*["']([^"']+)["']/;

function copiedTo(text: string): string | null {
  const checks: [RegExpExecArray | null, number, number][] = [
    [COPY_TO.exec(text), 1, 2],
    [ARCHIVE_TO.exec(text), 2, 1],
    [REDIRECT_TO.exec(text), 1, 2],
    [PY_COPY.exec(text), 1, 2],
  ];
  for (const [m, from, to] of checks) {
    if (m === null || m[to] === "/dev/null") continue;
    const src = m[from]!;
    if (sourceOf(src) === "cred" || ENV_DUMP.test(`${src}|`)) return m[to]!;
  }
  return null;
}

/** A download saved to a file (`curl -o f`, `wget -O f`, `curl … > f`), run by a later statement. */
const DOWNLOADER = /\b(?:curl|wget|iwr|Invoke-WebRequest|aria2c)\b/i;
const OUTPUT_G = /(?:\s-[oO]\s*|--output(?:-document)?[=\s]+|-OutFile\s+|[^>&0-9]>\s*)["']?([^\s"';&|>]+)/g;
const RUNS =
  /^\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:(?:ba|z|da|k|fi)?sh|python[0-9.]*|node|perl|ruby|pwsh|powershell|source|\.)\s+(?:-\S+\s+)*)?["']?([^\s"';&|]+)/;
const baseName = (p: string) => p.replace(/^.*\//, "");

/** The downloaded file a statement runs, if any. */
function runsDownloaded(text: string, downloads: Map<string, { line: number; text: string }>) {
  for (const part of text.split(/&&|\|\||;|\bthen\b|\bdo\b/)) {
    const m = RUNS.exec(part);
    if (m === null) continue;
    const ran = m[1]!;
    const interpreted = !/^\s*(?:sudo\s+(?:-\S+\s+)*)?["']?[^\s"']*$/.test(
      part.slice(0, m.index + m[0].length - ran.length),
    );
    if (!interpreted && !ran.includes("/")) continue;
    for (const [path, d] of downloads) if (ran === path || baseName(ran) === baseName(path)) return d;
  }
  return null;
}

/** Tracked names and paths per file: the latest few, so a file of assignments stays linear. */
const TRACKED = 32;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > TRACKED) map.delete(map.keys().next().value!);
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A variable reference: `$NAME`/`${NAME}` in shell; an identifier that is not a member or a target in code. */
const REF_G: Record<Dialect, RegExp> = {
  shell: /\$\{?([A-Za-z_]\w*)\b(?![(\w])/g,
  code: /(?<![\w.$'"\\])([A-Za-z_]\w*)\b(?!\s*[=(:]\s*[^=])/g,
};

/** An exported variable read back through the environment (`python3 -c '…os.environ["T"]…'`). */
const ENV_REF_G =
  /(?:os\.environ(?:\.get\(|\[)|os\.getenv\(|process\.env(?:\.|\[)|\bENV\[|\$env:)["'`]?([A-Za-z_]\w*)/g;

/** What kind of secret (or path) an expression yields, judged on its own text. */
function sourceOf(expr: string): Taint | null {
  const stripped = expr.replace(CRED_USE_G, " ");
  if (CRED_FILE.test(stripped) || LOOSE_CRED.test(stripped)) return "cred";
  // The whole environment holds every secret at once: judged as a credential file.
  if (ENV_DUMP.test(expr)) return "cred";
  if (SECRET_VAR.test(expr) || CODE_SECRET.test(expr)) return "env";
  if (RC_FILE.test(expr)) return "rc";
  return null;
}

/**
 * Joins code statements whose brackets stay open over several lines (at most 30 lines). Braces
 * count only inside a call or after `=`, so a function or block body is never one statement.
 */
function statements(lines: readonly LogicalLine[], dialect: Dialect): LogicalLine[] {
  if (dialect === "shell") return lines.slice();
  const out: LogicalLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i]!;
    let text = first.text;
    let depth = 0;
    const braces = /=\s*\{\s*$/.test(first.text);
    const count = (t: string) => {
      for (const ch of t.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, "")) {
        if (ch === "(" || ch === "[" || (ch === "{" && (braces || depth > 0))) depth++;
        else if (ch === ")" || ch === "]" || (ch === "}" && depth > 0)) depth--;
      }
    };
    count(text);
    let j = i;
    while (depth > 0 && j + 1 < lines.length && j - i < 30) {
      j++;
      text += " " + lines[j]!.text.trim();
      count(lines[j]!.text);
    }
    out.push({ line: first.line, text, fenced: first.fenced });
    i = j;
  }
  return out;
}

/**
 * One shell line as its commands: `a=…; b=$(… $a); curl … $b` flows like three lines. Splits at
 * `;`, `&&` and `||` outside quotes and `$(…)`/backticks; a line without them stays whole.
 */
function shellCommands(l: LogicalLine): LogicalLine[] {
  const t = l.text;
  if (!/;|&&|\|\|/.test(t) || t.length > 4096) return [l];
  const out: LogicalLine[] = [];
  let quote = "";
  let depth = 0;
  let start = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (c === "\\") i++;
    else if (quote !== "") {
      if (c === quote) quote = "";
    } else if (c === "'" || c === '"' || c === "`") quote = c;
    else if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === ";" || ((c === "&" || c === "|") && t[i + 1] === c))) {
      if (/^\s*;/.test(t.slice(i + 1)) || /\b(?:case|esac)\b/.test(t)) return [l];
      out.push({ ...l, text: t.slice(start, i) });
      if (c !== ";") i++;
      start = i + 1;
    }
  }
  if (out.length === 0) return [l];
  out.push({ ...l, text: t.slice(start) });
  return out.filter((x) => x.text.trim() !== "");
}

function onlyLoopback(text: string): boolean {
  const urls = text.match(URL_G) ?? [];
  return urls.length > 0 && urls.every((u) => LOOPBACK.test(hostOf(u).host));
}

/** Statement index of each `while read` loop fed a credential by its `done < FILE` (its names, FILE's line). */
function whileReadSources(stmts: readonly LogicalLine[]): Map<number, { names: string[]; from: number }> {
  const out = new Map<number, { names: string[]; from: number }>();
  const open: number[] = [];
  for (const [i, st] of stmts.entries()) {
    if (WHILE_READ.test(st.text) && !DONE_FROM.test(st.text)) open.push(i);
    const done = DONE_FROM.exec(st.text);
    if (done === null) continue;
    const start = open.pop();
    if (start === undefined || sourceOf(done[1]!) !== "cred") continue;
    const names = WHILE_READ.exec(stmts[start]!.text)![1]!
      .split(/\s+/)
      .filter((n) => n !== "");
    out.set(start, { names, from: st.line });
  }
  return out;
}

/**
 * Follows variables through one file. `lines` are the file's logical lines (Markdown: only its
 * fenced code); `dialect` decides how a variable is referenced. Hits go to `emit` as they are
 * found (the caller caps them), so a file of a million sends holds none of them.
 */
export function dataFlow(lines: readonly LogicalLine[], dialect: Dialect, emit: (hit: FlowHit) => void): void {
  const taint = new Map<string, { kind: Taint; line: number }>();
  const paths = new Map<string, number>();
  const downloads = new Map<string, { line: number; text: string }>();
  /** Shell variables holding a download (`S=$(curl …)`). */
  const fetched = new Map<string, { line: number; text: string }>();
  /** Variables holding an open request or socket (`req = https.request(…)`): writing to them sends. */
  const channels: RegExp[] = [];
  // Every reference in the text, looked up by name: one pass whatever the number of tracked names.
  const refsIn = (text: string) => {
    const out: { name: string; kind: Taint; from: number; at: number }[] = [];
    for (const re of [REF_G[dialect], ENV_REF_G])
      for (const m of text.matchAll(re)) {
        const t = taint.get(m[1]!);
        if (t !== undefined) out.push({ name: m[1]!, kind: t.kind, from: t.line, at: m.index });
      }
    return out;
  };
  const pace = garbagePacer();
  const stmts = statements(lines, dialect);
  const loopReads =
    dialect === "shell" ? whileReadSources(stmts) : new Map<number, { names: string[]; from: number }>();
  for (const [si, line] of stmts.entries()) {
    pace();
    for (const name of loopReads.get(si)?.names ?? [])
      remember(taint, name, { kind: "cred", line: loopReads.get(si)!.from });
    // A chain of commands flows like consecutive lines; its pieces are made here, one line at a time.
    if (dialect === "shell" && /;|&&|\|\|/.test(line.text)) for (const part of shellCommands(line)) visit(part);
    else visit(line);
  }

  function visit(st: LogicalLine): void {
    const text = st.text;
    const sending =
      SHELL_SENDER.test(text) ||
      CODE_SENDER.test(text) ||
      /\b(?:dig|nslookup|host|drill)\s/.test(text) ||
      channels.some((re) => re.test(text));
    const report = (rule: "exfiltration" | "persistence", severity: Severity, message: string) =>
      emit({ line: st.line, rule, category: rule, severity, message, text });
    if (dialect === "shell") {
      if (fetched.size > 0 && /\$/.test(text)) {
        const name = runsVariable(text, fetched);
        if (name !== null)
          emit({
            line: st.line,
            rule: "remote_exec",
            category: "execution",
            severity: "critical",
            message: `runs the download kept in $${name} on line ${fetched.get(name)!.line}`,
            text,
            download: fetched.get(name)!.text,
          });
      }
      if (DOWNLOADER.test(text)) {
        for (const m of text.matchAll(OUTPUT_G))
          if (m[1] !== "-" && m[1] !== "/dev/null" && downloads.size < 50)
            downloads.set(m[1]!, { line: st.line, text });
        if (REMOTE_NAME.test(text))
          for (const m of text.matchAll(URL_BASENAME_G))
            if (downloads.size < 50) downloads.set(m[1]!, { line: st.line, text });
      } else if (downloads.size > 0) {
        const d = runsDownloaded(text, downloads);
        if (d !== null)
          emit({
            line: st.line,
            rule: "remote_exec",
            category: "execution",
            severity: "critical",
            message: `runs the file downloaded on line ${d.line}`,
            text,
            download: d.text,
          });
      }
    }
    if (sending && paths.size > 0) {
      const judged = text.replace(CRED_USE_G, " ");
      for (const [path, from] of paths)
        if (judged.includes(path)) {
          report("exfiltration", "critical", `credential copied into ${path} on line ${from} sent over the network`);
          break;
        }
    } else {
      const dest = copiedTo(text);
      if (dest !== null) remember(paths, dest, st.line);
    }
    if (taint.size > 0) {
      const judged = sending ? text.replace(CRED_USE_G, (m) => " ".repeat(m.length)) : text;
      for (const r of refsIn(judged)) {
        if (r.kind === "rc") {
          const pre = text.slice(0, r.at);
          const opened = CODE_WRITE_MODE.test(text) && /\b(?:open|Path)\s*\(\s*$/.test(pre);
          if (SHELL_WRITE.test(pre) || CODE_WRITE.test(pre) || opened)
            report("persistence", "critical", `writes the shell start-up file named on line ${r.from}`);
          continue;
        }
        if (!sending) continue;
        const pre = text.slice(Math.max(0, r.at - 60), r.at);
        let severity: Severity = "critical";
        const role = roleBefore(pre);
        // A credential in an authorization header is being used, not sent away.
        if (role === "header") continue;
        if (r.kind === "env") {
          if (onlyLoopback(text)) continue;
          if (role === "query") severity = "high";
        }
        const what = r.kind === "cred" ? "credentials" : "secret";
        report("exfiltration", severity, `${what} read on line ${r.from} sent over the network`);
        break;
      }
    }
    const d = dialect === "code" ? DESTRUCTURE.exec(text) : null;
    if (d !== null)
      for (const part of d[1]!.split(",")) {
        const [key, alias] = part.split(":").map((x) => x.trim());
        if (key && SECRET_NAME.test(key)) remember(taint, alias || key, { kind: "env", line: st.line });
      }
    const a = ASSIGN.exec(text) ?? READ_INTO.exec(text);
    const w = WITH_OPEN.exec(text);
    const bound: [string, string][] = [];
    if (a) bound.push([a[1]!, a[2]!]);
    if (w) bound.push([w[2]!, w[1]!]);
    for (const [name, expr] of bound) {
      // The output of a request is its response, not the secret sent with it.
      if (SHELL_SENDER.test(expr) || CODE_SENDER.test(expr)) {
        taint.delete(name);
        if (dialect === "shell" && DOWNLOADER.test(expr) && /\$\(|`/.test(expr))
          remember(fetched, name, { line: st.line, text: expr });
        else fetched.delete(name);
        if (dialect === "code" && channels.length < 20)
          channels.push(new RegExp(String.raw`\b${escapeRegex(name)}\.(?:write|end|send|sendall)\s*\(`));
        continue;
      }
      fetched.delete(name);
      const own = sourceOf(expr);
      const inherited = refsIn(expr).find((r) => roleBefore(expr.slice(Math.max(0, r.at - 60), r.at)) !== "header");
      const kind = own ?? inherited?.kind ?? null;
      if (kind !== null) remember(taint, name, { kind, line: own !== null ? st.line : inherited!.from });
      else taint.delete(name);
    }
  }
}
