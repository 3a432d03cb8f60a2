/**
 * @module skills/audit/rules/exfiltration
 * Secrets leaving the machine (install.md §7.3): `exfiltration` needs the secret and the sender in
 * one logical line, with the secret placed where it is sent (URL, body, form, upload, pipe,
 * redirect); `markdown_exfil`, `credential_read`, `sensitive_path` and `credential_use`.
 */
import type { Hit, LineContext, LineRule } from "./types.ts";
import { pipeSegments, worst } from "./types.ts";

export const SHELL_SENDER =
  /\b(?:curl|wget|nc|ncat|netcat|socat|telnet|scp|sftp|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b|\brsync\b.*\s[^\s:]+:/i;
export const CODE_SENDER =
  /\brequests\.(?:post|put|patch|get|request)\s*\(|\bfetch\s*\(|\bhttpx\.\w+\s*\(|\baxios(?:\.\w+)?\s*\(|\burlopen\s*\(|(?:\bhttps?|require\(\s*["'](?:node:)?https?["']\s*\))\.(?:request|get)\s*\(|\bgot(?:\.(?:post|put|patch|get))?\s*\(|\bHTTPS?Connection\s*\(|\baiohttp\b|\burllib3\b|\b(?:session|client)\.(?:post|put|patch)\s*\(|\bXMLHttpRequest\b|\bsendBeacon\s*\(|\bNet::HTTP\b|\bsmtplib\b|\bWebClient\b|\.(?:send|sendall|sendto)\s*\(/;

/**
 * Credential sources: files (public keys, ssh config and known_hosts are not secrets; `.env` when
 * read or uploaded, not `.env.example`) and the commands printing a stored token (`gh auth token`).
 */
export const CRED_FILE =
  /(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%)\/\.ssh\b(?!\/(?:config|known_hosts|authorized_keys)\b)(?!\/\S*\.pub\b)|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|\.aws\/credentials|\.gnupg\b|\.kube\/config|\.docker\/config\.json|\.netrc\b|\.npmrc\b|\.pypirc\b|\/etc\/shadow|\.git-credentials|\.config\/gh\/hosts\.yml|(?:@|<\s*|\bcat\s+|(?:^|\s)(?:-T|--upload-file)\s+|\bread(?:File(?:Sync)?|_text)?\s*\(\s*["'`]?|\bopen\s*\(\s*["'`]?)[^\s"'`]*(?<![\w.-])\.env(?![\w.-])|\/proc\/(?:self|\d+|\$\$|\$\w+)\/environ\b|\bgh\s+auth\s+token\b|\bgpg2?\b[^|;&]*--export-secret-(?:sub)?keys\b|\baws\s+configure\s+(?:get|export-credentials)\b|\baws\s+sts\s+get-session-token\b|\bgcloud\s+auth\s+(?:print-access-token|application-default\s+print-access-token)\b|\bsecurity\s+find-(?:generic|internet)-password\b|\bgit\s+credential\s+fill\b|\bkubectl\s+get\s+secrets?\b|\bop\s+read\s+op:|\bvault\s+kv\s+get\b/;
/** Using a key file is not sending it: `ssh -i`, `IdentityFile`, `--key`, download targets. */
export const CRED_USE_G =
  /(?:\s-i\s*|IdentityFile[=\s]+|--(?:key|cert|cacert|identity|private-key|ssh-key|netrc-file)[=\s]+|ssh-add\s+(?:-\S+\s+)*|ssh-keygen\b[^|;&]*?-f\s*|\s-o\s*|--output[=\s]+|(?<![=-])>>?\s*)["']?[^\s"';&|]+/g;

export const SECRET_VAR =
  /\$\{?(?:[A-Za-z_][A-Za-z0-9_]*?)?(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Za-z0-9_]*\}?/i;
export const CODE_SECRET =
  /(?:process\.env\.|process\.env\[["']|os\.environ\[["']|os\.environ\.get\(["']|os\.getenv\(["']|ENV\[["']|Deno\.env\.get\(["']|\$env:)[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL)/i;
export const ENV_DUMP =
  /\bprintenv\b|(?:^|[\s;&(`$])env\s*(?:$|\||\)|`)|(?:^|[\s;&(])set\s*\||\bexport\s+-p\b|\bGet-ChildItem\s+env:|\bgci\s+env:|\bdir\s+env:|\bdict\(\s*os\.environ\s*\)|\bos\.environ\.copy\(\)|\bstr\(\s*os\.environ\s*\)|\bjson\.dumps\(\s*(?:dict\()?os\.environ|JSON\.stringify\(\s*process\.env\s*\)|\bos\.environ\s*[,)}]|\bprocess\.env\s*[,)}]|\.\.\.process\.env\b|\/proc\/(?:self|\d+|\$\$|\$\w+)\/environ\b/;
const SUBST_SECRET =
  /\$\((?:[^()]*\b(?:cat|base64|tar|gzip|printenv|env|xxd)\b[^()]*)\)|`[^`]*\b(?:cat|base64|printenv|env)\b[^`]*`/;
export const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)$/;
export const URL_G = /https?:\/\/[^\s'"`<>|]+/gi;
const DATA_FLAG_G =
  /(?:^|\s)(?:-d|--data(?:-\w+)?|-F|--form(?:-string)?|--json|-T|--upload-file|--post-data|--post-file|--body-data|--body-file|-InFile|-Body)(?:=|\s+)?("[^"]*"|'[^']*'|\S+)/g;
const USER_FLAG = /(?:^|\s)(?:-u|--user)(?:=|\s+)?("[^"]*"|'[^']*'|\S+)/;
const HEADER_CONTEXT = /(?:^|\s)(?:-H|--header)\b|Authorization|Bearer|headers\s*[=:]|\bauth\s*=|X-API-Key|api-key:/i;
/** A DNS lookup whose queried name carries data: `$VAR`, `$(…)` or a code interpolation before a domain. */
const DNS_EXFIL =
  /\b(?:dig|nslookup|host|drill|ping|resolvectl\s+query|Resolve-DnsName)\s+[^|;&]*?(?:\$\([^)]*\)|`[^`]*`|\$\{?[A-Za-z_]\w*\}?)["']?[\w.-]*\.[A-Za-z0-9-]+\.[A-Za-z]{2,}/i;
const DNS_CODE =
  /\b(?:gethostbyname(?:_ex)?|getaddrinfo|resolver\.(?:resolve|query)|(?:\bdns|require\(\s*["'](?:node:)?dns["']\s*\))\.(?:lookup|resolve\w*|promises\.\w+)|Resolve-DnsName|InetAddress\.getByName|LookupHost|Dns\.GetHostEntry)\s*\(\s*(?:f["'][^"']*\{[^}]+\}[\w.-]*\.[\w-]+\.|["'`][^"'`]*\$\{[^}]+\}[\w.-]*\.[\w-]+\.|[A-Za-z_](?:[\w.[\]:()]|"[^"\n]{0,80}"|'[^'\n]{0,80}')*\s*\+\s*["'`][\w.-]*\.[\w-]+\.|["'][^"']*\{\}[\w.-]*\.[\w-]+\.[^"']*["']\s*\.format\(|["'][^"']*%s[\w.-]*\.[\w-]+\.)/;

export function hostOf(url: string): { host: string; https: boolean } {
  const m = /^(https?):\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^/:?#]+)/i.exec(url);
  return { host: (m?.[2] ?? "").toLowerCase(), https: (m?.[1] ?? "").toLowerCase() === "https" };
}

const isIp = (h: string) => /^\d{1,3}(?:\.\d{1,3}){3}$/.test(h) || h.startsWith("[");
const allLoopback = (line: string) => {
  const urls = line.match(URL_G) ?? [];
  return urls.length > 0 && urls.every((u) => LOOPBACK.test(hostOf(u).host));
};
const safeHttps = (line: string) => {
  const urls = line.match(URL_G) ?? [];
  return urls.length > 0 && urls.every((u) => hostOf(u).https && !isIp(hostOf(u).host));
};

const critical = (message: string): Hit => ({ severity: "critical", message });

/** A credential file placed where a shell sender sends it. */
function credentialSent(line: string): Hit | null {
  const stripped = line.replace(CRED_USE_G, " ");
  if (!CRED_FILE.test(stripped)) return null;
  for (const m of stripped.matchAll(DATA_FLAG_G))
    if (CRED_FILE.test(m[1]!)) return critical("credential file uploaded");
  const segs = pipeSegments(stripped);
  // Whether a stage before the current one names a credential file, kept as the loop goes.
  let credBefore = false;
  for (let i = 0; i < segs.length; i++) {
    if (i > 0 && !credBefore) credBefore = CRED_FILE.test(segs[i - 1]!);
    if (!SHELL_SENDER.test(segs[i]!) && !CODE_SENDER.test(segs[i]!)) continue;
    if (credBefore) return critical("credential file piped to a network sender");
    if (/<\s*["']?\S*/.test(segs[i]!) && CRED_FILE.test(segs[i]!.slice(segs[i]!.indexOf("<"))))
      return critical("credential file redirected into a network sender");
    if (/\b(?:scp|sftp|rsync)\b/.test(segs[i]!) && CRED_FILE.test(segs[i]!))
      return critical("credential file copied to a remote host");
  }
  for (const u of stripped.match(URL_G) ?? [])
    if (CRED_FILE.test(u)) return critical("credential file placed in a URL");
  if (SUBST_SECRET.test(stripped) && CRED_FILE.test(stripped.match(SUBST_SECRET)?.[0] ?? ""))
    return critical("credential file contents sent");
  if (CODE_SENDER.test(stripped)) return critical("credential file read and sent");
  return null;
}

/** A secret environment variable, or the whole environment, placed where it is sent. */
function envSent(line: string): Hit | null {
  const segs = pipeSegments(line);
  let secretBefore = false;
  for (let i = 1; i < segs.length; i++) {
    const prev = segs[i - 1]!;
    // A segment is read with its pipe back on (`set |`, `env |` are dumps only before a pipe).
    secretBefore ||= ENV_DUMP.test(`${prev}|`) || SECRET_VAR.test(prev) || CODE_SECRET.test(prev);
    if (!secretBefore || (!SHELL_SENDER.test(segs[i]!) && !CODE_SENDER.test(segs[i]!))) continue;
    if (!allLoopback(line)) return critical("environment secrets piped to a network sender");
    break;
  }
  const dumpInSubst =
    /\$\(\s*(?:printenv|env|set|export -p)\b[^)]*\)|`\s*(?:printenv|env)\b[^`]*`/.test(line) ||
    [...line.matchAll(/\$\(([^()]*)\)|`([^`]*)`/g)].some((m) => ENV_DUMP.test(`${m[1] ?? m[2]}|`));
  const codeDump = CODE_SENDER.test(line) && ENV_DUMP.test(line) && /os\.environ|process\.env/.test(line);
  if ((dumpInSubst || codeDump) && !allLoopback(line)) return critical("environment dump sent over the network");
  const hasVar = SECRET_VAR.test(line) || CODE_SECRET.test(line);
  if (!hasVar || allLoopback(line)) return null;
  let hit: Hit | null = null;
  for (const u of line.match(URL_G) ?? []) {
    if (!SECRET_VAR.test(u) && !/\$\{\s*process\.env|\$\{\s*os\.environ/.test(u)) continue;
    const { host, https } = hostOf(u);
    if (LOOPBACK.test(host)) continue;
    const q = u.indexOf("?");
    const inQuery = q >= 0 && SECRET_VAR.test(u.slice(q)) && !SECRET_VAR.test(u.slice(0, q));
    hit = worst(
      hit,
      inQuery && https && !isIp(host)
        ? { severity: "high", message: "secret sent as a URL query value" }
        : critical("secret placed in a URL"),
    );
  }
  for (const m of line.matchAll(DATA_FLAG_G))
    if (SECRET_VAR.test(m[1]!)) hit = worst(hit, critical("secret placed in a request body or form"));
  const user = USER_FLAG.exec(line);
  if (user && SECRET_VAR.test(user[1]!))
    hit = worst(
      hit,
      safeHttps(line)
        ? { severity: "high", message: "secret sent as a -u/--user credential" }
        : critical("secret sent as a credential over plain http"),
    );
  if (hit !== null) return hit;
  if (CODE_SENDER.test(line) && CODE_SECRET.test(line) && !HEADER_CONTEXT.test(line))
    return { severity: "high", message: "secret environment variable passed to a network call" };
  if (HEADER_CONTEXT.test(line)) {
    // The header exemption is for https: over plain http the secret crosses the network in clear.
    const clear = (line.match(URL_G) ?? []).some((u) => {
      const { host, https } = hostOf(u);
      return !https && host !== "" && !LOOPBACK.test(host);
    });
    if (clear) return critical("secret sent in a header over plain http");
    return { severity: "low", message: "secret used in an authorization header", rule: "credential_use" };
  }
  return null;
}

export const exfiltration: LineRule = {
  rule: "exfiltration",
  keywords: [
    "curl",
    "wget",
    "nc ",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "scp",
    "sftp",
    "rsync",
    "invoke-",
    "iwr",
    "irm",
    "requests.",
    "fetch",
    "httpx",
    "axios",
    "urlopen",
    "http.request",
    "xmlhttprequest",
    "sendbeacon",
    "net::http",
    "smtplib",
    "webclient",
    ".send",
    "dig ",
    "nslookup",
    "host ",
    "drill ",
    "ping ",
    "https.",
    "got(",
    "got.",
    "connection(",
    "aiohttp",
    "urllib3",
    "session.",
    "client.",
    "resolvectl",
    "resolve-dnsname",
    "gethostbyname",
    "getaddrinfo",
    "resolver.",
    "dns.",
    'dns")',
    "dns')",
    'https")',
    "https')",
    'http")',
    "http')",
    "getbyname",
    "lookuphost",
    "gethostentry",
  ],
  category: "exfiltration",
  quick:
    /curl|wget|\bnc\b|ncat|netcat|socat|telnet|scp|sftp|rsync|Invoke-|\biwr\b|\birm\b|requests\.|fetch\s*\(|httpx|axios|urlopen|http\.request|XMLHttpRequest|sendBeacon|Net::HTTP|smtplib|WebClient|\.send|(?:dig|nslookup|host|drill|ping|resolvectl|Resolve-DnsName)\s[^\n]*[$`]|https?\.(?:request|get)|\bgot\b|HTTPS?Connection|aiohttp|urllib3|(?:session|client)\.(?:post|put|patch)|gethostbyname|getaddrinfo|resolver\.|dns\.|require\(\s*["'](?:node:)?(?:dns|https?)["']\s*\)|getByName|LookupHost|GetHostEntry/i,
  check(line) {
    if (DNS_EXFIL.test(line) || DNS_CODE.test(line)) return critical("data exfiltrated through DNS lookups");
    if (!SHELL_SENDER.test(line) && !CODE_SENDER.test(line)) return null;
    return worst(credentialSent(line), envSent(line));
  },
};

/** `{{ … }}` or `${ … }`: a template span, which may hold spaces of its own (`?d={{ API_KEY }}`). */
const TEMPLATE_SPAN = String.raw`\{\{[^}\n]{0,80}\}\}|\$\{[^}\n]{0,80}\}`;
/** A URL up to one of the `stop` characters (a character-class body), template spans kept whole. */
const urlUntil = (stop: string) => String.raw`https?:\/\/(?:${TEMPLATE_SPAN}|[^${stop}])+`;
const PAREN_URL = urlUntil(String.raw`)\s>`);
const QUOTED_URL = urlUntil(String.raw`"'\s>`);
const MD_IMAGE = new RegExp(
  String.raw`!\[[^\]]*\]\(\s*<?(${PAREN_URL})|<img\b[^>]*\bsrc\s*=\s*["']?(${QUOTED_URL})`,
  "gi",
);
const MD_LINK = new RegExp(
  String.raw`(?<!!)\[[^\]]*\]\(\s*<?(${PAREN_URL})|<a\b[^>]*\bhref\s*=\s*["']?(${QUOTED_URL})|` +
    String.raw`^\s{0,3}\[[^\]]+\]:\s*<?(${urlUntil(String.raw`\s>`)})|<(${urlUntil(String.raw`>\s`)})>`,
  "gi",
);
/** A bare URL in prose whose query carries conversation data: the agent is asked to visit it. */
const BARE_DATA_URL_G = new RegExp(
  String.raw`(?<![(<"'=\]])\bhttps?:\/\/[^\s)<>"'\`]*\?(?:${TEMPLATE_SPAN}|[^\s)<>"'\`])*`,
  "gi",
);
const TEMPLATE = /\$\{[^}]+\}|\{\{[^}]+\}\}|\$[A-Za-z_]\w*|%[A-Z_]+%|\[\[[^\]]+\]\]/;

const DATA_TEMPLATE =
  /(?:\$\{|\{\{)\s*[\w.]*?(?:secret|token|api_?key|password|passwd|credential|cookie|session|env|history|conversation|chat|context|prompt|messages?|memory|summary|data|content|input|output|response|answer|email|ssn|card)\w*\s*(?:\||\}\}|\})/i;

export const markdownExfil: LineRule = {
  rule: "markdown_exfil",
  keywords: ["](", "<img", "<a ", "]:", "{{", "${"],
  category: "exfiltration",
  quick: /(?:\]\(|<img|<a\s|\]:|<https?:|https?:\/\/)[^\n]*(?:\$|\{\{|%[A-Z]|\[\[)/i,
  check(line, ctx) {
    for (const m of line.matchAll(MD_IMAGE))
      if (TEMPLATE.test(m[1] ?? m[2] ?? "")) return { severity: "high", message: "image URL interpolates a variable" };
    for (const m of line.matchAll(MD_LINK)) {
      const url = m[1] ?? m[2] ?? m[3] ?? m[4] ?? "";
      const q = url.search(/[?#]/);
      if (q >= 0 && TEMPLATE.test(url.slice(q)))
        return { severity: "high", message: "link query interpolates a variable" };
      const host = /^https?:\/\/([^/?#]*)/i.exec(url)?.[1] ?? "";
      if (TEMPLATE.test(host)) return { severity: "high", message: "link host interpolates a variable" };
      // A path like /{{owner}}/{{repo}} is a template; one carrying the conversation or a secret is a leak.
      if (DATA_TEMPLATE.test(url))
        return { severity: "high", message: "link URL interpolates conversation data or a secret" };
    }
    if (ctx.location === "markdown" && !ctx.fenced)
      for (const m of line.matchAll(BARE_DATA_URL_G))
        if (DATA_TEMPLATE.test(m[0]))
          return { severity: "high", message: "URL in prose interpolates conversation data or a secret" };
    return null;
  },
};

const PRIVATE_CRED =
  /(?:~|\$HOME|\$\{HOME\}|\.)?\/?\.ssh\/id_[A-Za-z0-9_]+\b(?!\.pub)|\.aws\/credentials|\.git-credentials|\.docker\/config\.json|\.config\/gcloud\/\S*credentials|\.kube\/config/;
const READ_VERB =
  /\b(?:cat|less|more|head|tail|bat|strings|xxd|od|base64|type|Get-Content|gc|cp|tar|zip|open|readFile|readFileSync|read_text|read_bytes|File\.read)\b/;

export const credentialRead: LineRule = {
  rule: "credential_read",
  keywords: [".ssh/id_", ".aws/credentials", ".git-credentials", ".docker/config", "gcloud", ".kube/config"],
  category: "exfiltration",
  quick: /\.ssh\/id_|\.aws\/credentials|\.git-credentials|\.docker\/config|gcloud|\.kube\/config/,
  check(line) {
    const m = PRIVATE_CRED.exec(line.replace(CRED_USE_G, " "));
    if (!m) return null;
    const before = line.slice(0, line.indexOf(m[0]));
    if (!READ_VERB.test(before)) return null;
    return { severity: "high", message: "reads a private key or cloud credential file" };
  },
};

const SENSITIVE_MENTION =
  /~\/\.ssh\b|\$HOME\/\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws\/credentials|\.gnupg\b|\.kube\/config|\.docker\/config\.json|\.netrc\b|\.pypirc\b|\/etc\/shadow|\.git-credentials|\/proc\/self\/environ/;

export const sensitivePath: LineRule = {
  rule: "sensitive_path",
  keywords: [
    "/.ssh",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".aws/credentials",
    ".gnupg",
    ".kube/config",
    ".docker/config.json",
    ".netrc",
    ".pypirc",
    "/etc/shadow",
    ".git-credentials",
    "/proc/self/environ",
  ],
  category: "exfiltration",
  quick: SENSITIVE_MENTION,
  check(line, _ctx: LineContext) {
    return SENSITIVE_MENTION.test(line) ? { severity: "low", message: "mentions a credential path" } : null;
  },
};
