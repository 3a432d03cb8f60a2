// Loopback servers for online discovery (install.md §11): a GitHub-shaped repository search, a
// registry `/search` and a well-known index (with the files an install downloads). Each records
// what it was asked; `stopServers()` (from an afterEach) stops every one started so far.
//
//   const gh = githubApi([ghRepo("acme/deploy", 3, "deploy it")]);   // LEMON_GITHUB_API_URL = gh.origin
//   const wk = wellKnown([{ name: "deploy", files: ["SKILL.md"] }], { "deploy/SKILL.md": "---…" });
//   afterEach(stopServers);

export interface Seen {
  path: string;
  query: URLSearchParams;
  auth: string | null;
  accept: string | null;
}

export type Handler = (url: URL, req: Request) => Response | Promise<Response>;
const running: { stop(force?: boolean): void }[] = [];

export function stopServers(): void {
  for (const s of running.splice(0)) s.stop(true);
}

export function serve(handler: Handler): { origin: string; seen: Seen[] } {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({
        path: url.pathname,
        query: url.searchParams,
        auth: req.headers.get("authorization"),
        accept: req.headers.get("accept"),
      });
      return handler(url, req);
    },
  });
  running.push(server);
  return { origin: `http://127.0.0.1:${server.port}`, seen };
}

export const json = (v: unknown, init: ResponseInit = {}) => Response.json(v, init);

/** GitHub's `/search/repositories`, answering `items` to every query. */
export function githubApi(items: unknown[]): ReturnType<typeof serve> {
  return serve((u) =>
    u.pathname === "/search/repositories" ? json({ total_count: items.length, items }) : json({}, { status: 404 }),
  );
}

/** A repository as GitHub's search lists it. */
export const ghRepo = (full: string, stars: number, description = "") => ({
  full_name: full,
  name: full.split("/")[1],
  description,
  html_url: `https://github.com/${full}`,
  stargazers_count: stars,
});

/** A registry answering `/search` only (entries: see tests/core/install/registry.test.ts). */
export function registrySearch(skills: unknown[]): ReturnType<typeof serve> {
  return serve((u) => (u.pathname === "/search" ? json({ skills }) : json({}, { status: 404 })));
}

/**
 * `/.well-known/skills/index.json` listing `skills`; `files` maps `<name>/<path>` to the bytes
 * served at `/.well-known/skills/<name>/<path>`.
 */
export function wellKnown(skills: unknown[], files: Record<string, string> = {}): ReturnType<typeof serve> {
  const prefix = "/.well-known/skills/";
  return serve((u) => {
    if (u.pathname === `${prefix}index.json`) return json({ skills });
    const file = u.pathname.startsWith(prefix) ? files[decodeURIComponent(u.pathname.slice(prefix.length))] : undefined;
    return file === undefined ? new Response("no", { status: 404 }) : new Response(file);
  });
}
