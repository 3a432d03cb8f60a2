/**
 * @module skills/install/http
 * The one HTTP client of install.md §3, over the runtime's fetch: per-request timeout, at most 5
 * redirects followed by hand (so a token never crosses to another origin), retries of GETs on
 * network errors, 5xx and 429 with Retry-After, and response caps enforced while reading, so a
 * hostile server cannot make lemon buffer more than the cap. Errors name the redacted URL only,
 * never a response body.
 */
import { VERSION } from "../../build-info.ts";
import { LemonError, notFound } from "../../errors.ts";
import { redactUrl } from "../../text.ts";

export const HTTP_TIMEOUT_MS = 10_000;
export const MAX_REDIRECTS = 5;
export const JSON_CAP = 4 * 1024 * 1024;
export const FILE_CAP = 16 * 1024 * 1024;
const RETRY_DELAYS_MS = [500, 1500];
const RETRY_AFTER_CAP_MS = 10_000;

export interface HttpOptions {
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Response cap in bytes. */
  maxBytes: number;
  headers?: Record<string, string>;
  /** Bearer token sent only to these origins, and never after a redirect to another origin. */
  token?: { value: string; origins: string[] };
  /** Waits between attempts (default 500 ms then 1,500 ms); tests shorten them. */
  retryDelaysMs?: number[];
  /** Sent as If-None-Match; a 304 answer is then returned (empty body) instead of failing. */
  etag?: string;
  /** Told of every request sent, redirects and retries included (benchmarks count them). */
  onRequest?: (url: string) => void;
  /** The environment whose HTTP(S)_PROXY / NO_PROXY route each request (see proxyFor). */
  env?: Readonly<Record<string, string | undefined>>;
}

const envOf = (env: Readonly<Record<string, string | undefined>>, name: string) => {
  const v = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return v === undefined || v.trim() === "" ? undefined : v.trim();
};

/**
 * The proxy a request to `url` goes through: HTTPS_PROXY for https, HTTP_PROXY for http (either
 * case), unless NO_PROXY names the host (`*`, a host, or a domain suffix, with or without a
 * leading dot, optionally with `:port`). Undefined when none applies or the proxy URL is unusable.
 */
export function proxyFor(url: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const proxy = envOf(env, u.protocol === "https:" ? "https_proxy" : "http_proxy");
  if (proxy === undefined || !/^https?:\/\//i.test(proxy)) return undefined;
  const host = u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  for (const raw of (envOf(env, "no_proxy") ?? "").split(/[\s,]+/)) {
    const item = raw.toLowerCase();
    if (item === "") continue;
    if (item === "*") return undefined;
    const m = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(item);
    const name = (m?.[1] ?? item).replace(/^\*?\./, "");
    if (m?.[2] !== undefined && m[2] !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return undefined;
  }
  return proxy;
}

export interface HttpResponse {
  status: number;
  /** The URL that answered, after redirects. */
  url: string;
  headers: Headers;
  body: Uint8Array;
}

class Retryable extends Error {
  constructor(
    readonly error: LemonError,
    readonly retryAfterMs: number | null,
  ) {
    super(error.message);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LemonError("OPERATION_FAILED", "request aborted"));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(new LemonError("OPERATION_FAILED", "request aborted"));
      },
      { once: true },
    );
  });
}

/** Retry-After as seconds or an HTTP date, capped at 10 s; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number.parseInt(v, 10) * 1000, RETRY_AFTER_CAP_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now), RETRY_AFTER_CAP_MS);
}

export function exceeds(max: number): LemonError {
  return new LemonError("OPERATION_FAILED", `response exceeds ${max} bytes`);
}

/**
 * A rate-limit answer (429, or GitHub's 403 with X-RateLimit-Remaining: 0): the wait until it
 * resets in ms (Retry-After, else X-RateLimit-Reset), or -1 when the answer says nothing; null
 * when the answer is no rate limit.
 */
export function rateLimitWaitMs(status: number, headers: Headers, now = Date.now()): number | null {
  if (status !== 429 && !(status === 403 && headers.get("x-ratelimit-remaining") === "0")) return null;
  const ra = headers.get("retry-after")?.trim() ?? "";
  if (/^\d+$/.test(ra)) return Number.parseInt(ra, 10) * 1000;
  if (ra !== "" && !Number.isNaN(Date.parse(ra))) return Math.max(0, Date.parse(ra) - now);
  const reset = headers.get("x-ratelimit-reset")?.trim() ?? "";
  if (/^\d+$/.test(reset)) return Math.max(0, Number.parseInt(reset, 10) * 1000 - now);
  return -1;
}

/** Reads a body chunk by chunk and stops at the cap instead of buffering it whole. */
async function readCapped(res: Response, max: number): Promise<Uint8Array> {
  const len = res.headers.get("content-length");
  if (len !== null && /^\d+$/.test(len) && Number(len) > max) {
    await res.body?.cancel();
    throw exceeds(max);
  }
  if (!res.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw exceeds(max);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/** One attempt: follows redirects by hand, reads the capped body. */
async function attempt(url: string, opts: HttpOptions): Promise<HttpResponse> {
  const doFetch = opts.fetch ?? globalThis.fetch;
  const timeoutMs = opts.timeoutMs ?? HTTP_TIMEOUT_MS;
  const firstOrigin = originOf(url);
  let current = url;
  for (let hop = 0; ; hop++) {
    const origin = originOf(current);
    const headers: Record<string, string> = { "User-Agent": `lemon/${VERSION}`, ...(opts.headers ?? {}) };
    if (opts.token && origin === firstOrigin && opts.token.origins.includes(origin))
      headers.Authorization = `Bearer ${opts.token.value}`;
    if (opts.etag !== undefined && hop === 0) headers["If-None-Match"] = opts.etag;
    opts.onRequest?.(current);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let res: Response;
    try {
      const proxy = opts.env ? proxyFor(current, opts.env) : undefined;
      // `proxy` is Bun's fetch option; other runtimes ignore it.
      const init: RequestInit & { proxy?: string } = { method: "GET", headers, redirect: "manual", signal };
      if (proxy !== undefined) init.proxy = proxy;
      res = await doFetch(current, init);
    } catch {
      if (opts.signal?.aborted) throw new LemonError("OPERATION_FAILED", "request aborted");
      // Not retried: the timeout already bounds the wait, three of them would not.
      if (timeout.aborted)
        throw new LemonError("TIMEOUT", `request to ${redactUrl(current)} timed out after ${timeoutMs} ms`);
      throw new Retryable(new LemonError("OPERATION_FAILED", `request to ${redactUrl(current)} failed`), null);
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get("location") !== null) {
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new LemonError("OPERATION_FAILED", `too many redirects from ${redactUrl(url)}`);
      let next: URL;
      try {
        next = new URL(res.headers.get("location") ?? "", current);
      } catch {
        throw new LemonError("OPERATION_FAILED", `invalid redirect from ${redactUrl(current)}`);
      }
      if (next.protocol !== "https:" && next.protocol !== "http:")
        throw new LemonError("OPERATION_FAILED", `refusing redirect to ${next.protocol} from ${redactUrl(current)}`);
      current = next.href;
      continue;
    }
    const limited = rateLimitWaitMs(res.status, res.headers);
    // A reset further away than a retry may wait fails at once with its time: never spin on it.
    if (limited !== null && limited > RETRY_AFTER_CAP_MS) {
      await res.body?.cancel();
      const at = new Date(Date.now() + limited).toISOString().replace(/\.\d{3}Z$/, "Z");
      throw new LemonError("OPERATION_FAILED", `rate limited by ${origin}; the limit resets at ${at}`);
    }
    if (limited !== null && res.status === 403) {
      await res.body?.cancel();
      throw new Retryable(
        new LemonError("OPERATION_FAILED", `rate limited by ${origin}`),
        limited < 0 ? null : limited,
      );
    }
    if (res.status === 429 || res.status >= 500) {
      await res.body?.cancel();
      throw new Retryable(
        new LemonError("OPERATION_FAILED", `HTTP ${res.status} from ${redactUrl(current)}`),
        retryAfterMs(res.headers.get("retry-after")),
      );
    }
    try {
      const body = await readCapped(res, opts.maxBytes);
      return { status: res.status, url: current, headers: res.headers, body };
    } catch (e) {
      if (LemonError.is(e)) throw e;
      // Not retried: the timeout already bounds the wait, three of them would not.
      if (timeout.aborted)
        throw new LemonError("TIMEOUT", `request to ${redactUrl(current)} timed out after ${timeoutMs} ms`);
      throw new Retryable(new LemonError("OPERATION_FAILED", `request to ${redactUrl(current)} failed`), null);
    }
  }
}

/** GET with retries; non-2xx answers other than 404 (NOT_FOUND) fail OPERATION_FAILED. */
export async function httpGet(url: string, opts: HttpOptions): Promise<HttpResponse> {
  const delays = opts.retryDelaysMs ?? RETRY_DELAYS_MS;
  for (let i = 0; ; i++) {
    try {
      const res = await attempt(url, opts);
      if (res.status === 304 && opts.etag !== undefined) return res;
      if (res.status === 404) throw notFound(`${redactUrl(res.url)} not found (HTTP 404)`);
      if (res.status < 200 || res.status >= 300)
        throw new LemonError("OPERATION_FAILED", `HTTP ${res.status} from ${redactUrl(res.url)}`);
      return res;
    } catch (e) {
      if (!(e instanceof Retryable)) throw e;
      const delay = delays[i];
      if (delay === undefined) throw e.error;
      await sleep(e.retryAfterMs ?? delay, opts.signal);
    }
  }
}

/** GET of a JSON document (default cap 4 MiB); a body that is not JSON fails with no excerpt. */
export async function getJson(
  url: string,
  opts: Omit<HttpOptions, "maxBytes"> & { maxBytes?: number },
): Promise<unknown> {
  const res = await httpGet(url, {
    ...opts,
    maxBytes: opts.maxBytes ?? JSON_CAP,
    headers: { Accept: "application/json", ...(opts.headers ?? {}) },
  });
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(res.body));
  } catch {
    throw new LemonError("OPERATION_FAILED", `${redactUrl(res.url)} did not return valid JSON`);
  }
}
