/**
 * @module child-env
 * The environment lemon gives a child it starts on the user's behalf (mcp.md §5.1): the safe
 * default set, the named `env_vars`, then `env`. MCP stdio servers and automation agent commands
 * (install.md §13.4, the curator's review) use this one definition.
 */

const POSIX_SAFE = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"];
const WINDOWS_SAFE = [
  "APPDATA",
  "COMSPEC",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATH",
  "PATHEXT",
  "PROCESSOR_ARCHITECTURE",
  "PROGRAMDATA",
  "PROGRAMFILES",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "TMP",
  "USERNAME",
  "USERPROFILE",
  "WINDIR",
];
const PROXY_AND_CA = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

/** The names of the safe default set on `platform`. */
export function safeEnvNames(platform: string): string[] {
  return [...(platform === "win32" ? WINDOWS_SAFE : POSIX_SAFE), ...PROXY_AND_CA];
}

/** An env value by name; Windows names are case-insensitive (`Path`); POSIX names are not. */
export function lookup(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  platform: string,
): string | undefined {
  if (platform !== "win32") return env[name];
  if (env[name] !== undefined) return env[name];
  const upper = name.toUpperCase();
  for (const [k, v] of Object.entries(env)) if (k.toUpperCase() === upper) return v;
  return undefined;
}

/**
 * Child env = safe set ∪ `env_vars` ∪ `env` (which wins). Copied values are taken only when set,
 * and never when they start with `()`: a bash exported function rides in a value like that.
 */
export function childEnv(
  parent: Readonly<Record<string, string | undefined>>,
  platform: string,
  entry: { env_vars?: readonly string[]; env?: Readonly<Record<string, string>> },
): Record<string, string> {
  const out: Record<string, string> = {};
  const copy = (name: string) => {
    const v = lookup(parent, name, platform);
    if (v !== undefined && !v.startsWith("()")) out[name] = v;
  };
  for (const name of safeEnvNames(platform)) copy(name);
  for (const name of entry.env_vars ?? []) copy(name);
  for (const [k, v] of Object.entries(entry.env ?? {})) out[k] = v;
  return out;
}
