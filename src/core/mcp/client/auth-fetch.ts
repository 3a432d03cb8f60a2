/**
 * @module mcp/client/auth-fetch
 * OAuth on the wire of the HTTP transports (mcp.md §11.2): the bearer of the server's session on
 * every request to the MCP server's own origin (never elsewhere, §11.3), and the answers to a
 * challenge. During the handshake a 401 (or a 403 `insufficient_scope`) is only recorded and ends
 * the attempt: connect.ts runs the flow outside the handshake's timer (a PKCE login may take
 * minutes, §11.4) and connects once more. On an open connection the flow runs in place and the
 * request is sent once more; a second 401 for the same request is `authorization failed`.
 *
 * An entry without `oauth` is OAuth too when its 401 carries an OAuth challenge (issue item 4):
 * the caller's `isChallenge` decides. Nothing here reads or logs a token: the session hands out
 * the header value and this module only places it.
 */
import type { LemonContext } from "../../context.ts";
import { LemonError } from "../../errors.ts";
import { cell } from "../../text.ts";
import {
  connectError,
  type ConnectableServer,
  type ConnectOptions,
  type FetchFn,
  type OAuthCallbacks,
} from "./connect.ts";

/** What this module needs of an `OAuthSession` (src/core/mcp/oauth/session.ts). */
export interface AuthSession {
  authorization(): Promise<string | null>;
  onUnauthorized(wwwAuthenticate: string | null): Promise<void>;
  onInsufficientScope(wwwAuthenticate: string): Promise<void>;
}

/** A challenge the handshake met, answered by connect.ts before the next attempt. */
export interface PendingChallenge {
  kind: "unauthorized" | "insufficient_scope";
  header: string | null;
}

/** `error="insufficient_scope"` in a Bearer challenge (RFC 6750 §3.1). */
export function isInsufficientScope(header: string | null): header is string {
  return header !== null && /\berror\s*=\s*"?insufficient_scope"?/i.test(header);
}

/** A failure that may be a refused token in disguise (never 404: an unknown MCP session). */
const refusedWithToken = (status: number) => status === 400 || status === 403 || status >= 500;

const urlOf = (u: string | URL) => (typeof u === "string" ? new URL(u) : u);

export interface ServerAuthOptions {
  /** The configured MCP server URL: its origin is the only one that gets the bearer. */
  serverUrl: URL;
  /** The entry has an `oauth` object: every 401 is a challenge for its session. */
  configured: boolean;
  /** The server's session (made on first need; a stored token of an unconfigured entry is used too). */
  session(): Promise<AuthSession>;
  /** Whether an unconfigured server's 401 is an OAuth challenge (resource metadata), not a plain refusal. */
  isChallenge(status: number, header: string | null): boolean;
  /** An unconfigured entry turned out to be OAuth (status reports it as such). */
  onDetected?(): void;
}

/**
 * The OAuth state of one connection attempt series: wraps the transport's fetch, records what
 * the handshake met and answers it between attempts.
 */
export class ServerAuth {
  /** True while the handshake runs: challenges are recorded, not answered in place. */
  deferring = true;
  pending: PendingChallenge | null = null;
  /** Set once a challenge was answered: a second one in the next handshake is `authorization failed`. */
  answered = false;
  #session: AuthSession | null = null;
  #oauth: boolean;
  readonly #origin: string;

  constructor(private readonly o: ServerAuthOptions) {
    this.#origin = o.serverUrl.origin;
    this.#oauth = o.configured;
  }

  /** This server speaks OAuth (configured, or challenged with resource metadata). */
  get oauth(): boolean {
    return this.#oauth;
  }

  async #sessionNow(): Promise<AuthSession> {
    this.#session ??= await this.o.session();
    return this.#session;
  }

  async #bearer(): Promise<string | null> {
    return (await this.#sessionNow()).authorization();
  }

  /** Answers the recorded challenge (outside any handshake timer); errors are the session's LemonErrors. */
  async resolve(): Promise<void> {
    const p = this.pending;
    this.pending = null;
    if (p === null) return;
    this.answered = true;
    const s = await this.#sessionNow();
    if (p.kind === "insufficient_scope" && p.header !== null) await s.onInsufficientScope(p.header);
    else await s.onUnauthorized(p.header);
  }

  /** The transport's fetch with the bearer and the challenge handling. */
  wrap(base: FetchFn): FetchFn {
    return async (input, init) => {
      const url = urlOf(input);
      // Tokens go only to the origin they were obtained for (mcp.md §11.3).
      if (url.origin !== this.#origin) return base(input, init);
      let sentBearer = false;
      const send = async () => {
        const headers = new Headers(init?.headers);
        const bearer = this.#oauth || this.o.configured ? await this.#bearer() : await this.#storedBearer();
        if (bearer !== null) headers.set("authorization", bearer);
        sentBearer = bearer !== null;
        return base(input, { ...init, headers });
      };
      let first = await send();
      let kind = this.#challengeOf(first);
      if (kind === null && sentBearer && this.deferring && refusedWithToken(first.status)) {
        // Some servers (the SDK's demo among them) answer a token their authorization server no
        // longer knows with a 500 or 400, not a 401. Asked again without the token, a server that
        // then challenges has said the token is the problem: it is treated as refused (issue #14
        // P-A). Only during the handshake, whose requests are safe to repeat.
        const headers = new Headers(init?.headers);
        headers.delete("authorization");
        const bare = await base(input, { ...init, headers });
        if (bare.status === 401 && this.#challengeOf(bare) === "unauthorized") {
          await first.body?.cancel().catch(() => {});
          first = bare;
          kind = "unauthorized";
        } else await bare.body?.cancel().catch(() => {});
      }
      if (kind === null) return first;
      const header = first.headers.get("www-authenticate");
      await first.body?.cancel().catch(() => {});
      if (this.deferring) {
        // A challenge in the handshake after one was answered: the new token was refused too.
        if (this.answered) throw connectError("authorization failed");
        this.pending = { kind, header };
        throw connectError("authorization required");
      }
      const s = await this.#sessionNow();
      if (kind === "insufficient_scope" && header !== null) await s.onInsufficientScope(header);
      else await s.onUnauthorized(header);
      const again = await send();
      if (this.#challengeOf(again) !== null) {
        await again.body?.cancel().catch(() => {});
        throw connectError("authorization failed");
      }
      return again;
    };
  }

  /**
   * An unconfigured entry's stored token (after `lemon mcp login` of a challenge-driven server):
   * read once per connection, and only a token stored for this exact server URL (the session's check).
   */
  #stored: Promise<string | null> | null = null;
  #storedBearer(): Promise<string | null> {
    this.#stored ??= this.#bearer().then(
      (b) => {
        if (b !== null) this.#markOAuth();
        return b;
      },
      () => null,
    );
    return this.#stored;
  }

  #markOAuth(): void {
    if (this.#oauth) return;
    this.#oauth = true;
    this.o.onDetected?.();
  }

  /** The kind of challenge a response is, or null when it is not one this module answers. */
  #challengeOf(r: Response): PendingChallenge["kind"] | null {
    const header = r.headers.get("www-authenticate");
    if (r.status === 403 && isInsufficientScope(header) && this.#oauth) return "insufficient_scope";
    if (r.status !== 401) return null;
    if (this.#oauth) return "unauthorized";
    if (!this.o.isChallenge(401, header)) return null;
    this.#markOAuth();
    // A stored token read before detection is stale now: the session decides afresh.
    this.#stored = null;
    return "unauthorized";
  }
}

/**
 * An error of a flow as connect reports it: OAuth's own fixed messages (and a refused approval)
 * keep their code and text; `details.reason` is the §13 reason status shows for them.
 */
export function authError(err: unknown): LemonError {
  if (!LemonError.is(err)) return connectError("authorization failed");
  if (typeof err.details?.reason === "string") return err;
  const reason =
    err.message === "authorization required" || err.code === "FORBIDDEN"
      ? "authorization required"
      : "authorization failed";
  return new LemonError(err.code, err.message, {
    details: { ...(err.details ?? {}), reason },
    ...(err.hint !== undefined ? { hint: err.hint } : {}),
  });
}

/** `lemon:global` and `lemon:config` are the user's own files: their `oauth` may relax approval and network rules. */
export const isPrivileged = (source: string | undefined) => source === "lemon:global" || source === "lemon:config";

const warnedSecrets = new Set<string>();

/** Once per process and server: the warning is the same on every connection and status call. */
function warnIgnoredSecret(ctx: LemonContext, name: string): void {
  const key = `${ctx.cwd}\0${name}`;
  if (warnedSecrets.has(key)) return;
  warnedSecrets.add(key);
  ctx.log({
    level: "warn",
    message: `MCP server '${cell(name)}': oauth token_secret of a project entry is ignored; the token id is derived from its URL`,
  });
}

/** The OAuth session of one server entry (the engine in ../oauth, loaded on first need). */
export async function openAuthSession(
  ctx: LemonContext,
  server: ConnectableServer,
  callbacks: OAuthCallbacks | undefined,
): Promise<AuthSession & OAuthSessionExtras> {
  const [{ OAuthSession }, { parseOAuthSettings }] = await Promise.all([
    import("../oauth/session.ts"),
    import("../oauth/settings.ts"),
  ]);
  const entry = server.server.entry;
  const raw = entry.oauth;
  const parsed = raw === undefined ? null : parseOAuthSettings(raw, ctx.env);
  const oauthObj = (raw ?? {}) as { token_secret?: unknown };
  let secret = typeof entry.oauth_token_secret === "string" ? entry.oauth_token_secret : oauthObj.token_secret;
  // A repository's entry naming a token id could overwrite or delete the user's token of another
  // server (issue #14 F2): project entries always use the id derived from their URL and client.
  const project = server.source?.endsWith(":project") === true;
  if (project && typeof secret === "string" && secret !== "") {
    warnIgnoredSecret(ctx, server.name);
    secret = undefined;
  }
  const settings = parsed !== null && project ? { ...parsed, tokenSecret: null } : parsed;
  const cb: OAuthCallbacks = callbacks ?? {
    approve: async () => false,
    openUrl: async () => {},
    headless: false,
    interactive: false,
  };
  return new OAuthSession(
    ctx,
    {
      server: server.name,
      serverUrl: entry.url ?? "",
      settings,
      privileged: isPrivileged(server.source),
      persist: entry.persist_oauth_tokens !== false,
      tokenSecret: typeof secret === "string" && secret !== "" ? secret : null,
    },
    {
      approve: (r: Parameters<OAuthCallbacks["approve"]>[0]) => cb.approve(r),
      openUrl: (u: string) => cb.openUrl(u, server.name),
      headless: cb.headless,
      interactive: cb.interactive,
    },
  );
}

/** A whole session: the wire methods and what login, logout and status use. */
export type FullSession = AuthSession & OAuthSessionExtras;

/** What login, logout and status use beyond the wire methods. */
export interface OAuthSessionExtras {
  login(): Promise<{ expires_at: string | null; scopes: string[] }>;
  logout(registration: boolean): Promise<{ tokens: boolean; registration: boolean }>;
  state(): Promise<{
    type: "oauth";
    state: "valid" | "expired" | "needs_auth";
    expires_at: string | null;
    warnings: string[];
  }>;
}

/** The key of a server's session in a host's cache: its name, source and expanded entry. */
export const sessionKey = (server: ConnectableServer) =>
  JSON.stringify([server.name, server.source ?? null, server.server.entry]);

/** The ServerAuth of an HTTP or SSE connection, or null when the URL cannot carry one. */
export async function serverAuthFor(server: ConnectableServer, opts: ConnectOptions): Promise<ServerAuth | null> {
  let url: URL;
  try {
    url = new URL(server.server.entry.url ?? "");
  } catch {
    return null;
  }
  const { isOAuthChallenge } = await import("../oauth/www-authenticate.ts");
  return new ServerAuth({
    serverUrl: url,
    configured: server.server.entry.oauth !== undefined,
    session: () => {
      // One session per configuration for the host's lifetime: a reconnect resumes its in-memory
      // tokens (persist_oauth_tokens: false) and concurrent 401s share one acquisition.
      const cache = opts.authSessions;
      if (cache === undefined) return openAuthSession(opts.ctx, server, opts.oauth);
      const key = sessionKey(server);
      let s = cache.get(key);
      if (s === undefined) {
        s = openAuthSession(opts.ctx, server, opts.oauth);
        cache.set(key, s);
        s.catch(() => cache.delete(key));
      }
      return s;
    },
    isChallenge: isOAuthChallenge,
    onDetected: () => opts.oauth?.onDetected?.(server.name),
  });
}
