// A GitHub-shaped server on 127.0.0.1 for the Hermes catalog (install.md §4.5), answering from a
// real git repository: `commits/<ref>` (rev-parse, with an ETag), `git/trees/<sha>?recursive=1`
// (ls-tree -r -t -l) and raw files under `/raw/<owner>/<repo>/<sha>/<path>` (the blob at that
// commit). Tests point LEMON_GITHUB_API_URL at `url` and LEMON_GITHUB_RAW_URL at `rawUrl`.
//
//   const hub = await githubServer(work);       // work = a git work tree with a commit on main
//   hub.intercept = (req, path) => …;           // answer a request another way (rate limits …)
//   hub.rawOverride.set("skills/a/x/SKILL.md", "other bytes");   // a file changed behind the tree
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { git } from "./git-repos.ts";

export interface SeenRequest {
  path: string;
  authorization: string | null;
  ifNoneMatch: string | null;
}

export interface GitHubServer {
  url: string;
  rawUrl: string;
  requests: SeenRequest[];
  intercept: ((req: Request, path: string) => Response | null | Promise<Response | null>) | null;
  /** Bytes served for a repository path instead of its blob (any commit). */
  rawOverride: Map<string, string | Uint8Array>;
  /** Answer trees with `truncated: true`. */
  truncated: boolean;
  stop(): void;
}

interface TreeEntry {
  path: string;
  mode: string;
  type: string;
  sha: string;
  size?: number;
}

const REPO = "NousResearch/hermes-agent";

export async function githubServer(work: string): Promise<GitHubServer> {
  const trees = new Map<string, TreeEntry[]>();
  const treeOf = async (sha: string): Promise<TreeEntry[] | null> => {
    const hit = trees.get(sha);
    if (hit) return hit;
    const out = await git(work, "ls-tree", "-r", "-t", "-l", sha).catch(() => null);
    if (out === null) return null;
    const entries = out
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => {
        const [meta = "", path = ""] = l.split("\t");
        const [mode = "", type = "", esha = "", size = "-"] = meta.split(/\s+/);
        return { path, mode, type, sha: esha, ...(size !== "-" ? { size: Number(size) } : {}) };
      });
    trees.set(sha, entries);
    return entries;
  };
  const blob = async (sha: string): Promise<Uint8Array> => {
    const p = Bun.spawn(["git", "cat-file", "blob", sha], { cwd: work, stdout: "pipe", stderr: "ignore" });
    const bytes = new Uint8Array(await new Response(p.stdout).arrayBuffer());
    await p.exited;
    return bytes;
  };
  const hub: GitHubServer = {
    url: "",
    rawUrl: "",
    requests: [],
    intercept: null,
    rawOverride: new Map(),
    truncated: false,
    stop: () => server.stop(true),
  };
  const json = (v: unknown, etag?: string) => Response.json(v, { headers: etag ? { etag } : {} });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      const path = decodeURIComponent(u.pathname);
      hub.requests.push({
        path: u.pathname + u.search,
        authorization: req.headers.get("authorization"),
        ifNoneMatch: req.headers.get("if-none-match"),
      });
      const custom = await hub.intercept?.(req, path);
      if (custom) return custom;
      const api = `/repos/${REPO}/`;
      if (path.startsWith(`${api}commits/`)) {
        const ref = path.slice(`${api}commits/`.length);
        const sha = await git(work, "rev-parse", "--verify", `${ref}^{commit}`).catch(() => null);
        if (sha === null) return new Response("{}", { status: 404 });
        const etag = `"c-${sha}"`;
        if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers: { etag } });
        return json({ sha, commit: { message: "x" } }, etag);
      }
      if (path.startsWith(`${api}git/trees/`)) {
        const sha = path.slice(`${api}git/trees/`.length);
        const entries = await treeOf(sha);
        if (entries === null) return new Response("{}", { status: 404 });
        return json({ sha, tree: entries, truncated: hub.truncated });
      }
      const raw = `/raw/${REPO}/`;
      if (path.startsWith(raw)) {
        const rest = path.slice(raw.length);
        const slash = rest.indexOf("/");
        const commit = rest.slice(0, slash);
        const file = rest.slice(slash + 1);
        const override = hub.rawOverride.get(file);
        if (override !== undefined) return new Response(override);
        const entry = (await treeOf(commit))?.find((e) => e.path === file && e.type === "blob");
        if (!entry) return new Response("404", { status: 404 });
        return new Response(await blob(entry.sha), { headers: { "content-type": "text/plain" } });
      }
      return new Response("not here", { status: 404 });
    },
  });
  hub.url = `http://127.0.0.1:${server.port}`;
  hub.rawUrl = `${hub.url}/raw`;
  return hub;
}

/** Skills copied into a fresh git work tree as `<collection dir>/<category>/<name>` (or `<dir>/<name>`), committed. */
export async function hermesRepo(
  root: string,
  skills: { from: string; to: string }[],
  extra: Record<string, string> = {},
): Promise<string> {
  const work = join(root, "hermes-agent");
  await mkdir(work, { recursive: true });
  for (const s of skills) await cp(s.from, join(work, s.to), { recursive: true });
  for (const [rel, text] of Object.entries(extra)) {
    await mkdir(join(work, rel, ".."), { recursive: true });
    await writeFile(join(work, rel), text);
  }
  await git(work, "init", "-q");
  await git(work, "add", "-A");
  await git(work, "commit", "-q", "-m", "catalog");
  return work;
}
