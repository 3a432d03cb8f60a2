/**
 * @module skills/tools/manage-dirfd
 * Directories held open by descriptor for the commit of a `skill_manage` write (skills.md §9
 * Symlinks). The checks run long before the commit (stage, ~300 ms of audit), and another process
 * that can write in the skill (the agent's own shell) may swap a component for a symlink in
 * between. So the commit never names a file by path: it opens the root whose real path was
 * checked, then each component below it with O_NOFOLLOW|O_DIRECTORY relative to the descriptor
 * above (through Linux's `/proc/self/fd/<n>/<name>`, which is `openat`), and renames or unlinks
 * inside the last one. A component that is a link by then fails the open, and nothing outside
 * the skill is ever touched. Where `/proc/self/fd` does not exist the components are re-checked
 * with lstat right before each step instead (a far smaller window).
 */
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  unlinkSync,
} from "node:fs";
import { join } from "node:path";
import { ManageError } from "./manage-params.ts";

const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** True where a descriptor names its directory for path calls (`/proc/self/fd`). */
const HAS_FD_PATHS = process.platform === "linux" && existsSync("/proc/self/fd");

const symlinkRefused = (p: string) => new ManageError("forbidden", `refusing to write through symlink: ${p}`);

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** An open directory: `at(name)` names an entry in it that no later swap above it can redirect. */
export interface DirHandle extends Disposable {
  /** The path shown in messages (never the descriptor path). */
  shown: string;
  at(name: string): string;
  /** The child directory `name`, refused when it is a link or not a directory; created when asked. */
  child(name: string, create?: boolean): DirHandle;
  sync(): void;
}

function fdHandle(fd: number, shown: string): DirHandle {
  let closed = false;
  const h: DirHandle = {
    shown,
    at: (name) => `/proc/self/fd/${fd}/${name}`,
    child(name, create = false) {
      const path = h.at(name);
      const childShown = join(shown, name);
      if (create) {
        try {
          mkdirSync(path, { mode: 0o755 });
        } catch (err) {
          if (codeOf(err) !== "EEXIST") throw err;
        }
      }
      let cfd: number;
      try {
        cfd = openSync(path, DIR_FLAGS);
      } catch (err) {
        const code = codeOf(err);
        if (code === "ENOENT") throw new ManageError("not_found", `file not found: ${childShown}`);
        if (code !== "ENOTDIR" && code !== "ELOOP") throw err;
        let link = false;
        try {
          link = lstatSync(path).isSymbolicLink();
        } catch {
          // gone again: reported as the link it most likely was a moment ago
          link = true;
        }
        if (link) throw symlinkRefused(childShown);
        throw new ManageError("conflict", `${childShown} is not a directory`);
      }
      return fdHandle(cfd, childShown);
    },
    sync() {
      try {
        fsyncSync(fd);
      } catch {
        // Some file systems refuse directory fsync; the rename itself is still atomic.
      }
    },
    [Symbol.dispose]() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
  return h;
}

/** Path-based fallback: each component lstat-checked when it is opened and again when it is named. */
function pathHandle(dir: string, shown: string): DirHandle {
  const check = () => {
    if (lstatSync(dir).isSymbolicLink()) throw symlinkRefused(shown);
  };
  const h: DirHandle = {
    shown,
    at(name) {
      check();
      return join(dir, name);
    },
    child(name, create = false) {
      const path = h.at(name);
      if (create) {
        try {
          mkdirSync(path, { mode: 0o755 });
        } catch (err) {
          if (codeOf(err) !== "EEXIST") throw err;
        }
      }
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(path);
      } catch (err) {
        if (codeOf(err) === "ENOENT") throw new ManageError("not_found", `file not found: ${join(shown, name)}`);
        throw err;
      }
      if (st.isSymbolicLink()) throw symlinkRefused(join(shown, name));
      if (!st.isDirectory()) throw new ManageError("conflict", `${join(shown, name)} is not a directory`);
      return pathHandle(path, join(shown, name));
    },
    sync() {},
    [Symbol.dispose]() {},
  };
  return h;
}

/**
 * Opens the scope's skill root, which must still really be `real` (its path as checked before the
 * lock): a root swapped for a link to elsewhere since then is refused.
 */
export function openRoot(root: string, real: string): DirHandle {
  if (!HAS_FD_PATHS) {
    if (realpathSync(root) !== real) throw symlinkRefused(root);
    return pathHandle(root, root);
  }
  let fd: number;
  try {
    fd = openSync(root, DIR_FLAGS);
  } catch (err) {
    const code = codeOf(err);
    if (code === "ENOTDIR" || code === "ELOOP") throw symlinkRefused(root);
    throw err;
  }
  const h = fdHandle(fd, root);
  let opened: string | null = null;
  try {
    opened = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    opened = null;
  }
  if (opened !== real) {
    h[Symbol.dispose]();
    throw symlinkRefused(root);
  }
  return h;
}

/** Opens `segs` below `from` one by one (each refused when a link); `create` makes missing ones. */
export function openChain(from: DirHandle, segs: readonly string[], create = false): DirHandle {
  let cur = from;
  const opened: DirHandle[] = [];
  try {
    for (const seg of segs) {
      cur = cur.child(seg, create);
      opened.push(cur);
    }
  } catch (err) {
    for (const h of opened) h[Symbol.dispose]();
    throw err;
  }
  // The intermediate descriptors are no longer needed: the last one pins the directory.
  for (const h of opened.slice(0, -1)) h[Symbol.dispose]();
  return opened.length === 0 ? wrapBorrowed(from) : cur;
}

/** `from` itself, with a dispose that leaves it open for its owner. */
function wrapBorrowed(from: DirHandle): DirHandle {
  return { ...from, at: from.at, child: from.child, sync: from.sync, [Symbol.dispose]() {} };
}

/** Renames `fromName` in `from` to `toName` in `to` (the same file system: the skill root). */
export function renameBetween(from: DirHandle, fromName: string, to: DirHandle, toName: string): void {
  renameSync(from.at(fromName), to.at(toName));
}

/** Unlinks the file `name` of `dir` (a link there is removed itself, never followed). */
export function unlinkIn(dir: DirHandle, name: string): void {
  unlinkSync(dir.at(name));
}

/**
 * Removes the directory `name` of `parent` and everything in it without following a link: every
 * subdirectory is opened O_NOFOLLOW relative to its parent's descriptor before it is listed, so a
 * subdirectory swapped for a link mid-removal is unlinked as a link, never descended into.
 */
export function removeTreeIn(parent: DirHandle, name: string): void {
  let dir: DirHandle;
  try {
    dir = parent.child(name);
  } catch (err) {
    if (err instanceof ManageError && err.kind === "not_found") return;
    if (err instanceof ManageError) {
      // A link or a file where the directory was: only that name goes.
      unlinkIn(parent, name);
      return;
    }
    throw err;
  }
  try {
    for (const e of readdirSync(dir.at("."), { withFileTypes: true })) {
      if (e.isDirectory()) removeTreeIn(dir, e.name);
      else {
        try {
          unlinkIn(dir, e.name);
        } catch (err) {
          const code = codeOf(err);
          // Listed as a file but a directory now (swapped): removed as a tree, still without links.
          if (code === "EISDIR" || code === "EPERM") removeTreeIn(dir, e.name);
          else if (code !== "ENOENT") throw err;
        }
      }
    }
  } finally {
    dir[Symbol.dispose]();
  }
  try {
    rmdirSync(parent.at(name));
  } catch (err) {
    if (codeOf(err) !== "ENOENT") throw err;
  }
}
