/**
 * @module core/workers/mcp-stdio.worker
 * One stdio MCP server (mcp.md §5.1): spawns the child (argv, never a shell), frames its stdout
 * as newline-delimited JSON-RPC under the 8 MiB per-message cap, posts each parsed message as
 * plain data, keeps stderr in a 64 KiB ring (posted on as text, never parsed) and runs the
 * shutdown ladder. The main thread never sees a byte of server output.
 */
import type { Subprocess } from "bun";
import {
  MAX_MESSAGE_BYTES,
  SHUTDOWN_KILL_AFTER_MS,
  SHUTDOWN_TERM_AFTER_MS,
  type FromWorker,
  type StdioSpawnSpec,
  type ToWorker,
} from "../mcp/client/transport/protocol.ts";
import { STDERR_RING_BYTES, TextRing } from "../mcp/client/transport/ring.ts";
import { isBatchFile, resolveCommand, windowsBatchArgv } from "../mcp/client/transport/spawn.ts";
import type { CloseReason } from "../mcp/client/connect.ts";

declare const self: Worker;

const post = (m: FromWorker) => self.postMessage(m);

type Child = Subprocess<"pipe", "pipe", "pipe">;
let child: Child | null = null;
let ending: CloseReason | null = null;
let exited = false;
let shuttingDown: Promise<void> | null = null;
const ring = new TextRing(STDERR_RING_BYTES);
const STDERR_POST_INTERVAL_MS = 100;

function start(spec: StdioSpawnSpec): void {
  const program = resolveCommand(spec.command, spec.env, spec.cwd, spec.platform);
  if (program === null) {
    post({ type: "failed", reason: "spawn failed: command not found" });
    return;
  }
  const win = spec.platform === "win32";
  const argv =
    win && isBatchFile(program) ? windowsBatchArgv(program, spec.args, spec.env.COMSPEC) : [program, ...spec.args];
  try {
    child = Bun.spawn(argv, {
      cwd: spec.cwd,
      env: spec.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      // Its own process group, so the shutdown ladder reaches what the server started too.
      detached: !win,
      windowsVerbatimArguments: win && isBatchFile(program),
      windowsHide: true,
    });
  } catch {
    post({ type: "failed", reason: "spawn failed" });
    return;
  }
  const c = child;
  void readStdout(c);
  void readStderr(c);
  void c.exited.then(() => {
    exited = true;
    if (postTimer) clearTimeout(postTimer);
    noteDropped();
    flushStderr();
    post({ type: "exited", reason: ending });
  });
  post({ type: "spawned" });
}

/** Splits stdout at newlines; a message that grows past the cap ends the connection. */
async function readStdout(c: Child): Promise<void> {
  const pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const decoder = new TextDecoder();
  try {
    for await (const chunk of c.stdout) {
      let from = 0;
      while (from < chunk.length) {
        const nl = chunk.indexOf(10, from);
        const end = nl < 0 ? chunk.length : nl;
        const piece = chunk.subarray(from, end);
        if (pendingBytes + piece.length > MAX_MESSAGE_BYTES) return fail("message exceeds 8 MiB limit");
        if (nl < 0) {
          pending.push(piece.slice());
          pendingBytes += piece.length;
          break;
        }
        let line: Uint8Array = piece;
        if (pendingBytes > 0) {
          pending.push(piece);
          line = Buffer.concat(pending);
          pending.length = 0;
          pendingBytes = 0;
        }
        if (isLogPrefix(line) && !admitLog()) droppedLogs++;
        else deliver(decoder.decode(line));
        from = nl + 1;
      }
    }
  } catch {
    // The pipe closed under us: the exit handler reports it.
  }
}

/**
 * Anything that is not a JSON-RPC object is dropped: servers that print a banner to stdout
 * still work, and a flood of garbage is bounded by the cap and the handshake timeout.
 * Log notifications never cross to the main thread one by one: they are rendered here into the
 * stderr batches (mcp.md §5.4 "kept in the ring buffer only"), so a flood of them costs the main
 * thread what a chatty stderr costs, and the answers behind them are not stuck in its queue.
 */
function deliver(text: string): void {
  const t = text.endsWith("\r") ? text.slice(0, -1) : text;
  if (t.trim() === "") return;
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    // A response nested too deeply for the parser still names its request: fail that one now.
    // (Any runaway text is bounded by the 8 MiB cap; the scan is one linear pass.)
    const id = t.startsWith("{") ? topLevelId(t) : undefined;
    if (id !== undefined) post({ type: "unparsable", id });
    return;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return;
  const m = v as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return;
  if (m.method === "notifications/message" && m.id === undefined) {
    keepStderr(logLine(m.params));
    return;
  }
  try {
    post({ type: "message", message: m });
  } catch {
    // Too deep to copy to the main thread (structured clone has its own stack limit).
    if (typeof m.id === "string" || typeof m.id === "number") post({ type: "unparsable", id: m.id });
  }
}

/**
 * Log notifications as the SDK and most servers write them. A line that starts so is a log
 * notification whatever follows (its top-level `method` is fixed), so it can be counted and
 * dropped before it is decoded or parsed: a flood costs a byte compare per line.
 */
const LOG_PREFIXES = [
  Buffer.from('{"method":"notifications/message",'),
  Buffer.from('{"jsonrpc":"2.0","method":"notifications/message",'),
];
const isLogPrefix = (line: Uint8Array) =>
  LOG_PREFIXES.some((p) => line.length > p.length && Buffer.from(line.buffer, line.byteOffset, p.length).equals(p));

/** At most this many log lines per window reach the ring; the rest are counted, then noted. */
const LOGS_PER_WINDOW = 100;
const LOG_WINDOW_MS = 100;
let logWindowStart = 0;
let logsInWindow = 0;
let droppedLogs = 0;

function admitLog(): boolean {
  const now = Date.now();
  if (now - logWindowStart >= LOG_WINDOW_MS) {
    noteDropped();
    logWindowStart = now;
    logsInWindow = 0;
  }
  return ++logsInWindow <= LOGS_PER_WINDOW;
}

function noteDropped(): void {
  if (droppedLogs === 0) return;
  const n = droppedLogs;
  droppedLogs = 0;
  keepStderr(`[lemon] ${n} log notifications dropped\n`);
}

/** `[log <level>] <logger>: <data>` for the ring only (never status or errors). */
function logLine(params: unknown): string {
  const p = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
  const data = typeof p.data === "string" ? p.data : JSON.stringify(p.data ?? "");
  const level = typeof p.level === "string" ? p.level : "info";
  const logger = typeof p.logger === "string" && p.logger !== "" ? ` ${p.logger}:` : "";
  return `[log ${level}]${logger} ${data.length > 4096 ? data.slice(0, 4096) : data}\n`;
}

/**
 * The `id` member of the outermost object of a JSON text, found by a scan that tracks depth
 * (the parser gave up on the text, so nothing deeper is trusted). A number or a string, or none.
 */
function topLevelId(t: string): string | number | undefined {
  let depth = 0;
  let i = 0;
  while (i < t.length) {
    const c = t.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(t, i);
      if (end < 0) return undefined;
      if (depth === 1 && t.slice(i, end + 1) === '"id"') {
        const m = /^\s*:\s*(-?\d+|"(?:[^"\\\u0000-\u001f]|\\.){0,256}")\s*[,}]/.exec(t.slice(end + 1, end + 300));
        if (!m) return undefined;
        try {
          return JSON.parse(m[1]!) as string | number;
        } catch {
          return undefined;
        }
      }
      i = end + 1;
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
    i++;
  }
  return undefined;
}

function stringEnd(t: string, from: number): number {
  for (let i = from + 1; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return -1;
}

/** stderr not yet posted, at most one ring's worth. */
let unposted: TextRing | null = null;
let postTimer: ReturnType<typeof setTimeout> | null = null;

/** Posts the stderr gathered in the last interval as one message, so a chatty server costs the main thread at most ten small messages a second. */
function flushStderr(): void {
  postTimer = null;
  const text = unposted?.tail() ?? "";
  unposted = null;
  if (text !== "") post({ type: "stderr", text });
}

function keepStderr(chunk: string | Uint8Array): void {
  ring.push(chunk);
  (unposted ??= new TextRing(STDERR_RING_BYTES)).push(chunk);
  if (!exited) postTimer ??= setTimeout(flushStderr, STDERR_POST_INTERVAL_MS);
}

async function readStderr(c: Child): Promise<void> {
  try {
    for await (const chunk of c.stderr) {
      keepStderr(chunk);
    }
  } catch {
    // stderr is best effort.
  }
}

function fail(reason: CloseReason): void {
  ending ??= reason;
  void shutdown();
}

function signalGroup(c: Child, signal: NodeJS.Signals): void {
  try {
    // A negative pid names the process group the child leads (POSIX; `detached` made it).
    if (process.platform !== "win32") process.kill(-c.pid, signal);
    else c.kill(signal);
  } catch {
    try {
      c.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

const waitExit = (c: Child, ms: number) =>
  Promise.race([c.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

/** Close stdin; after 2 s SIGTERM to the group; after 3 s more SIGKILL. */
function shutdown(): Promise<void> {
  shuttingDown ??= (async () => {
    const c = child;
    if (!c || exited) return;
    try {
      await c.stdin.end();
    } catch {
      // A dead pipe: the signals below still apply.
    }
    if (await waitExit(c, SHUTDOWN_TERM_AFTER_MS)) return;
    signalGroup(c, "SIGTERM");
    if (await waitExit(c, SHUTDOWN_KILL_AFTER_MS)) return;
    signalGroup(c, "SIGKILL");
    await c.exited;
  })();
  return shuttingDown;
}

async function send(message: unknown): Promise<void> {
  const c = child;
  if (!c || exited || ending) return;
  const line = `${JSON.stringify(message)}\n`;
  try {
    c.stdin.write(line);
    await c.stdin.flush();
  } catch {
    fail("connection closed");
  }
}

self.onmessage = (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  if (msg.type === "start") start(msg.spec);
  else if (msg.type === "send") void send(msg.message);
  else if (msg.type === "close") {
    ending ??= "connection closed";
    if (!child || exited) post({ type: "exited", reason: ending });
    else void shutdown();
  }
};
