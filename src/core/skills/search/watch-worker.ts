/**
 * @module skills/search/watch-worker
 * The source of the watch worker (watcher.ts): per watch, the watchers of its plan, synced in
 * place when the plan changes, and its shared counters (state, events, holes).
 */
/**
 * The worker, as source: it has to exist as a file only for this module, so it is built from a
 * Blob and needs no entry of its own in the binary. Plain JS, no imports beyond node:fs and
 * node:path. The file-system work of a plan (following symlink chains, probing every SKILL.md for
 * links and hard links: ~150 ms at 11k) happens here, never on the agent's thread.
 */
export function workerSource(state: { Armed: number; Failed: number; Closed: number }): string {
  return `
const { watch, lstatSync, readlinkSync, statSync } = require("node:fs");
const { basename, dirname, isAbsolute, join, resolve, sep } = require("node:path");
const ARMED = ${state.Armed}, FAILED = ${state.Failed}, CLOSED = ${state.Closed};
const NO_THROW = { throwIfNoEntry: false };
const watches = new Map();
// Handles closed on purpose (a re-arm): their "close" event is not a failure.
const closing = new WeakSet();
const lstat = (p) => { try { return lstatSync(p, NO_THROW); } catch { return undefined; } };
const inoOf = (p) => { try { return statSync(p, NO_THROW)?.ino ?? -1; } catch { return -1; } };
// Resolves p one component at a time as the kernel does, adding the real directory holding every
// symlink met (any component, any hop) to out, and the directory a missing component would be
// created in; the real path, or null (missing, a loop).
function chain(p, out) {
  const todo = resolve(p).split(sep).filter(Boolean).reverse();
  let cur = sep, hops = 0;
  while (todo.length > 0) {
    const name = todo.pop();
    if (name === ".") continue;
    if (name === "..") { cur = dirname(cur); continue; }
    const next = join(cur, name);
    const st = lstat(next);
    // Missing (a dangling link, a target renamed away): where it would appear is watched.
    if (!st) { out.add(cur); return null; }
    if (!st.isSymbolicLink()) { cur = next; continue; }
    if (++hops > 40) return null;
    out.add(cur);
    let t;
    try { t = readlinkSync(next); } catch { return null; }
    if (isAbsolute(t)) cur = sep;
    todo.push(...t.split(sep).filter(Boolean).reverse());
  }
  return cur;
}
// What a plan's chains and probes add to out: for a chain, its links' directories and its real
// target when a directory; for a SKILL.md, when a link, its links' directories and its real
// file's, and the file itself when it has other hard links (an edit through another name is an
// event on the inode only). Returns those files with their inodes.
function expand(m, out) {
  for (const p of m.chains) {
    const real = chain(p, out);
    if (real !== null && lstat(real)?.isDirectory()) out.add(real);
  }
  for (const p of m.links) chain(p, out);
  const files = new Map();
  for (const f of m.probe) {
    let st = lstat(f), file = f;
    if (st?.isSymbolicLink()) {
      file = chain(f, out);
      if (file === null) continue;
      out.add(dirname(file));
      st = lstat(file);
    }
    if (st?.isFile() && st.nlink > 1) { out.add(file); files.set(file, st.ino); }
  }
  return files;
}
function open(m) {
  const flag = m.flag;
  // handles: key ("R" or "S" + path) -> watcher; inos: key -> the inode watched; files: the
  // hard-linked files planned, path -> inode.
  const w = { handles: new Map(), inos: new Map(), quiet: false, paths: [], m, files: new Map(), want: new Set() };
  watches.set(m.id, w);
  const done = () => Atomics.load(flag, 0) >= FAILED;
  const bump = () => {
    Atomics.add(flag, 1, 1);
    if (Atomics.compareExchange(flag, 2, 1, 0) === 1) postMessage({ type: "changed", id: m.id });
  };
  const stop = (state, message) => {
    if (done()) return;
    Atomics.store(flag, 0, state);
    w.quiet = true;
    for (const h of w.handles.values()) try { h.close(); } catch {}
    bump();
    postMessage({ type: state === FAILED ? "failed" : "stale", id: m.id, message });
  };
  const holes = () => {
    let n = 0;
    for (const key of w.want) if (!w.handles.has(key)) n++;
    Atomics.store(flag, 3, n);
  };
  const add = (key, dir, recursive) => {
    let h;
    const own = basename(dir);
    try {
      h = watch(dir, { recursive, persistent: false }, (type, name) => {
        // The watched path itself moved or went (no name, or a "rename" under its own name with no
        // such entry inside it): this watcher follows the old inode, so it is a hole. Not decided by
        // inode numbers: a directory made again at once often gets the freed number back.
        const self = name === null || name === undefined || name === "" || (name === own && type === "rename" && !lstat(join(dir, own)));
        if (self) {
          if (w.handles.get(key) === h) drop(key);
          holes();
        }
        bump();
      });
    } catch (err) {
      // Gone since the plan was made: a hole, filled by the plan of the next check.
      if (err && (err.code === "ENOENT" || err.code === "ENOTDIR")) return;
      throw err;
    }
    w.inos.set(key, inoOf(dir));
    h.on("error", (err) => stop(FAILED, String((err && err.message) || err)));
    h.on("close", () => { if (!w.quiet && !closing.has(h)) stop(FAILED, "watcher closed"); });
    w.handles.set(key, h);
  };
  const drop = (key) => {
    const h = w.handles.get(key);
    closing.add(h);
    try { h.close(); } catch {}
    w.handles.delete(key);
    w.inos.delete(key);
  };
  // Brings the watchers to plan p: keeps those still wanted, closes the others, adds the new
  // ones (and a hard-linked file whose inode changed). True when anything changed: the caller
  // then counts an event, so a change made before a new watcher existed is seen by the next check.
  const sync = (p) => {
    const out = new Set(p.single);
    const files = expand(p, out);
    if (out.size + p.recursive.length > p.max) {
      stop(FAILED, "more than " + p.max + " directories and files to watch");
      return false;
    }
    const want = new Set(p.recursive.map((d) => "R" + d));
    for (const d of out) want.add("S" + d);
    // A hole being filled or dropped: something went unwatched for a while, so count an event.
    let changed = Atomics.load(flag, 3) > 0;
    // A kept watcher whose path now names another inode (replaced since) is watched afresh.
    for (const key of [...w.handles.keys()])
      if (!want.has(key) || inoOf(key.slice(1)) !== w.inos.get(key)) { drop(key); changed = true; }
    for (const key of want) if (!w.handles.has(key)) { add(key, key.slice(1), key[0] === "R"); changed = true; }
    w.m = p;
    w.want = want;
    w.files = files;
    w.paths = [...p.recursive, ...out];
    holes();
    return changed;
  };
  w.sync = (p) => {
    if (done()) return;
    try { if (sync(p)) bump(); } catch (err) { stop(FAILED, String((err && err.message) || err)); }
  };
  try {
    sync(m);
  } catch (err) {
    stop(FAILED, String((err && err.message) || err));
    return;
  }
  if (!done()) { Atomics.store(flag, 0, ARMED); postMessage({ type: "armed", id: m.id }); }
}
self.onmessage = (e) => {
  const m = e.data;
  const w = watches.get(m.id);
  if (m.type === "watch") open(m);
  else if (m.type === "unwatch" && w) {
    w.quiet = true;
    Atomics.store(m.flag, 0, CLOSED);
    for (const h of w.handles.values()) try { h.close(); } catch {}
    watches.delete(m.id);
  } else if (m.type === "sever" && w) for (const h of w.handles.values()) try { h.close(); } catch {}
  // Same plan, files may have changed (reprobe), or a new plan for the same scope (update).
  else if (m.type === "reprobe" && w) w.sync(w.m);
  else if (m.type === "update" && w) w.sync({ ...m, flag: w.m.flag });
  else if (m.type === "paths") postMessage({ type: "paths", id: m.id, paths: w ? w.paths : [] });
};
`;
}
