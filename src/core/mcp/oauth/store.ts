/**
 * @module mcp/oauth/store
 * Token files and dynamic registrations under `A/secrets/mcp-oauth/` (mcp.md §11.6): 0700
 * directories, 0600 files written atomically, a corrupt file set aside (`.corrupt-<ts>`) and
 * reported instead of failing forever, and the refresh lock `<token file>.lock/` that makes N
 * processes spend a refresh token once. `persist_oauth_tokens: false` keeps both in this
 * process's memory only.
 */
import { chmod, lstat, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { LemonError } from "../../errors.ts";
import { formatJson, makeDir, writeFileAtomic } from "../../fsx/atomic.ts";
import { acquireLock } from "../../fsx/lock.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { parseJson } from "../../json.ts";
import { isInside, resolvePaths } from "../../paths.ts";
import { checkSchema } from "../../schema/check.ts";
import { OAuthClientFile, OAuthTokenFile } from "../../schema/oauth-files.ts";
import { decodeUtf8 } from "../../text.ts";

export type { OAuthClientFile, OAuthTokenFile } from "../../schema/oauth-files.ts";

export const REFRESH_LOCK_WAIT_MS = 30_000;
const MAX_FILE_BYTES = 256 * 1024;

const sha256Hex = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

/** A token id that is one plain file-name component (the entry schema's rule, checked again here). */
export const isSafeTokenId = (id: string) => /^[A-Za-z0-9._-]+$/.test(id) && id !== "." && id !== "..";

export const TOKEN_SECRET_MESSAGE = "oauth.token_secret must be a non-empty string of A-Z, a-z, 0-9, '.', '_', '-'";

/** `<token id>` of mcp.md §11.6. */
export function tokenId(serverUrl: string, clientId: string | null, tokenSecret: string | null): string {
  if (tokenSecret !== null) {
    // Defence in depth: an id from an unvalidated path never names a file outside the store.
    if (!isSafeTokenId(tokenSecret)) throw new LemonError("INVALID_PARAMS", TOKEN_SECRET_MESSAGE);
    return tokenSecret;
  }
  return `mcp_oauth_http_${sha256Hex(`${serverUrl}\n${clientId ?? ""}`).slice(0, 24)}`;
}

export const SYMLINK_MESSAGE = "refusing a symbolic link in the OAuth secrets directory";
const CORRUPT_WARNING = "corrupt OAuth token file set aside; authorization required";

export const clientFileName = (issuer: string) => `${sha256Hex(issuer).slice(0, 24)}.json`;

interface Slot<T> {
  read(): Promise<T | null>;
  write(value: T): Promise<void>;
  remove(): Promise<boolean>;
}

export interface TokenStore extends Slot<OAuthTokenFile> {
  /** The file, or null when tokens live in memory. */
  readonly file: string | null;
  /** Problems met while reading (a corrupt file set aside), for status. */
  readonly warnings: string[];
  /** Runs `fn` holding the refresh lock (30 s wait). */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
}

export interface ClientStore {
  forIssuer(issuer: string): Slot<OAuthClientFile>;
}

// persist: false — per process, keyed by the path the file would have.
const memory = new Map<string, unknown>();
const memoryLocks = new Map<string, Promise<void>>();

/** Null when `path` is missing; refuses a symbolic link (another user or a repo could plant one). */
async function lstatNoLink(path: string) {
  const st = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT" || err.code === "ENOTDIR") return null;
    throw err;
  });
  if (st?.isSymbolicLink()) throw new LemonError("FORBIDDEN", SYMLINK_MESSAGE);
  return st;
}

/** 0700 whether just made or found looser (mcp.md §11.6); a linked directory is refused. */
async function secureDir(dir: string): Promise<void> {
  await lstatNoLink(dir);
  await makeDir(dir, 0o700);
  const st = await lstatNoLink(dir);
  if (st !== null && process.platform !== "win32" && (st.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
}

/** The store's directories (with `sub`), none a symbolic link. */
async function checkDirs(ctx: LemonContext, sub: string | undefined, create: boolean): Promise<string> {
  const p = resolvePaths(ctx);
  const dirs = [p.secretsDir, p.oauthDir, ...(sub === undefined ? [] : [join(p.oauthDir, sub)])];
  for (const d of dirs) {
    if (create) await secureDir(d);
    else await lstatNoLink(d);
  }
  return dirs[dirs.length - 1]!;
}

const ensureDirs = (ctx: LemonContext, sub?: string) => checkDirs(ctx, sub, true);

function fileSlot<T>(
  ctx: LemonContext,
  file: string,
  schema: typeof OAuthTokenFile | typeof OAuthClientFile,
  accept: (v: T) => boolean,
  sub: string | undefined,
  warnings: string[],
): Slot<T> {
  const root = resolvePaths(ctx).oauthDir;
  // Every id is checked already; this keeps a future caller from renaming or deleting elsewhere.
  if (!isInside(file, root)) throw new LemonError("INVALID_PARAMS", TOKEN_SECRET_MESSAGE);
  return {
    async read() {
      await checkDirs(ctx, sub, false);
      if ((await lstatNoLink(file)) === null) return null;
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
        if (!warnings.includes(CORRUPT_WARNING)) warnings.push(CORRUPT_WARNING);
        return null;
      }
      return accept(value as T) ? (value as T) : null;
    },
    async write(value) {
      await ensureDirs(ctx, sub);
      await lstatNoLink(file);
      await writeFileAtomic(file, formatJson(value), { mode: 0o600, dirMode: 0o700, confineTo: root });
      // The temp file was created 0600; a umask or an older file never leaves it looser.
      if (process.platform !== "win32") await chmod(file, 0o600);
    },
    async remove() {
      await checkDirs(ctx, sub, false);
      // A planted link is removed itself (rm never follows it); its target is not touched.
      const st = await lstat(file).catch(() => null);
      await rm(file, { force: true });
      return st?.isFile() === true;
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
  let id: string;
  try {
    id = tokenId(t.serverUrl, t.clientId, t.tokenSecret);
  } catch (err) {
    return refusingStore(err);
  }
  const file = join(resolvePaths(ctx).oauthDir, `${id}.json`);
  const accept = (v: OAuthTokenFile) => v.server_url === t.serverUrl;
  if (!t.persist) {
    const slot = memorySlot<OAuthTokenFile>(`token\n${file}`, accept);
    return {
      ...slot,
      file: null,
      warnings: [],
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
  const warnings: string[] = [];
  const slot = fileSlot<OAuthTokenFile>(ctx, file, OAuthTokenFile, accept, undefined, warnings);
  return {
    ...slot,
    file,
    warnings,
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

/** The store of an entry whose token id is refused: every use fails with that error, nothing is touched. */
function refusingStore(err: unknown): TokenStore {
  const no = async (): Promise<never> => {
    throw err;
  };
  return { file: null, warnings: [], read: no, write: no, remove: no, withLock: no };
}

/** Dynamic registrations, one per issuer, shared by every entry using that authorization server. */
export function clientStore(ctx: LemonContext, persist: boolean): ClientStore {
  const dir = join(resolvePaths(ctx).oauthDir, "clients");
  return {
    forIssuer(issuer) {
      const file = join(dir, clientFileName(issuer));
      const accept = (v: OAuthClientFile) => v.issuer === issuer;
      return persist
        ? fileSlot<OAuthClientFile>(ctx, file, OAuthClientFile, accept, "clients", [])
        : memorySlot<OAuthClientFile>(`client\n${file}`, accept);
    },
  };
}
