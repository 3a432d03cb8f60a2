/**
 * @module cli/commands/mcp/add
 * `lemon mcp add NAME (--stdio CMD | --http URL | --sse URL) [options] [-- ARGS …]` (cli.md §3.1),
 * and Claude Code's spelling: `mcp add NAME CMD [ARGS…]`, `mcp add -t http NAME URL`, `-e`, `-H`,
 * `-s local|project|user`. The argument vector is never a shell string.
 */
import type { LemonError } from "../../../core/index.ts";
import type { McpServerConfig } from "../../../core/mcp/index.ts";
import { usageError } from "../../args.ts";
import { COMMON_FLAGS, defineCommand, type FlagSpec } from "../../command.ts";
import { hint, printJson } from "../../output.ts";
import { addedLine, globalFlag, mcpApi } from "./shared.ts";

const str = (description: string, value: string) => ({ type: "string", description, value }) as const;
const list = (description: string, value: string) => ({ type: "list", description, value }) as const;
const int = (description: string) => ({ type: "integer", description, value: "ms" }) as const;

const FLAGS = {
  stdio: str("Program to run (argv[0]); its arguments go after --", "cmd"),
  http: str("Streamable HTTP endpoint", "url"),
  sse: str("Legacy HTTP+SSE endpoint", "url"),
  transport: {
    type: "string",
    short: "t",
    description: "Claude Code's spelling of the transport",
    value: "type",
    choices: ["stdio", "http", "sse"],
  },
  env: { ...list("Child environment variable", "K=V"), short: "e" },
  "env-var": list("Copy this variable from lemon's environment", "NAME"),
  header: { ...list("HTTP header", "K: V"), short: "H" },
  "server-cwd": str("Working directory of the server process", "dir"),
  approval: { ...str("Tool call approval; default always", "mode"), choices: ["always", "never"] },
  "tool-approval": list("Per-tool approval", "TOOL=always|never"),
  "allow-tool": list("Only expose this tool", "tool"),
  "block-tool": list("Never expose this tool", "tool"),
  "timeout-ms": int("Request timeout"),
  "tool-timeout-ms": int("Tool call timeout"),
  "ready-timeout-ms": int("Connect + initialize timeout"),
  "oauth-client-id": str("OAuth client id", "id"),
  "oauth-client-secret-env": str("Env var holding the OAuth client secret", "NAME"),
  "oauth-flow": { ...str("OAuth flow", "flow"), choices: ["client_credentials", "pkce"] },
  "oauth-scope": list("OAuth scope", "scope"),
  disabled: { type: "boolean", description: "Add the entry disabled" },
  replace: { type: "boolean", description: "Replace an existing entry of the same name" },
  scope: {
    type: "string",
    short: "s",
    description: "Claude Code's scope: user = --global",
    value: "scope",
    choices: ["local", "project", "user"],
  },
  ...globalFlag,
} as const satisfies Record<string, FlagSpec>;

/** `K=V`, or for headers also `K: V` (whichever separator comes first). */
function pair(flag: string, raw: string, colon: boolean): [string, string] {
  const eq = raw.indexOf("=");
  const co = colon ? raw.indexOf(":") : -1;
  const at = co >= 0 && (eq < 0 || co < eq) ? co : eq;
  const key = at > 0 ? raw.slice(0, at).trim() : "";
  if (key === "") throw usageError(`--${flag} expects ${colon ? "K=V or 'K: V'" : "K=V"}`);
  return [key, raw.slice(at + 1).trim()];
}

function pairs(flag: string, values: readonly string[], colon = false): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  return Object.fromEntries(values.map((v) => pair(flag, v, colon)));
}

/** The transport flags of both spellings. */
interface Spelled {
  stdio?: string | undefined;
  http?: string | undefined;
  sse?: string | undefined;
  transport?: string | undefined;
}

const TRANSPORTS = ["stdio", "http", "sse"] as const;

/** The transport and its target from either spelling; positionals after NAME are CMD/URL and ARGS. */
function target(flags: Spelled, words: readonly string[], tail: readonly string[]) {
  const named = TRANSPORTS.filter((t) => flags[t] !== undefined);
  const extra = words.slice(1);
  if (named.length > 1 || (named.length === 1 && flags.transport !== undefined))
    throw usageError("exactly one of --stdio, --http or --sse is required");
  if (named.length === 1) {
    const transport = named[0]!;
    if (extra.length > 0) throw usageError(`unexpected argument '${extra[0]}'`);
    if (transport !== "stdio" && tail.length > 0) throw usageError("arguments after -- are only valid with --stdio");
    const value = flags[transport] ?? "";
    if (transport === "stdio" && /\s/.test(value))
      throw usageError(
        "--stdio takes the program only",
        "pass arguments after --: lemon mcp add NAME --stdio npx -- -y pkg",
      );
    return { transport, value, args: [...tail] };
  }
  // `--transport` has these choices, so the lookup always finds one.
  const transport = TRANSPORTS.find((t) => t === (flags.transport ?? "stdio")) ?? "stdio";
  if (transport === "stdio") {
    const argv = [...extra, ...tail];
    if (argv.length === 0) throw usageError("exactly one of --stdio, --http or --sse is required");
    return { transport, value: argv[0]!, args: argv.slice(1) };
  }
  if (extra.length !== 1 || tail.length > 0) throw usageError(`--transport ${transport} takes one URL after NAME`);
  return { transport, value: extra[0]!, args: [] };
}

const ALL_FLAGS: Readonly<Record<string, FlagSpec>> = { ...FLAGS, ...COMMON_FLAGS };

/** Whether `tok` is a flag whose value is the next token (`-e K=V`, `--cwd DIR`), not a positional. */
function takesNext(tok: string): boolean {
  if (tok.includes("=")) return false;
  const f = tok.startsWith("--")
    ? (ALL_FLAGS[tok.slice(2)] ?? Object.values(ALL_FLAGS).find((x) => x.aliases?.includes(tok.slice(2))))
    : Object.values(ALL_FLAGS).find((x) => x.short === tok.slice(1));
  return f !== undefined && f.type !== "boolean";
}

/**
 * Claude Code's spelling puts the program's own options on the line (`mcp add NAME npx -y pkg`);
 * they are read as lemon's, so an unknown one after NAME and a program gets the way to pass them.
 */
function explain(err: LemonError, tokens: readonly string[]): LemonError {
  const m = /^unknown option '(-[^']*)'$/.exec(err.message);
  if (m === null || err.hint !== undefined) return err;
  const at = tokens.findIndex((t) => t === m[1] || t.startsWith(`${m[1]}=`));
  let words = 0;
  let stdio = false;
  for (let i = 0; i < at; i++) {
    const tok = tokens[i]!;
    if (tok === "--stdio" || tok.startsWith("--stdio=")) stdio = true;
    if (!tok.startsWith("-") || tok === "-") words++;
    else if (takesNext(tok)) i++;
  }
  // NAME plus the program (`--stdio` names the program itself).
  if (words + (stdio ? 1 : 0) < 2) return err;
  const form = stdio ? "lemon mcp add NAME --stdio npx -- -y pkg" : "lemon mcp add NAME -- npx -y pkg";
  return usageError(err.message, `pass arguments after --: ${form}`);
}

export default defineCommand({
  name: "add",
  description: "Add an MCP server to lemon's mcp.json",
  args: [
    { name: "name", description: "Server name", required: true },
    { name: "target", description: "Program (stdio) or URL (-t http|sse), Claude Code's spelling" },
    { name: "args", description: "Arguments of the program", variadic: true },
  ],
  flags: FLAGS,
  takesTail: true,
  explain,
  async run({ flags, args, words, tail, io }) {
    const t = target(flags, words, tail);
    const stdio = t.transport === "stdio";
    if (!stdio && (flags.env.length > 0 || flags["env-var"].length > 0 || flags["server-cwd"] !== undefined))
      throw usageError("--env, --env-var and --server-cwd are only valid with --stdio");
    const oauthGiven =
      flags["oauth-client-id"] !== undefined ||
      flags["oauth-client-secret-env"] !== undefined ||
      flags["oauth-flow"] !== undefined ||
      flags["oauth-scope"].length > 0;
    if (stdio && (flags.header.length > 0 || oauthGiven))
      throw usageError("--header and --oauth-* are only valid with --http or --sse");
    const userScope = flags.scope === "user";
    if (flags.scope !== undefined && flags.global && !userScope)
      throw usageError(`--global contradicts --scope ${flags.scope}`);

    const entry: McpServerConfig = { name: args.name, type: t.transport };
    if (flags.disabled) entry.enabled = false;
    if (stdio) {
      entry.command = t.value;
      entry.args = t.args;
      const env = pairs("env", flags.env);
      if (env) entry.env = env;
      if (flags["env-var"].length > 0) entry.env_vars = flags["env-var"];
      if (flags["server-cwd"] !== undefined) entry.cwd = flags["server-cwd"];
    } else {
      entry.url = t.value;
      const h = pairs("header", flags.header, true);
      if (h) entry.headers = h;
      if (oauthGiven) {
        const oauth: Record<string, unknown> = {};
        if (flags["oauth-client-id"] !== undefined) oauth.client_id = flags["oauth-client-id"];
        if (flags["oauth-client-secret-env"] !== undefined) oauth.client_secret_env = flags["oauth-client-secret-env"];
        if (flags["oauth-flow"] !== undefined)
          oauth.flow = flags["oauth-flow"] === "pkce" ? "authorization_code_pkce" : flags["oauth-flow"];
        if (flags["oauth-scope"].length > 0) oauth.scopes = flags["oauth-scope"];
        entry.oauth = oauth;
      }
    }
    entry.approval = flags.approval === "never" ? "never" : "always";
    const toolApprovals = pairs("tool-approval", flags["tool-approval"]);
    if (toolApprovals) {
      for (const v of Object.values(toolApprovals))
        if (v !== "always" && v !== "never") throw usageError("--tool-approval expects TOOL=always|never");
      entry.tool_approvals = toolApprovals as Record<string, "always" | "never">;
    }
    if (flags["allow-tool"].length > 0) entry.allow_tools = flags["allow-tool"];
    if (flags["block-tool"].length > 0) entry.block_tools = flags["block-tool"];
    if (flags["timeout-ms"] !== undefined) entry.timeout_ms = flags["timeout-ms"];
    if (flags["tool-timeout-ms"] !== undefined) entry.tool_timeout_ms = flags["tool-timeout-ms"];
    if (flags["ready-timeout-ms"] !== undefined) entry.ready_timeout_ms = flags["ready-timeout-ms"];

    const r = await mcpApi(io, flags).addDetailed(entry, { global: flags.global || userScope, replace: flags.replace });
    if (flags.json)
      return printJson(io, { ok: true, action: r.action, scope: r.scope, file: r.file, server: r.server });
    io.out(addedLine(args.name, r));
    // Only values that may be credentials stay in shell history worth warning about (cli.md §3.1).
    if (flags.env.length > 0 || flags.header.length > 0 || flags["oauth-client-secret-env"] !== undefined)
      hint(io, flags.quiet, "shell history may retain credential arguments");
  },
});
