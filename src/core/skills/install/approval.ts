/**
 * @module skills/install/approval
 * The approvals of install.md §1 and §8: an operation approval per install, update and uninstall,
 * a warn approval for an audit `warn`, and the separate approval of an exact-bundle override.
 * Nothing here prompts: the embedder's `approve` callback (or the CLI's prompt) decides, and the
 * default is to deny.
 */
import { forbidden } from "../../errors.ts";
import type { Scope } from "../../paths.ts";

/** The skill members of cli.md §7 `ApprovalRequest`. Summaries never carry file contents or secrets. */
export type SkillApprovalRequest =
  | {
      kind: "skill_install" | "skill_update" | "skill_uninstall";
      key: string;
      scope: Scope;
      trustLevel: string;
      /** The redacted source (no userinfo, no query string). */
      source: string;
      destination: string;
    }
  | { kind: "skill_audit_warn"; key: string; bundleHash: string; findings: string[] }
  | { kind: "security_override"; key: string; source: string; bundleHash: string; findings: string[] }
  /** skill_manage under `[skills] write_approval` (skills.md §9): `filePath` for a supporting file. */
  | { kind: "skill_write"; action: string; scope: Scope; name: string; filePath?: string };

/**
 * mcp.md §11.4: asked before an authorization URL is shown or opened. `authorizationServer` is the
 * issuer's origin only (never a path or query), `scopes` what the flow will request.
 */
export interface McpOAuthApprovalRequest {
  kind: "mcp_oauth";
  server: string;
  authorizationServer: string;
  /** The origin of the authorization page, only when it differs from `authorizationServer`. */
  authorizationEndpoint?: string;
  scopes: string[];
  redirect: "loopback";
}

/** The public approval (cli.md §7 camelCase) for what the OAuth engine asks; the page's origin only when it differs. */
export function oauthApproval(r: import("../../mcp/oauth/session.ts").OAuthApprovalAsk): McpOAuthApprovalRequest {
  return {
    kind: "mcp_oauth",
    server: r.server,
    authorizationServer: r.authorization_server,
    ...(r.authorization_endpoint !== undefined && r.authorization_endpoint !== r.authorization_server
      ? { authorizationEndpoint: r.authorization_endpoint }
      : {}),
    scopes: r.scopes,
    redirect: r.redirect,
  };
}

/** mcp.md §10: the redacted summary of a sampling request, the only thing an approver sees. */
export interface McpSamplingSummary {
  request_hash: string;
  message_count: number;
  roles: string[];
  content_kinds: Record<string, number>;
  text_chars: number;
  max_tokens: number | null;
  model: string | null;
}

/** mcp.md §10 `reviewed_model`: asked before the delegate sees the raw request. */
export interface McpSamplingApprovalRequest {
  kind: "mcp_sampling";
  server: string;
  summary: McpSamplingSummary;
}

/** The whole cli.md §7 union (MCP: `mcp_tool` of mcp.md §9, `mcp_oauth` of §11.4, `mcp_sampling` of §10). */
export type ApprovalRequest =
  | SkillApprovalRequest
  | import("../../mcp/client/call.ts").McpToolApprovalRequest
  | McpOAuthApprovalRequest
  | McpSamplingApprovalRequest;

/** How a caller answers approvals: `true` pre-approves every request (`--approve`), `false` denies. */
export type Approver = boolean | ((request: ApprovalRequest) => Promise<boolean>);

/** The denial of install.md §1 (FORBIDDEN, exit 1). */
export const approvalDenied = () => forbidden("approval denied");

/**
 * Resolves when the request is approved, else rejects FORBIDDEN `approval denied`. A callback may
 * reject with its own LemonError (the CLI without a terminal says `approval required; …`).
 * Builtin skills never get here: they are not installable (install.md §2 row 1).
 */
export async function requestApproval(approve: Approver | undefined, request: ApprovalRequest): Promise<void> {
  if (approve === true) return;
  if (typeof approve !== "function") throw approvalDenied();
  // Only a real `true` approves: a callback returning "yes" or 1 has not said yes.
  if ((await approve(request)) !== true) throw approvalDenied();
}
