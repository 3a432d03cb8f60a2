/**
 * @module schema/mcp-json
 * lemon's own `mcp.json` (mcp.md §2.2), project `C/.lemon/mcp.json` and global `A/mcp.json`, and
 * the server entry of §3.1 that every source (lemon files, env, config.toml, imports) is validated
 * against. The top-level shape makes a whole file valid or invalid (never overwritten); an entry
 * is checked on its own, so one bad entry is skipped with a diagnostic. Unknown top-level keys and
 * unknown entry fields are kept (and survive rewrites).
 *
 * Each field schema carries its §3.4 message: `message` when the field fails, and `tiers`, looser
 * schemas with their own messages, that say which rule failed first (an `env` that is not an
 * object of strings, then one with a bad name, then a bad value). Rules between fields (which
 * transport allows which field, command XOR url, the OAuth flow's needs) live in mcp/validate.ts.
 * Nothing here is loaded at run time: generated.macro.ts compiles these schemas, messages
 * included, at bundle time, so neither `mcp list` nor a rewrite loads TypeBox.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import {
  ENV_NAME_PATTERN as ENV_NAME,
  INVALID_ENTRY,
  MAX_TIMEOUT_MS,
  NAME_MESSAGE,
  NAME_PATTERN,
} from "../mcp/names.ts";

/** RFC 9110 `token`: anything else in a header name splits or smuggles a header. */
const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
/** CR and LF end a header line and NUL ends a C string: no header value may carry them. */
const SAFE_VALUE = "^[^\\r\\n\\0]*$";
const NO_NUL = "^[^\\0]*$";

type Tier = [TSchema, string];
const tiers = (list: Tier[]) => ({ tiers: list.map(([schema, message]) => ({ schema, message })) });

const nonEmpty = (message: string) => Type.String({ pattern: "\\S", message });
const stringList = (key: string) => Type.Array(Type.String(), { message: `${key} must be a list of strings` });
const timeout = (key: string) =>
  Type.Integer({
    exclusiveMinimum: 0,
    maximum: MAX_TIMEOUT_MS,
    message: `${key} must not exceed ${MAX_TIMEOUT_MS}`,
    ...tiers([[Type.Integer({ exclusiveMinimum: 0 }), `${key} must be a positive integer`]]),
  });
const approval = (message: string) => Type.Union([Type.Literal("always"), Type.Literal("never")], { message });

/** `env` / `headers`: an object of strings, with safe names, with safe values. */
const namedValues = (
  key: "env" | "headers",
  namePattern: string,
  nameMessage: string,
  valuePattern: string,
  valueMessage: string,
) =>
  Type.Record(Type.String({ pattern: namePattern }), Type.String({ pattern: valuePattern }), {
    additionalProperties: false,
    message: valueMessage,
    ...tiers([
      [Type.Record(Type.String(), Type.String()), `${key} must be an object of strings`],
      [Type.Record(Type.String({ pattern: namePattern }), Type.String(), { additionalProperties: false }), nameMessage],
    ]),
  });

const Sampling = Type.Object(
  {
    mode: Type.Optional(
      Type.Union([Type.Literal("model"), Type.Literal("reviewed_model"), Type.Literal("deny")], {
        message: "sampling.mode must be model, reviewed_model, or deny",
      }),
    ),
    max_tokens: Type.Optional(
      Type.Integer({ exclusiveMinimum: 0, message: "sampling.max_tokens must be a positive integer" }),
    ),
    allowed_models: Type.Optional(stringList("sampling.allowed_models")),
    require_approval: Type.Optional(Type.Boolean({ message: INVALID_ENTRY })),
  },
  { additionalProperties: true, message: INVALID_ENTRY },
);

/** A token id names `<id>.json` in A/secrets/mcp-oauth (§11.6): one file-name component, never `.`/`..`. */
const TOKEN_ID_PATTERN = "^(?!\\.\\.?$)[A-Za-z0-9._-]+$";

/** §11.1; which fields a flow needs is a rule between fields (mcp/validate.ts). */
const OAuth = Type.Object(
  {
    flow: Type.Optional(
      Type.Union([Type.Literal("client_credentials"), Type.Literal("authorization_code_pkce"), Type.Literal("pkce")], {
        message: "oauth.flow must be client_credentials or authorization_code_pkce",
      }),
    ),
    client_id: Type.Optional(nonEmpty("oauth.client_id must be a non-empty string")),
    client_secret: Type.Optional(nonEmpty("oauth.client_secret must be a non-empty string")),
    client_secret_env: Type.Optional(nonEmpty("oauth.client_secret must be a non-empty string")),
    scope: Type.Optional(Type.String({ message: INVALID_ENTRY })),
    scopes: Type.Optional(stringList("oauth.scopes")),
    token_auth_method: Type.Optional(
      Type.Union([Type.Literal("client_secret_post"), Type.Literal("client_secret_basic")], {
        message: "oauth.token_auth_method must be client_secret_post or client_secret_basic",
      }),
    ),
    // Loopback or not is decided by a URL parser (mcp/validate.ts), not a pattern.
    redirect_uri: Type.Optional(Type.String({ message: "oauth.redirect_uri must be a loopback http URL" })),
    authorization_timeout_ms: Type.Optional(Type.Integer({ exclusiveMinimum: 0, message: INVALID_ENTRY })),
    authorization_approval: Type.Optional(Type.Boolean({ message: INVALID_ENTRY })),
    allow_private_network: Type.Optional(Type.Boolean({ message: INVALID_ENTRY })),
    token_secret: Type.Optional(
      Type.String({
        pattern: TOKEN_ID_PATTERN,
        message: "oauth.token_secret must be a non-empty string of A-Z, a-z, 0-9, '.', '_', '-'",
      }),
    ),
  },
  { additionalProperties: true, message: INVALID_ENTRY },
);

/**
 * One server entry (§3.1) after kebab-case aliases are resolved. The property order is the key
 * order lemon writes entries in.
 */
export const McpServerEntry = Type.Object(
  {
    name: Type.Optional(Type.String({ pattern: NAME_PATTERN, message: NAME_MESSAGE })),
    type: Type.Optional(
      Type.Union([Type.Literal("stdio"), Type.Literal("http"), Type.Literal("sse")], {
        message: "type must be stdio, http, or sse",
      }),
    ),
    enabled: Type.Optional(Type.Boolean({ message: INVALID_ENTRY })),
    command: Type.Optional(nonEmpty("stdio command cannot be empty")),
    args: Type.Optional(stringList("args")),
    env: Type.Optional(
      // A value never reaches a header or a command line, so only NUL (which no environment can hold)
      // is refused; multi-line values such as PEM keys are legitimate (cli.md §3.1 restricts headers).
      namedValues("env", ENV_NAME, `env names must match ${ENV_NAME}`, NO_NUL, "env values must not contain NUL"),
    ),
    env_vars: Type.Optional(
      Type.Array(Type.String({ pattern: ENV_NAME }), {
        message: `env_vars names must match ${ENV_NAME}`,
        ...tiers([[Type.Array(Type.String()), "env_vars must be a list of strings"]]),
      }),
    ),
    cwd: Type.Optional(Type.String({ message: INVALID_ENTRY })),
    // http/https with a host, or a placeholder: a URL parser decides (mcp/validate.ts).
    url: Type.Optional(Type.String({ message: "invalid HTTP URL" })),
    headers: Type.Optional(
      namedValues(
        "headers",
        HEADER_NAME,
        "header names must be RFC 9110 tokens",
        SAFE_VALUE,
        "header values must not contain CR, LF or NUL",
      ),
    ),
    oauth: Type.Optional(OAuth),
    persist_oauth_tokens: Type.Optional(Type.Boolean({ message: "persist_oauth_tokens must be a boolean" })),
    oauth_token_secret: Type.Optional(
      Type.String({
        pattern: TOKEN_ID_PATTERN,
        message: "oauth_token_secret must be a non-empty string of A-Z, a-z, 0-9, '.', '_', '-'",
      }),
    ),
    approval: Type.Optional(approval("approval must be always or never")),
    tool_approvals: Type.Optional(
      Type.Record(Type.String(), approval("tool_approvals values must be always or never"), {
        message: "tool_approvals values must be always or never",
      }),
    ),
    allow_tools: Type.Optional(stringList("allow_tools")),
    block_tools: Type.Optional(stringList("block_tools")),
    allow_resources: Type.Optional(stringList("allow_resources")),
    block_resources: Type.Optional(stringList("block_resources")),
    allow_prompts: Type.Optional(stringList("allow_prompts")),
    block_prompts: Type.Optional(stringList("block_prompts")),
    timeout_ms: Type.Optional(timeout("timeout_ms")),
    tool_timeout_ms: Type.Optional(timeout("tool_timeout_ms")),
    ready_timeout_ms: Type.Optional(timeout("ready_timeout_ms")),
    sampling: Type.Optional(Sampling),
  },
  { additionalProperties: true, message: INVALID_ENTRY },
);

/** A server entry after alias resolution (the type of every entry lemon handles); unknown keys are kept. */
export type McpServerConfig = Static<typeof McpServerEntry> & { [extension: string]: unknown };

/** The top level of a lemon `mcp.json` file; entries are checked one by one (McpServerEntry). */
export const McpJson = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ message: "enabled must be a boolean" })),
    servers: Type.Optional(Type.Array(Type.Unknown(), { message: "servers must be a list" })),
    mcpServers: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { message: "mcpServers must be an object" })),
    enabled_servers: Type.Optional(stringList("enabled_servers")),
    disabled_servers: Type.Optional(stringList("disabled_servers")),
  },
  { additionalProperties: true, message: "top level must be an object" },
);
export type McpJson = Static<typeof McpJson>;

/** `LEMON_MCP_SERVERS`: a JSON array of entries, or `{"servers": […]}`. */
export const McpEnvServers = Type.Union(
  [Type.Array(Type.Unknown()), Type.Object({ servers: Type.Array(Type.Unknown()) }, { additionalProperties: true })],
  { message: 'must be a list of entries or {"servers": [...]}' },
);
export type McpEnvServers = Static<typeof McpEnvServers>;
