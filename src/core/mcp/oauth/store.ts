/**
 * @module mcp/oauth/store
 * Token files and dynamic registrations under `A/secrets/mcp-oauth/` (mcp.md §11.6): 0700
 * directories, 0600 files written atomically, a corrupt file set aside (`.corrupt-<ts>`) and
 * reported instead of failing forever, and the refresh lock `<token file>.lock/` that makes N
 * processes spend a refresh token once. `persist_oauth_tokens: false` keeps both in this
 * process's memory only.
 */
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { LemonError } from "../../errors.ts";
import { formatJson, makeDir, writeFileAtomic } from "../../fsx/atomic.ts";
import { acquireLock } from "../../fsx/lock.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { parseJson } from "../../json.ts";
import { resolvePaths } from "../../paths.ts";
import { checkSchema } from "../../schema/check.ts";
import { OAuthClientFile, OAuthTokenFile } from "../../schema/oauth-files.ts";
import { decodeUtf8 } from "../../text.ts";

export type { OAuthClientFile, OAuthTokenFile } from "../../schema/oauth-files.ts";

export const REFRESH_LOCK_WAIT_MS = 30_000;
const MAX_FILE_BYTES = 256 * 1024;

const sha256Hex = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

/** `<token id>` of mcp.md §11.6. */
export function tokenId(serverUrl: string, clientId: string | null, tokenSecret: string | null): string {
  if (tokenSecret !== null) return tokenSecret;
  return `mcp_oauth_http_${sha256Hex(`${serverUrl}\n${clientId ?? ""}`).slice(0, 24)}`;
}

export const clientFileName = (issuer: string) => `${sha256Hex(issuer).slice(0, 24)}.json`;

interface Slot<T> {
  read(): Promise<T | null>;
  write(value: T): Promise<void>;
  remove(): Promise<boolean>;
}

export interface TokenStore extends Slot<OAuthTokenFile> {
  /** The file, or null when tokens live in memory. */
  readonly file: string | null;
  /** Runs `fn` holding the refresh lock (30 s wait). */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
}

export interface ClientStore {
  forIssuer(issuer: string): Slot<OAuthClientFile>;
}

// persist: false — per process, keyed by the path the file would have.
const memory = new Map<string, unknown>();
const memoryLocks = new Map<string, Promise<void>>();

async function ensureDirs(ctx: LemonContext, sub?: string): Promise<string> {
  const p = resolvePaths(ctx);
  await makeDir(p.secretsDir, 0o700);
  await makeDir(p.oauthDir, 0o700);
  if (sub === undefined) return p.oauthDir;
  const d = join(p.oauthDir, sub);
  await makeDir(d, 0o700);
  return d;
}

function fileSlot<T>(
  ctx: LemonContext,
  file: string,
  schema: typeof OAuthTokenFile | typeof OAuthClientFile,
  accept: (v: T) => boolean,
  dir: () => Promise<string>,
): Slot<T> {
  return {
    async read() {
      const r = readRegularFile(file, MAX_FILE_BYTES);
      if (!r.ok && r.problem === "missing") return null;
      let value: unknown = null;
      let ok = false;
      if (r.ok) {
        const text = decodeUtf8(r.bytes);
        try {
          value = text === null ? null : parseJson(text);
          ok = value !== null && checkSchema(schema, value) === null;
        } catch {
          ok = false;
        }
      }
      if (!ok) {
        const aside = `${file}.corrupt-${ctx.now().toISOString().replace(/[:.]/g, "-")}`;
        await rename(file, aside).catch(() => rm(file, { force: true }).catch(() => {}));
        ctx.log({ level: "warn", message: `corrupt OAuth file set aside as ${aside}; it is treated as absent` });
        return null;
      }
      return accept(value as T) ? (value as T) : null;
    },
    async write(value) {
      await dir();
      await writeFileAtomic(file, formatJson(value), { mode: 0o600, dirMode: 0o700, confineTo: null });
    },
    async remove() {
      const existed = readRegularFile(file, MAX_FILE_BYTES).ok;
      await rm(file, { force: true });
      return existed;
    },
  };
}

function memorySlot<T>(key: string, accept: (v: T) => boolean): Slot<T> {
  return {
    read: async () => {
      const v = memory.get(key) as T | undefined;
      return v !== undefined && accept(v) ? structuredClone(v) : null;
    },
    write: async (v) => void memory.set(key, structuredClone(v)),
    remove: async () => memory.delete(key),
  };
}

export interface StoreTarget {
  serverUrl: string;
  clientId: string | null;
  tokenSecret: string | null;
  persist: boolean;
}

/** The token store of one server entry: its file is used only for the same canonical URL. */
export function tokenStore(ctx: LemonContext, t: StoreTarget): TokenStore {
  const file = join(resolvePaths(ctx).oauthDir, `${tokenId(t.serverUrl, t.clientId, t.tokenSecret)}.json`);
  const accept = (v: OAuthTokenFile) => v.server_url === t.serverUrl;
  if (!t.persist) {
    const slot = memorySlot<OAuthTokenFile>(`token\n${file}`, accept);
    return {
      ...slot,
      file: null,
      async withLock(fn) {
        const prev = memoryLocks.get(file) ?? Promise.resolve();
        let done!: () => void;
        const mine = new Promise<void>((r) => (done = r));
        memoryLocks.set(file, mine);
        await prev;
        try {
          return await fn();
        } finally {
          done();
          if (memoryLocks.get(file) === mine) memoryLocks.delete(file);
        }
      },
    };
  }
  const slot = fileSlot<OAuthTokenFile>(ctx, file, OAuthTokenFile, accept, () => ensureDirs(ctx));
  return {
    ...slot,
    file,
    async withLock(fn) {
      await ensureDirs(ctx);
      let lock: Awaited<ReturnType<typeof acquireLock>>;
      try {
        lock = await acquireLock(file, { timeoutMs: REFRESH_LOCK_WAIT_MS, dirMode: 0o700, command: "mcp oauth" });
      } catch (err) {
        if (LemonError.is(err) && err.code === "CONFLICT")
          throw new LemonError("UNAUTHORIZED", "oauth token refresh lock timed out", { cause: err });
        throw err;
      }
      try {
        return await fn();
      } finally {
        await lock.release();
      }
    },
  };
}

/** Dynamic registrations, one per issuer, shared by every entry using that authorization server. */
export function clientStore(ctx: LemonContext, persist: boolean): ClientStore {
  const dir = join(resolvePaths(ctx).oauthDir, "clients");
  return {
    forIssuer(issuer) {
      const file = join(dir, clientFileName(issuer));
      const accept = (v: OAuthClientFile) => v.issuer === issuer;
      return persist
        ? fileSlot<OAuthClientFile>(ctx, file, OAuthClientFile, accept, () => ensureDirs(ctx, "clients"))
        : memorySlot<OAuthClientFile>(`client\n${file}`, accept);
    },
  };
}
