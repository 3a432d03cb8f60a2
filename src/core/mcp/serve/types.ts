/**
 * @module mcp/serve/types
 * The options and handle of `lemon mcp serve` (cli.md §3.8) as the module takes them. No SDK and
 * no skills engine here: the public MCP entry names these types at no load cost.
 */
import type { Readable, Writable } from "node:stream";

/** What every transport serves. */
export interface ServeCommonOptions {
  /** Project directory whose skills are served with the global ones (default: the instance's). */
  cwd?: string;
  /** Serve global skills only: project skills, and global ones a project skill shadows, are absent. */
  globalOnly?: boolean;
  /** Offer `skill_manage` (skills.md §9); without it the tool is absent (default false). */
  allowWrites?: boolean;
  /** One line for the operator (stderr in the CLI); never the protocol stream. */
  log?: (line: string) => void;
}

/** stdio: the client's pipe pair; the server ends when `stdin` ends. */
export interface StdioServeOptions extends ServeCommonOptions {
  transport: "stdio";
  stdin: Readable;
  stdout: Writable;
  /**
   * Largest line from the client, in bytes (default 8 MiB): a longer one is dropped as it arrives
   * (never held whole) and answered with a JSON-RPC error; the session goes on.
   */
  maxMessageBytes?: number;
}

/** Streamable HTTP on `host:port` behind a bearer token. */
export interface HttpServeOptions extends ServeCommonOptions {
  transport: "http";
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** TCP port; 0 picks a free one (see the handle's `url`). */
  port: number;
  /** The bearer token every request must carry. */
  token: string;
  /** Largest request body, in bytes (default 4 MiB): a larger one is answered 413 unread. */
  maxBodyBytes?: number;
  /**
   * Most sessions at once (default 32). A new one beyond closes the least recently used session
   * with no request in flight; only when every session is busy is it refused with 503.
   */
  maxSessions?: number;
  /** POST answers of one session not yet delivered before its next POST gets 429 (default 16). */
  maxUnsentAnswers?: number;
  /** A session no request has touched for this long is closed, in ms (default 5 minutes). */
  sessionIdleMs?: number;
}

export type ServeOptions = StdioServeOptions | HttpServeOptions;

/** A running server. */
export interface SkillServer {
  /** `http://host:port/mcp` for HTTP; undefined for stdio. */
  readonly url?: string;
  /** Resolves once the server has stopped (stdin ended, or `close()`). */
  readonly closed: Promise<void>;
  /** Stops serving: closes sessions, the listener and the catalog watcher. */
  close(): Promise<void>;
  /**
   * Why the server stopped by itself on an error (stdio: its input failed, or the transport
   * closed), once `closed` resolved; null for a clean end (end of input, `close()`).
   */
  readonly failure: string | null;
}
