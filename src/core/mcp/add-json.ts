/**
 * @module mcp/add-json
 * `lemon mcp add-json NAME '<json>'` (cli.md §3.2): one entry given as a JSON object in lemon's
 * shape (mcp.md §3.1) or Claude Code's (`claude mcp add-json`: `type`, `command`, `args`, `env`,
 * `url`, `headers`, and `oauth: {clientId, callbackPort}`), then added exactly as `mcp add` adds:
 * same validation, same file rules. The JSON is read strictly (a duplicate key is an error).
 */
import type { LemonContext } from "../context.ts";
import { invalidParams } from "../errors.ts";
import { addServer, type AddResult, type TargetOptions } from "./edit.ts";
import { mapType } from "./importers/common.ts";
import { isValidServerName, NAME_MESSAGE } from "./names.ts";
import { parseJsonText } from "./read.ts";
import type { McpServerConfig } from "./types.ts";
import { isObject } from "./validate.ts";

/** Claude Code's OAuth block (`clientId`, `callbackPort`) in lemon's spelling; lemon's own keys win. */
function oauthOf(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const { clientId, callbackPort, ...rest } = raw;
  const out: Record<string, unknown> = { ...rest };
  if (clientId !== undefined && out.client_id === undefined && out["client-id"] === undefined) out.client_id = clientId;
  if (callbackPort !== undefined && out.redirect_uri === undefined && out["redirect-uri"] === undefined)
    out.redirect_uri = Number.isInteger(callbackPort)
      ? `http://127.0.0.1:${String(callbackPort)}/callback`
      : callbackPort;
  return out;
}

/** The entry `json` describes, named `name`; the problems of a bad JSON text are INVALID_PARAMS. */
export function entryFromJson(name: string, json: string): McpServerConfig {
  if (!isValidServerName(name)) throw invalidParams(NAME_MESSAGE);
  const parsed = parseJsonText(json);
  if (!parsed.ok) throw invalidParams(`invalid JSON entry: ${parsed.reason}`);
  const raw = parsed.value;
  if (!isObject(raw)) throw invalidParams("the JSON entry must be an object");
  if (raw.name !== undefined && raw.name !== name) throw invalidParams("the JSON entry's name must be NAME when given");
  const entry: McpServerConfig = { ...raw, name };
  if (raw.type !== undefined) entry.type = mapType(raw.type) as McpServerConfig["type"];
  if (raw.oauth !== undefined) entry.oauth = oauthOf(raw.oauth) as McpServerConfig["oauth"];
  // As `mcp add`: written with approval always unless the entry says otherwise (mcp.md §3.1).
  if (raw.approval === undefined) entry.approval = "always";
  return entry;
}

/** Adds (or with `replace`, replaces) the entry of `json` under `name` in the scope's lemon file. */
export function addServerJson(
  ctx: LemonContext,
  name: string,
  json: string,
  opts: TargetOptions & { replace?: boolean } = {},
): Promise<AddResult> {
  return addServer(ctx, entryFromJson(name, json), opts);
}
