/**
 * @module mcp/client/transport/stdio
 * The main-thread side of a stdio server (mcp.md §5.1): an SDK `Transport` over the messages the
 * worker posts. The worker spawns, frames and parses; this side forwards JSON-RPC both ways and
 * turns the worker's fixed reasons into the connection's close reason.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isAbsolute, resolve } from "node:path";
import type { LemonContext } from "../../../context.ts";
import { mcpStdioWorker, type WorkerLocation } from "../../../workers/spec.ts";
import type { McpServerConfig } from "../../types.ts";
import {
  connectError,
  type CloseReason,
  type ConnectableServer,
  type ConnectOptions,
  type OutputRing,
} from "../connect.ts";
import {
  SHUTDOWN_KILL_AFTER_MS,
  SHUTDOWN_TERM_AFTER_MS,
  tagErrorAnswer,
  type FromWorker,
  type StdioSpawnSpec,
  type ToWorker,
} from "./protocol.ts";
import { TextRing } from "./ring.ts";
import { childEnv } from "./spawn.ts";

/** The spawn spec of an expanded stdio entry; `cwd` resolves against the project directory C. */
export function stdioSpec(entry: McpServerConfig, ctx: LemonContext, projectDir: string): StdioSpawnSpec {
  const cwd = typeof entry.cwd === "string" && entry.cwd !== "" ? entry.cwd : projectDir;
  return {
    command: entry.command ?? "",
    args: [...(entry.args ?? [])],
    cwd: isAbsolute(cwd) ? cwd : resolve(projectDir, cwd),
    env: childEnv(ctx.env, ctx.platform, entry),
    platform: ctx.platform,
  };
}

export class WorkerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** Why the connection ended, once it has; null while open. */
  reason: CloseReason | null = null;
  protocolVersion: string | null = null;
  /** Posts from the worker so far: what a flood of server output costs the main thread. */
  posts = 0;

  private worker: Worker | null = null;
  private done = false;
  private starting: Promise<void> | null = null;
  /** Messages that arrived before the SDK client attached (a server that speaks first). */
  private early: JSONRPCMessage[] = [];
  private exited: Promise<void>;
  private markExited!: () => void;

  constructor(
    private readonly spec: StdioSpawnSpec,
    private readonly ring: OutputRing,
    private readonly location: WorkerLocation = mcpStdioWorker(),
  ) {
    this.exited = new Promise((r) => {
      this.markExited = r;
    });
  }

  /** The SDK's start: the worker may be running already (`prestart`); what it heard is handed on. */
  start(): Promise<void> {
    const p = this.prestart();
    const held = this.early;
    this.early = [];
    for (const m of held) this.onmessage?.(m);
    return p;
  }

  /** Starts the worker and the child once, before the SDK client exists if need be. */
  prestart(): Promise<void> {
    this.starting ??= this.spawn();
    return this.starting;
  }

  private spawn(): Promise<void> {
    return new Promise((resolveStart, rejectStart) => {
      let started = false;
      let worker: Worker;
      try {
        worker = new Worker(this.location);
      } catch {
        rejectStart(connectError("spawn failed"));
        return;
      }
      this.worker = worker;
      worker.onmessage = (ev: MessageEvent<FromWorker>) => {
        const m = ev.data;
        this.posts++;
        if (m.type === "message") {
          if (this.onmessage) this.onmessage(m.message as JSONRPCMessage);
          else this.early.push(m.message as JSONRPCMessage);
        } else if (m.type === "stderr") this.ring.push(m.text);
        else if (m.type === "unparsable") {
          // The request is answered at once rather than left to its timeout.
          const answer = { jsonrpc: "2.0", id: m.id, error: { code: -32700, message: "protocol error" } };
          tagErrorAnswer(answer, "protocol");
          if (this.onmessage) this.onmessage(answer as JSONRPCMessage);
          else this.early.push(answer as JSONRPCMessage);
        } else if (m.type === "spawned") {
          started = true;
          resolveStart();
        } else if (m.type === "failed") {
          this.reason ??= m.reason;
          if (!started) rejectStart(connectError(m.reason));
          this.finish();
        } else if (m.type === "exited") {
          this.reason ??= m.reason ?? "connection closed";
          if (!started) rejectStart(connectError(this.reason));
          this.finish();
        }
      };
      worker.onerror = (ev) => {
        ev.preventDefault();
        this.reason ??= started ? "connection closed" : "spawn failed";
        if (!started) rejectStart(connectError("spawn failed"));
        this.finish();
      };
      this.post({ type: "start", spec: this.spec });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.done) throw connectError(this.reason ?? "connection closed");
    this.post({ type: "send", message });
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** Runs the worker's shutdown ladder, then ends the worker; resolves when both are gone. */
  async close(): Promise<void> {
    if (!this.done && this.worker) {
      this.post({ type: "close" });
      const budget = SHUTDOWN_TERM_AFTER_MS + SHUTDOWN_KILL_AFTER_MS + 1_000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, budget)))]);
      // A pending budget timer would keep the process alive for 6 s after the child is gone.
      clearTimeout(timer);
    }
    this.finish();
  }

  private post(m: ToWorker): void {
    this.worker?.postMessage(m);
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.reason ??= "connection closed";
    this.worker?.terminate();
    this.worker = null;
    this.markExited();
    this.onclose?.();
  }
}

/**
 * A stdio server's transport, started at once: the child's start-up then overlaps the loading
 * of the session module and the SDK (a cold `lemon mcp call` would otherwise pay both in turn).
 */
export function startStdio(
  server: ConnectableServer,
  opts: ConnectOptions,
): { transport: WorkerTransport; ring: OutputRing } {
  const ring = opts.ring ?? new TextRing();
  const transport = new WorkerTransport(stdioSpec(server.server.entry, opts.ctx, opts.cwd), ring);
  // A failure is reported again by the SDK's start(); here it must not go unhandled.
  transport.prestart().catch(() => {});
  return { transport, ring };
}
