/**
 * @module skills/search/worker-client
 * One lazily started snapshot worker per lemon instance. The worker is referenced only while a
 * request is pending, so an idle worker never keeps a process alive; `close()` terminates it.
 */
import { isValid } from "../../schema/check.ts";
import { snapshotWorker, type WorkerLocation } from "../../workers/spec.ts";
import {
  WorkerReply,
  type BuildRequest,
  type BuiltReply,
  type ScoreRequest,
  type ScoredReply,
} from "./worker-protocol.ts";

type Pending = { resolve: (r: WorkerReply) => void; reject: (e: Error) => void };
type Omit2<T> = T extends unknown ? Omit<T, "id"> : never;

export class SnapshotWorkerClient {
  #worker: Worker | null = null;
  #next = 1;
  #pending = new Map<number, Pending>();
  #broken: Error | null = null;

  constructor(readonly location: WorkerLocation = snapshotWorker()) {}

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const w = new Worker(this.location);
    w.onmessage = (ev: MessageEvent<unknown>) => {
      const msg = ev.data;
      if (!isValid(WorkerReply, msg)) return this.#failAll(new Error("invalid reply from the snapshot worker"));
      const reply = msg as WorkerReply;
      const p = this.#pending.get(reply.id);
      if (!p) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) w.unref();
      p.resolve(reply);
    };
    w.onerror = (ev: ErrorEvent) => this.#failAll(new Error(`snapshot worker failed: ${ev.message}`));
    w.unref();
    this.#worker = w;
    return w;
  }

  #failAll(err: Error): void {
    this.#broken = err;
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    this.#worker?.terminate();
    this.#worker = null;
  }

  #request(msg: Omit2<BuildRequest | ScoreRequest>): Promise<WorkerReply> {
    if (this.#broken) return Promise.reject(this.#broken);
    const w = this.#start();
    const id = this.#next++;
    return new Promise<WorkerReply>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      w.ref();
      w.postMessage({ ...msg, id });
    });
  }

  async build(req: Omit<BuildRequest, "id" | "type">): Promise<BuiltReply> {
    const r = await this.#request({ type: "build", ...req });
    if (r.type === "failed") throw new Error(r.message);
    if (r.type !== "built") throw new Error("unexpected reply from the snapshot worker");
    return r;
  }

  /** Scores a query over the snapshot file in the worker (for embedders keeping the main thread free). */
  async score(file: string, query: string, limit: number): Promise<ScoredReply["hits"]> {
    const r = await this.#request({ type: "score", file, query, limit });
    if (r.type === "failed") throw new Error(r.message);
    if (r.type !== "scored") throw new Error("unexpected reply from the snapshot worker");
    return r.hits;
  }

  close(): void {
    this.#failAll(new Error("snapshot worker closed"));
    this.#broken = null;
  }
}
