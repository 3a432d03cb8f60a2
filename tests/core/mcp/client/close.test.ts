// Closing a stdio connection (mcp.md §5.1): stdin is closed and a server that exits on its end is
// never signalled; close() resolves when the child is gone, the 2 s SIGTERM point being only the
// upper bound of the first step. The lively fixture logs `eof` and `SIGTERM` when they arrive.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectServer } from "../../../../src/core/mcp/client/connect.ts";
import { SHUTDOWN_TERM_AFTER_MS } from "../../../../src/core/mcp/client/transport/protocol.ts";
import { BUN, server, testContext } from "./peers.ts";

const LIVELY = resolve(import.meta.dir, "../../../fixtures/mcp-servers/lively.ts");

describe("stdio close", () => {
  test("a server that exits on stdin's end: close resolves before the SIGTERM point, no signal sent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lemon-close-"));
    try {
      const log = join(dir, "log");
      writeFileSync(log, "");
      const conn = await connectServer(server("stdio", { command: BUN, args: [LIVELY], env: { LIVELY_LOG: log } }), {
        ctx: testContext(),
        cwd: dir,
      });
      expect((await conn.list("tools")).items.length).toBe(2);
      const closed = await Promise.race([
        conn.close().then(() => "closed"),
        new Promise((r) => setTimeout(() => r("still waiting at the SIGTERM point"), SHUTDOWN_TERM_AFTER_MS)),
      ]);
      expect(closed).toBe("closed");
      const lines = readFileSync(log, "utf8").split("\n");
      expect(lines).toContain("eof");
      expect(lines).not.toContain("SIGTERM");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 15_000);
});
