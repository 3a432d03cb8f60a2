/**
 * @module skills/audit/rules/system
 * What a command does to the machine (install.md §7.3): `persistence`, `reverse_shell`,
 * `tunnel_or_dropsite`, `mining`, `privilege`, `path_traversal` (`destructive`: destructive.ts).
 */
import type { LineRule } from "./types.ts";
import { byLocation, pipeSegments, stdinInterpreterAfter } from "./types.ts";

export { destructive } from "./destructive.ts";

const PERSIST_TARGET = String.raw`(?:\$PROFILE\b|\S*authorized_keys\d?|\/etc\/sudoers(?:\.d\/\S*)?|(?:\S*\/)?\.(?:bashrc|zshrc|profile|bash_profile|zprofile|bash_login|zshenv|zlogin|kshrc)\b|\S*config\.fish|\S*fish\/conf\.d\/\S*|\/etc\/profile(?:\.d\/\S*)?|\/etc\/rc\.local|\/etc\/cron\S*|\/var\/spool\/cron\S*|\/etc\/systemd\/\S*|\S*\.config\/systemd\/\S*|\S*Library\/LaunchAgents\S*|\/Library\/LaunchDaemons\S*|\/etc\/init\.d\/\S*|\S*\.config\/autostart\S*)`;
const AGENT_TARGET = String.raw`(?:\S*\bAGENTS\.md|\S*\bCLAUDE\.md|\S*\.cursorrules|\S*\.claude\/\S*|\S*\.codex\/\S*|\S*\.lemon\/\S*|\S*GEMINI\.md|\S*copilot-instructions\.md)`;
const writeTo = (target: string) =>
  new RegExp(
    String.raw`(?:(?:^|[\s;&|)0-9])>>?|\btee\s+(?:-a\s+)?|\bsed\s+(?:-\w+\s+)*-i\S*\s+(?:-\w+\s+)*(?:'[^']*'|"[^"]*"|\S+)\s+|\b(?:cp|mv|install|ln)\s+(?:-\S+\s+)*\S+\s+|\b(?:Add-Content|Set-Content|Out-File)\b[^|;]*?)\s*["']?${target}|\b(?:open|appendFile|appendFileSync|writeFile|writeFileSync|write_text)\s*\(\s*(?:[^,)]*?)["'\`]?${target}["'\`]?\s*(?:,\s*["'][aw+]|,|\))`,
  );
const PERSIST_WRITE = writeTo(PERSIST_TARGET);
const AGENT_WRITE = writeTo(AGENT_TARGET);
const SERVICE =
  /\|\s*crontab\b|\bcrontab\s+(?:-u\s+\S+\s+)?(?!-[lre]\b)(?:-\s|-$|[^\s-]\S*)|\bsystemctl\s+(?:--user\s+|--now\s+|--system\s+)*enable\b|\blaunchctl\s+(?:load|bootstrap)\b|\bschtasks\b.*\/create\b|\breg\s+add\b.*\\Run\b|New-ItemProperty\b.*\\Run\b/i;

/** A start-up file named in code (`Path.home() / ".bashrc"`, `join(homedir(), '.zshrc')`) and written. */
const RC_IN_CODE =
  /["'`/]\.(?:bashrc|zshrc|profile|bash_profile|zprofile|bash_login|zshenv|zlogin|kshrc)["'`]|["'`/]config\.fish["'`]/;
const CODE_WRITES =
  /\b(?:appendFile|appendFileSync|writeFile|writeFileSync|createWriteStream|write_text|Add-Content|Set-Content)\b|\bopen\s*\([^)]*\)?[^)]*,\s*["'][aw+]|\.open\s*\(\s*["'][aw]|\bOut-File\b.*-Append|>>/;
/** PATH starting with a temporary, shared-memory or relative directory: whatever is dropped there wins. */
const PATH_HIJACK =
  /(?:^|[\s;&(])(?:export\s+)?PATH=["']?(?:\/tmp\b|\/dev\/shm\b|\/var\/tmp\b|\$\{?TMPDIR\}?|\.\/?(?::|["']?$)|:)|\bset\s+-gx\s+PATH\s+(?:\/tmp|\/dev\/shm|\/var\/tmp)\b|\bfish_add_path\s+(?:-\w+\s+)*(?:\/tmp|\/dev\/shm|\/var\/tmp)\b/;
/** `alias sudo=…`, a `sudo()` function, or an executable named sudo dropped into a bin directory. */
const SUDO_HIJACK =
  /\balias\s+(?:sudo|su|doas|passwd|ssh|gpg)=(?!["'](?:sudo|doas)\s*["'](?:\s|$)|(?:sudo|doas)\s*$)|(?:^|[\s;&])(?:function\s+)?(?:sudo|su|doas|passwd)\s*\(\s*\)\s*\{|(?:>|\btee\s+(?:-a\s+)?|\b(?:cp|mv|install|ln)\s+(?:-\S+\s+)*\S+\s+)["']?\S*\/(?:bin|\.local\/bin|sbin)\/(?:sudo|su|doas|passwd|ssh)["']?(?:\s|$)/;

/**
 * A file copied, moved or linked into a bin directory under the name of a command people run
 * every day: whatever comes first on PATH runs instead of the real one (`ln -sf x ~/.local/bin/git`).
 */
const SHADOWED = [
  "git|ssh|scp|sftp|gpg|curl|wget|python[0-9.]*|pip[0-9.]*|node|npm|npx|pnpm|yarn|bun|deno",
  "ls|cat|cp|mv|rm|cd|bash|sh|zsh|env|which|make|docker|kubectl|aws|gcloud|az|gh|op|vault",
  "terraform|ssh-agent|ssh-add|go|cargo|rustc|java|code|vim|nano|less",
].join("|");
/** Shell writes (`>`, `tee`, `cp`/`mv`/`install`/`ln SRC`) aimed at the path that follows. */
const SHELL_WRITE_TO = String.raw`(?:(?:^|[\s;&|)])>>?\s*|\btee\s+(?:-a\s+)?|\b(?:cp|mv|install|ln)\s+(?:-\S+\s+)*\S+\s+)`;
const BIN_PATH = String.raw`["'\`/](?:\.local\/bin|bin|sbin)\/(?:${SHADOWED})["'\`]`;
const BIN_SHADOW = new RegExp(
  String.raw`${SHELL_WRITE_TO}["']?\S*\/(?:\.local\/bin|bin|sbin)\/(?:${SHADOWED})["']?(?=\s|$|[;&|)])|` +
    // From code: the bin path is the destination (a link, copy or move's last argument, a write's first).
    String.raw`\b(?:symlink|copyFile|rename|link|copy\w*|move)(?:Sync)?\s*\([^;\n]{0,200}?${BIN_PATH}\s*\)|` +
    String.raw`\b(?:writeFile|appendFile|write_text|write_bytes)(?:Sync)?\s*\(\s*[^,;\n]{0,200}?${BIN_PATH}\s*,`,
);
/** A git hook written into a repository: it runs on the next commit, checkout or push. */
const GIT_HOOK = new RegExp(
  String.raw`(?:${SHELL_WRITE_TO}|\b(?:writeFile|writeFileSync|write_text|open)\s*\(\s*)` +
    String.raw`["'\`]?\S*\.git\/hooks\/[\w-]+|` +
    String.raw`\bgit\s+config\s+(?:--\w+\s+)*core\.hooksPath\s+\S`,
);

export const persistence: LineRule = {
  rule: "persistence",
  keywords: [
    "path=",
    "path ",
    "$profile",
    "alias ",
    "sudo",
    "su(",
    "doas",
    "passwd",
    ".kshrc",
    "conf.d",
    "authorized_keys",
    "sudoers",
    ".bashrc",
    ".zshrc",
    ".profile",
    "bash_profile",
    "zprofile",
    "bash_login",
    "zshenv",
    "zlogin",
    "config.fish",
    "/etc/",
    "cron",
    "systemd",
    "systemctl",
    "launch",
    "init.d",
    "autostart",
    "agents.md",
    "claude.md",
    "cursorrules",
    ".claude",
    ".codex",
    ".lemon",
    "gemini",
    "copilot-instructions",
    "git config",
    "schtasks",
    "reg add",
    "\\run",
    "bin/",
    ".git/hooks",
    "hookspath",
  ],
  category: "persistence",
  quick:
    /bin\/|\.git\/hooks|hooksPath|PATH|PROFILE|alias\s|sudo|\bsu\s*\(|doas|passwd|\.kshrc|conf\.d|authorized_keys|sudoers|\.bashrc|\.zshrc|\.profile|bash_profile|zprofile|bash_login|zshenv|zlogin|config\.fish|\/etc\/|cron|systemd|systemctl|Launch|launchctl|init\.d|autostart|AGENTS\.md|CLAUDE\.md|cursorrules|\.claude|\.codex|\.lemon|GEMINI|copilot-instructions|git config|schtasks|reg add|\\Run/i,
  check(line, ctx) {
    if (PERSIST_WRITE.test(line))
      return { severity: byLocation(ctx), message: "writes a login, sudo, ssh or autostart file" };
    if (SERVICE.test(line)) return { severity: byLocation(ctx), message: "installs a scheduled job or service" };
    if (RC_IN_CODE.test(line) && CODE_WRITES.test(line))
      return { severity: byLocation(ctx), message: "writes a shell start-up file" };
    if (SUDO_HIJACK.test(line))
      return { severity: byLocation(ctx), message: "shadows sudo or another credential prompt" };
    if (PATH_HIJACK.test(line))
      return { severity: byLocation(ctx), message: "puts a temporary or relative directory first on PATH" };
    if (BIN_SHADOW.test(line))
      return { severity: byLocation(ctx), message: "shadows a common command in a bin directory" };
    if (GIT_HOOK.test(line)) return { severity: "high", message: "installs a git hook" };
    if (AGENT_WRITE.test(line)) return { severity: "high", message: "writes into agent configuration" };
    if (/\bgit\s+config\s+--global\b/.test(line))
      return { severity: "medium", message: "changes global git configuration" };
    return null;
  },
};

const DEV_TCP_G = /\/dev\/(?:tcp|udp)\/([^\s/'"]+)\/(?:\d+|\$\{?\w+\}?)/g;
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i;
const INTERACTIVE =
  /\b(?:ba|z)?sh\b[^|;]*\s-i\b|\s-i\s*[>&]|[0-2]?>&\s*[0-2]\b.*\/dev\/tcp|\/dev\/tcp.*[0-2]>&[0-2]|0<&\d|<&\d+\s*\|\s*while|\$line\b|exec\s+\/bin\/(?:ba)?sh/;
const REVERSE =
  /\b(?:ba|z)?sh\s+-i\s*>&|\b(?:nc|ncat|netcat)\b[^|;]*\s-(?:e|c)\s+\S|\bncat\b.*--(?:exec|sh-exec|lua-exec)\b|\bsocat\b.*\b(?:exec|system):|\bsocat\b.*\bpty\b.*\btcp|\bmkfifo\b.*\b(?:nc|ncat|netcat|telnet|openssl\s+s_client)\b|\b(?:ba|z)?sh\s+-i\b.*\|\s*(?:nc|ncat|netcat|telnet|openssl)\b|\b(?:nc|ncat|netcat|telnet|openssl\s+s_client)\b[^|]*\|\s*(?:\/bin\/)?(?:ba|z)?sh\b|socket\.socket\(.*(?:subprocess|os\.dup2|pty\.spawn|\/bin\/(?:ba)?sh)|\bdup2\(\s*\w+\.fileno\(\)|pty\.spawn\(\s*["']\/bin\/(?:ba|z)?sh|Net\.Sockets\.TCPClient\(.*(?:GetStream|iex|Invoke-Expression)|\bfsockopen\(.*(?:exec|shell_exec|system|passthru|proc_open|\/bin\/sh)|\bsocket\(.*\bexec\b.*\/bin\/(?:ba)?sh|TCPSocket\.(?:new|open)\(.*(?:exec|spawn|popen|\/bin\/sh)|net\.(?:connect|Socket|createConnection)\b.*(?:child_process|spawn\(\s*["']\/bin\/(?:ba)?sh)|\bchild_process\b.*\bspawn\(\s*["'](?:\/bin\/)?(?:ba|z)?sh["'].*(?:\bnet\b["']?\)?\.(?:connect|Socket|createConnection)|new\s+net\.Socket)/i;

export const reverseShell: LineRule = {
  rule: "reverse_shell",
  keywords: [
    "/dev/tcp",
    "/dev/udp",
    "-i",
    "nc ",
    "ncat",
    "netcat",
    "socat",
    "mkfifo",
    "socket",
    "dup2",
    "pty.spawn",
    "tcpclient",
    "fsockopen",
    "tcpsocket",
    "net.",
    "telnet",
    "s_client",
    "child_process",
  ],
  category: "network",
  quick:
    /\/dev\/(?:tcp|udp)|\bsh\s+-i|\b(?:nc|ncat|netcat)\b|socat|mkfifo|socket|dup2|pty\.spawn|TCPClient|fsockopen|TCPSocket|net\.(?:connect|Socket|createConnection)|telnet|s_client|child_process/i,
  check(line) {
    if (REVERSE.test(line)) return { severity: "critical", message: "reverse shell" };
    const hosts = [...line.matchAll(DEV_TCP_G)].map((m) => m[1]!);
    if (hosts.length === 0) return null;
    if (INTERACTIVE.test(line)) return { severity: "critical", message: "reverse shell over /dev/tcp" };
    const segs = pipeSegments(line);
    const fed = segs.some((seg, i) => /\/dev\/(?:tcp|udp)\//.test(seg) && stdinInterpreterAfter(segs, i) >= 0);
    // install.md §7.3: any /dev/tcp socket is critical; a probe of a local port (`wait-for-db`)
    // reaches no other host and runs nothing it reads, so it stays informational.
    if (fed || !hosts.every((h) => LOOPBACK_HOST.test(h)))
      return { severity: "critical", message: fed ? "runs what a /dev/tcp socket sends" : "raw /dev/tcp socket" };
    return { severity: "medium", message: "raw /dev/tcp socket to a local port (port probe)" };
  },
};

const TUNNEL =
  /\bngrok\b|\bcloudflared\s+(?:access\s+)?tunnel\b|\blocaltunnel\b|\blt\s+--port\b|webhook\.site|\brequestbin\b|pipedream\.net|pastebin\.com|transfer\.sh\b|\bserveo\.net|\blocalhost\.run\b|\binteractsh\b|oastify\.com|burpcollaborator\.net/i;
/** Starting a tunnel or sending to a drop site, as opposed to naming one in prose. */
const TUNNEL_USE =
  /\bngrok\s+(?:http|tcp|tls|start|authtoken|config)\b|\bcloudflared\s+(?:access\s+)?tunnel\s+(?:--|run\b|create\b|route\b)|\b(?:npx\s+)?localtunnel\s+--|\blt\s+--port\b|\bssh\b.*\s-R\s.*(?:serveo\.net|localhost\.run)|(?:https?:\/\/|@)(?:[\w-]+\.)*(?:webhook\.site|pipedream\.net|pastebin\.com|transfer\.sh|requestbin\.\w+|oastify\.com|burpcollaborator\.net|interactsh\.\w+)|\binteractsh-client\b/i;

export const tunnelOrDropsite: LineRule = {
  rule: "tunnel_or_dropsite",
  category: "network",
  keywords: [
    "ngrok",
    "cloudflared",
    "localtunnel",
    "--port",
    "webhook.site",
    "requestbin",
    "pipedream",
    "pastebin",
    "transfer.sh",
    "serveo",
    "localhost.run",
    "interactsh",
    "oastify",
    "burpcollaborator",
  ],
  quick:
    /ngrok|cloudflared|localtunnel|lt\s+--port|webhook\.site|requestbin|pipedream|pastebin|transfer\.sh|serveo|localhost\.run|interactsh|oastify|burpcollaborator/i,
  check(line) {
    if (TUNNEL_USE.test(line))
      return { severity: "high", message: "opens a public tunnel or sends to an anonymous drop site" };
    return TUNNEL.test(line) ? { severity: "medium", message: "mentions a public tunnel or drop site" } : null;
  },
};

const MINING = /\bxmrig\b|stratum\+(?:tcp|ssl|tls):\/\/|\bcryptonight\b|\bminerd\b|\bcpuminer\b/i;

export const mining: LineRule = {
  rule: "mining",
  keywords: ["xmrig", "stratum", "cryptonight", "minerd", "cpuminer"],
  category: "mining",
  quick: /xmrig|stratum|cryptonight|minerd|cpuminer/i,
  check(line, ctx) {
    return MINING.test(line) ? { severity: byLocation(ctx), message: "cryptocurrency miner" } : null;
  },
};

const SETUID =
  /\bNOPASSWD\b|\bchmod\s+(?:-\w+\s+)*(?:[ugoa]*\+[rwxX]*s[rwxX]*|[2467][0-7]{3})\s|\bsetuid\s*\(|\bsetcap\b.*cap_setuid/;

export const privilege: LineRule = {
  rule: "privilege",
  keywords: ["nopasswd", "chmod", "setuid", "setcap", "sudo"],
  category: "privilege",
  quick: /NOPASSWD|chmod|setuid|setcap|sudo/,
  check(line) {
    if (SETUID.test(line + " ")) return { severity: "high", message: "grants passwordless or setuid privileges" };
    if (/\bchmod\s+(?:-\w*R\w*\s+)(?:777|a\+rwx)\b|\bchmod\s+(?:777|a\+rwx)\s+\/(?:\s|$)/.test(line))
      return { severity: "medium", message: "makes files world-writable recursively" };
    if (/(?:^|[\s;&|(`$])sudo\s+\S/.test(line)) return { severity: "low", message: "uses sudo" };
    return null;
  },
};

const SECRET_SYSTEM_FILE = /\/etc\/shadow\b|\/etc\/gshadow\b|\/proc\/(?:self|\d+|\*|\$\w+)\/environ\b/;
const READER =
  /\b(?:cat|less|more|head|tail|strings|xxd|od|base64|cp|tar|zip|open|readFile|readFileSync|read_text|Get-Content|gc|type|grep|awk|sed)\b|</;

export const pathTraversal: LineRule = {
  rule: "path_traversal",
  keywords: ["../..", "..\\..", "shadow", "environ"],
  category: "traversal",
  quick: /\.\.[/\\]\.\.[/\\]\.\.|shadow|environ/,
  check(line) {
    const m = SECRET_SYSTEM_FILE.exec(line);
    if (m && READER.test(line.slice(0, m.index)))
      return { severity: "high", message: "reads /etc/shadow or a process environment" };
    if (/(?:\.\.[/\\]){3,}/.test(line)) return { severity: "medium", message: "deep ../ path traversal" };
    return null;
  },
};
