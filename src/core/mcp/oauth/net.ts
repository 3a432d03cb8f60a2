/**
 * @module mcp/oauth/net
 * Every HTTP request of an OAuth flow: URL-checked (url-safety.ts) before it is sent and at each
 * redirect hop (at most 3, GET only: a POST carrying a client secret or a code is never replayed
 * at a URL the metadata did not name), bounded in time, bodies read with a size cap. Requests
 * carry only what the flow puts in them, never the entry's configured headers.
 */
import { LemonError } from "../../errors.ts";
import { checkOAuthUrl, refused, type UrlPolicy } from "./url-safety.ts";

export const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_HOPS = 3;
const MAX_BODY_BYTES = 1 << 20;

export interface OAuthNet {
  policy: UrlPolicy;
  fetch: typeof fetch;
  timeoutMs: number;
  signal?: AbortSignal;
}

export const fail = (message: string, details?: Record<string, unknown>) =>
  new LemonError("UNAUTHORIZED", message, details ? { details } : {});

export interface RequestInit {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** false: a redirect is returned to the caller (the headless follower checks each hop itself). */
  redirects?: boolean;
}

/** One request, redirects of a GET followed (re-checked) up to 3 hops. `label` names it in errors. */
export async function oauthRequest(net: OAuthNet, label: string, raw: string | URL, init: RequestInit = {}) {
  let url = await checkOAuthUrl(raw, net.policy);
  const method = init.method ?? "GET";
  const signals = [AbortSignal.timeout(net.timeoutMs)];
  if (net.signal) signals.push(net.signal);
  const signal = AbortSignal.any(signals);
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await net.fetch(url, {
        method,
        headers: { accept: "application/json", ...init.headers },
        ...(init.body !== undefined ? { body: init.body } : {}),
        redirect: "manual",
        signal,
      });
    } catch (err) {
      if (net.signal?.aborted)
        throw LemonError.is(net.signal.reason) ? net.signal.reason : fail("authorization cancelled");
      if (signal.aborted) throw fail(`${label} timed out`);
      void err;
      throw fail(`${label} unreachable`);
    }
    if (res.status < 300 || res.status >= 400 || res.status === 304 || init.redirects === false) return res;
    const location = res.headers.get("location");
    await res.body?.cancel().catch(() => {});
    if (location === null) return res;
    if (method !== "GET") throw fail(`${label} redirected`);
    if (hop + 1 > MAX_HOPS) throw refused("too many redirects");
    url = await checkOAuthUrl(new URL(location, url), net.policy);
  }
}

/** The body as a JSON object, or null (not JSON, not an object, too large). Never throws. */
export async function readJsonObject(res: Response): Promise<Record<string, unknown> | null> {
  try {
    const reader = res.body?.getReader();
    if (!reader) return null;
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
    const parsed: unknown = JSON.parse(new TextDecoder().decode(Buffer.concat(chunks)));
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The value of `k` when it is a non-empty string. */
export const str = (o: Record<string, unknown> | null | undefined, k: string): string | null => {
  const v = o?.[k];
  return typeof v === "string" && v !== "" ? v : null;
};

/** The value of `k` when it is a list of strings (other items dropped), else null. */
export const strList = (o: Record<string, unknown> | null | undefined, k: string): string[] | null => {
  const v = o?.[k];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : null;
};
