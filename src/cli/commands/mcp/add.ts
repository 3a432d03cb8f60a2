/**
 * @module cli/commands/mcp/add
 * `lemon mcp add NAME (--stdio CMD | --http URL | --sse URL) [options] [-- ARGS …]` (cli.md §3.1).
 * Everything after `--` is the argument vector, never a shell string.
 */
import { invalidParams } from "../../../core/errors.ts";
import type { McpServerConfig } from "../../../core/mcp/index.ts";
import { defineLemonCommand } from "../../command.ts";
import { info, printJson } from "../../output.ts";
import { collect, globalArg, mcpApi, nameArg } from "./shared.ts";

const str = (description: string, valueHint?: string) =>
  ({ type: "string", description, ...(valueHint ? { valueHint } : {}) }) as const;

/** `K=V`, or for headers also `K: V` (whichever separator comes first). */
function pair(flag: string, raw: string, colon: boolean): [string, string] {
  const eq = raw.indexOf("=");
  const co = colon ? raw.indexOf(":") : -1;
  const at = co >= 0 && (eq < 0 || co < eq) ? co : eq;
  const key = at > 0 ? raw.slice(0, at).trim() : "";
  if (key === "") throw invalidParams(`--${flag} expects ${colon ? "K=V or 'K: V'" : "K=V"}`);
  return [key, raw.slice(at + 1).trim()];
}

function pairs(flag: string, values: string[], colon = false): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  return Object.fromEntries(values.map((v) => pair(flag, v, colon)));
}

function int(flag: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v).trim();
  if (!/^-?\d+$/.test(s)) throw invalidParams(`--${flag} must be an integer`);
  return Number(s);
}

export default defineLemonCommand({
  meta: { name: "add", description: "Add an MCP server to lemon's mcp.json" },
  args: {
    // Checked in run(): citty itself throws a non-LemonError for a missing positional.
    name: { type: "positional", description: "Server name", required: false },
    stdio: str("Program to run (argv[0]); arguments go after --", "cmd"),
    http: str("Streamable HTTP endpoint", "url"),
    sse: str("Legacy HTTP+SSE endpoint", "url"),
    env: str("Child environment variable (repeatable)", "K=V"),
    "env-var": str("Copy this variable from lemon's environment (repeatable)", "NAME"),
    header: str("HTTP header (repeatable)", "K=V"),
    "server-cwd": str("Working directory of the server process", "dir"),
    approval: str("Tool call approval: always or never (default always)", "always|never"),
    "tool-approval": str("Per-tool approval override (repeatable)", "TOOL=always|never"),
    "allow-tool": str("Only expose this tool (repeatable)", "tool"),
    "block-tool": str("Never expose this tool (repeatable)", "tool"),
    "timeout-ms": str("Request timeout", "n"),
    "tool-timeout-ms": str("Tool call timeout", "n"),
    "ready-timeout-ms": str("Connect + initialize timeout", "n"),
    "oauth-client-id": str("OAuth client id", "id"),
    "oauth-client-secret-env": str("Env var holding the OAuth client secret", "NAME"),
    "oauth-flow": str("OAuth flow", "client_credentials|pkce"),
    "oauth-scope": str("OAuth scope (repeatable)", "scope"),
    disabled: { type: "boolean", description: "Add the entry disabled" },
    replace: { type: "boolean", description: "Replace an existing entry of the same name" },
    ...globalArg,
  },
  async run({ args, io, rest, argv }) {
    nameArg(args.name, "add");
    const transports = (["stdio", "http", "sse"] as const).filter((t) => typeof args[t] === "string");
    if (transports.length !== 1) throw invalidParams("exactly one of --stdio, --http or --sse is required");
    const transport = transports[0]!;
    const stdio = transport === "stdio";
    const envs = collect(argv, "env");
    const envVars = collect(argv, "env-var");
    const headers = collect(argv, "header");
    const oauthFlags = ["oauth-client-id", "oauth-client-secret-env", "oauth-flow", "oauth-scope"].filter((f) => args[f] !== undefined);
    if (!stdio && (envs.length > 0 || envVars.length > 0 || args["server-cwd"] !== undefined))
      throw invalidParams("--env, --env-var and --server-cwd are only valid with --stdio");
    if (stdio && (headers.length > 0 || oauthFlags.length > 0))
      throw invalidParams("--header and --oauth-* are only valid with --http or --sse");
    if (!stdio && rest.length > 0) throw invalidParams("arguments after -- are only valid with --stdio");
    const approval = args.approval ?? "always";
    if (approval !== "always" && approval !== "never") throw invalidParams("--approval must be always or never");

    const entry: McpServerConfig = { name: nameArg(args.name, "add"), type: transport };
    if (args.disabled) entry.enabled = false;
    if (stdio) {
      entry.command = String(args.stdio);
      entry.args = rest;
      const env = pairs("env", envs);
      if (env) entry.env = env;
      if (envVars.length > 0) entry.env_vars = envVars;
      if (typeof args["server-cwd"] === "string") entry.cwd = args["server-cwd"];
    } else {
      entry.url = String(args[transport]);
      const h = pairs("header", headers, true);
      if (h) entry.headers = h;
      if (oauthFlags.length > 0) {
        const oauth: Record<string, unknown> = {};
        if (args["oauth-client-id"] !== undefined) oauth.client_id = args["oauth-client-id"];
        if (args["oauth-client-secret-env"] !== undefined) oauth.client_secret_env = args["oauth-client-secret-env"];
        const flow = args["oauth-flow"];
        if (flow !== undefined) {
          if (flow !== "client_credentials" && flow !== "pkce" && flow !== "authorization_code_pkce")
            throw invalidParams("--oauth-flow must be client_credentials or pkce");
          oauth.flow = flow === "pkce" ? "authorization_code_pkce" : flow;
        }
        const scopes = collect(argv, "oauth-scope");
        if (scopes.length > 0) oauth.scopes = scopes;
        entry.oauth = oauth;
      }
    }
    entry.approval = approval;
    const toolApprovals = pairs("tool-approval", collect(argv, "tool-approval"));
    if (toolApprovals) {
      for (const v of Object.values(toolApprovals))
        if (v !== "always" && v !== "never") throw invalidParams("--tool-approval expects TOOL=always|never");
      entry.tool_approvals = toolApprovals as Record<string, "always" | "never">;
    }
    const allow = collect(argv, "allow-tool");
    const block = collect(argv, "block-tool");
    if (allow.length > 0) entry.allow_tools = allow;
    if (block.length > 0) entry.block_tools = block;
    for (const [flag, key] of [
      ["timeout-ms", "timeout_ms"],
      ["tool-timeout-ms", "tool_timeout_ms"],
      ["ready-timeout-ms", "ready_timeout_ms"],
    ] as const) {
      const n = int(flag, args[flag]);
      if (n !== undefined) entry[key] = n;
    }

    const r = await mcpApi(io, args).addDetailed(entry, { global: Boolean(args.global), replace: Boolean(args.replace) });
    if (args.json) printJson(io, { ok: true, action: r.action, scope: r.scope, file: r.file, server: r.server });
    else {
      const verb = r.action === "added" ? "Added" : "Replaced";
      io.out(`${verb} MCP server '${entry.name}' to ${r.file} (${r.server.type}, approval ${r.server.approval})\n`);
      info(io, Boolean(args.quiet), "hint: shell history may retain credential arguments");
    }
    return 0;
  },
});
