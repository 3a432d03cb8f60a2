/**
 * @module mcp/importers/codex
 * OpenAI Codex CLI. `config.toml` (TOML):
 *
 *   [mcp_servers.<name>]
 *   command = "npx"            # or a relative "./bin/server", resolved against the file's dir
 *   args = ["-y", "@upstash/context7-mcp"]
 *   env = { KEY = "value" }
 *   env_vars = ["API_KEY"]     # copied from the current environment when set
 *   cwd = "tools"              # relative → the file's dir
 *   url = "https://…/mcp"      # streamable HTTP
 *   http_headers = { "X-Team" = "core" }
 *   env_http_headers = { "X-Api-Key" = "API_KEY_ENV" }   # header → env var, read now
 *   bearer_token_env_var = "TOKEN_ENV"                    # Authorization: Bearer <value>
 *   enabled = true
 *   enabled_tools = ["a"]; disabled_tools = ["b"]
 *   startup_timeout_sec = 20 (or startup_timeout_ms); tool_timeout_sec = 60
 *
 * No `${}` expansion. Files: `C/.codex/config.toml`; user `$CODEX_HOME/config.toml` (default
 * `~/.codex`).
 */
import { dirname, join, resolve } from "node:path";
import {
  accept,
  autoApprovals,
  badEntry,
  eachServer,
  loadEach,
  mapEnabled,
  serverMap,
  type ImportEnv,
  type Importer,
  type Obj,
  locationValue,
} from "./common.ts";
import { isObject } from "../validate.ts";

/** Seconds (int or float) → milliseconds (over-cap values are clamped on acceptance); others pass to validation. */
function secToMs(v: unknown): unknown {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return v;
  return Math.round(v * 1000);
}

/**
 * `[mcp_servers.<name>.tools.<tool>] approval_mode = "approve"`: Codex calls that tool without
 * asking, so lemon maps it to `never` for exactly that tool (mcp.md §4.2). The server-wide
 * `default_tools_approval_mode` is not a list of tools and leaves the import's `always`.
 */
function approvedTools(tools: unknown): Record<string, "never"> | undefined {
  if (!isObject(tools)) return undefined;
  return autoApprovals(Object.keys(tools).filter((t) => isObject(tools[t]) && tools[t].approval_mode === "approve"));
}

function fields(raw: Obj, dir: string, ie: ImportEnv): Obj {
  const env = ie.ctx.env;
  let command = raw.command;
  if (typeof command === "string" && (command.startsWith("./") || command.startsWith("../")))
    command = resolve(dir, command);
  let cwd = raw.cwd;
  if (typeof cwd === "string" && cwd !== "") cwd = resolve(dir, cwd);
  let headers: Obj | undefined = isObject(raw.http_headers)
    ? { ...raw.http_headers }
    : (raw.http_headers as Obj | undefined);
  if (isObject(raw.env_http_headers)) {
    for (const [h, varName] of Object.entries(raw.env_http_headers)) {
      const v = typeof varName === "string" ? env[varName] : undefined;
      if (v !== undefined && v !== "") (headers ??= {})[h] = v;
    }
  }
  if (typeof raw.bearer_token_env_var === "string") {
    const token = env[raw.bearer_token_env_var];
    if (token !== undefined && token !== "") (headers ??= {}).Authorization = `Bearer ${token}`;
  }
  return {
    command,
    args: raw.args,
    env: raw.env,
    env_vars: raw.env_vars,
    cwd,
    url: raw.url,
    type: raw.url !== undefined && raw.command === undefined ? "http" : undefined,
    headers,
    // Kept as written (unknown keys are retained) so trust pins where credentials go by name.
    http_headers: raw.http_headers,
    env_http_headers: raw.env_http_headers,
    bearer_token_env_var: raw.bearer_token_env_var,
    enabled: mapEnabled(raw),
    allow_tools: raw.enabled_tools,
    block_tools: raw.disabled_tools,
    ready_timeout_ms: raw.startup_timeout_sec !== undefined ? secToMs(raw.startup_timeout_sec) : raw.startup_timeout_ms,
    tool_timeout_ms: secToMs(raw.tool_timeout_sec),
    approval: raw.approval,
    tool_approvals: approvedTools(raw.tools),
  };
}

export const codex: Importer = {
  id: "codex",
  projectFiles: (cwd) => [join(cwd, ".codex", "config.toml")],
  userFiles: (home, env) => {
    const dir = locationValue(env, "CODEX_HOME") ?? join(home, ".codex");
    return [join(dir, "config.toml")];
  },
  load: (ie, files) =>
    loadEach("codex", files, "toml", (root, file, level, out) => {
      const map = serverMap(root, "mcp_servers", file, `codex:${level}`, out.diagnostics);
      if (!map) return;
      const dir = dirname(file);
      eachServer(
        map,
        (name, raw, index) =>
          accept("codex", { name, index, file, level, vars: "none", mapped: fields(raw, dir, ie) }, out),
        (name, index) => badEntry("codex", level, file, name, index, out),
      );
    }),
};
