/**
 * @module core/workers/spec
 * Where each worker's code lives (DESIGN.md §5). In the compiled binary every bundled module sees
 * the entrypoint's `import.meta.url`, so `new URL("./x.worker.ts", import.meta.url)` from this
 * nested module would point at the wrong place: build.ts define's the embedded path of each worker
 * (from the list in scripts/targets.ts) and source runs fall back to the file beside this one.
 */

declare const LEMON_WORKER_SNAPSHOT: string | undefined;
declare const LEMON_WORKER_MCP_STDIO: string | undefined;

/** A location `new Worker(...)` accepts: the embedded path in the binary, a file URL in source. */
export type WorkerLocation = string | URL;

/** The search-snapshot builder worker (`snapshot.worker.ts`). */
export function snapshotWorker(): WorkerLocation {
  return typeof LEMON_WORKER_SNAPSHOT === "string"
    ? LEMON_WORKER_SNAPSHOT // "./core/workers/snapshot.worker.ts"
    : new URL("./snapshot.worker.ts", import.meta.url);
}

/** One stdio MCP server per worker (`mcp-stdio.worker.ts`, mcp.md §5.1). */
export function mcpStdioWorker(): WorkerLocation {
  return typeof LEMON_WORKER_MCP_STDIO === "string"
    ? LEMON_WORKER_MCP_STDIO // "./core/workers/mcp-stdio.worker.ts"
    : new URL("./mcp-stdio.worker.ts", import.meta.url);
}
