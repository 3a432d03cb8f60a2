/**
 * @module core/workers/snapshot.worker
 * Builds search snapshots off the main thread and scores queries over a mapped snapshot
 * (skills.md §7.3, DESIGN.md §5). Messages are validated on receipt; every failure is answered
 * with a `failed` reply, never an uncaught error.
 */
import { isValid } from "../schema/check.ts";
import { readSnapshotFile, writeSnapshotFile } from "../skills/search/file.ts";
import { buildScope } from "../skills/search/scope-build.ts";
import { parseQuery, scoreSnapshot } from "../skills/search/score.ts";
import {
  WorkerRequest,
  type BuildRequest,
  type ScoreRequest,
  type WorkerReply,
} from "../skills/search/worker-protocol.ts";
import type { SkillCandidate } from "../skills/scan.ts";

declare const self: Worker;

async function build(req: BuildRequest): Promise<WorkerReply> {
  const roots = req.roots;
  const candidates: SkillCandidate[] = req.candidates.map((c) => {
    const root = roots[c.root];
    if (!root) throw new Error(`candidate ${c.key} names root ${c.root}`);
    return { key: c.key, root, path: c.path, realPath: c.realPath, category: c.category, skillFile: c.skillFile };
  });
  const previous = req.previous !== null ? readSnapshotFile(req.previous) : null;
  const identity = new Uint8Array(Buffer.from(req.identity, "hex"));
  if (req.watch.byteLength % 8 !== 0) throw new Error("watch stats are not whole Float64 values");
  const watch = new Float64Array(req.watch.slice().buffer);
  const r = await buildScope({
    roots,
    candidates,
    fingerprints: req.fingerprints,
    identity,
    scan: req.scan,
    watch,
    paths: req.paths,
    previous,
  });
  const writeError = req.file !== null ? await writeSnapshotFile(req.file, r.bytes) : null;
  return { type: "built", id: req.id, bytes: r.bytes, writeError, reused: r.reused, loaded: r.loaded };
}

function score(req: ScoreRequest): WorkerReply {
  const snap = readSnapshotFile(req.file);
  if (!snap) return { type: "failed", id: req.id, message: `no usable snapshot at ${req.file}` };
  const hits = scoreSnapshot(snap, parseQuery(req.query), req.limit);
  return { type: "scored", id: req.id, hits: hits.map((h) => ({ ...h, key: snap.keyOf(h.doc) })) };
}

self.onmessage = async (ev: MessageEvent<unknown>) => {
  const msg = ev.data;
  const id = typeof msg === "object" && msg !== null && "id" in msg && Number.isInteger(msg.id) ? Number(msg.id) : -1;
  let reply: WorkerReply;
  try {
    if (!isValid(WorkerRequest, msg)) reply = { type: "failed", id, message: "invalid request" };
    else {
      const req = msg as WorkerRequest;
      reply = req.type === "build" ? await build(req) : score(req);
    }
  } catch (err) {
    reply = { type: "failed", id, message: err instanceof Error ? err.message : String(err) };
  }
  if (reply.type === "built") self.postMessage(reply, [reply.bytes.buffer as ArrayBuffer]);
  else self.postMessage(reply);
};
