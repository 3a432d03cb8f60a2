// A stdio server starts while the SDK loads (issue #13 speed): on a cold start the child's own
// start-up and lemon's module loading overlap instead of adding up. The fixture script holds the
// session module's load (a Bun runtime plugin) until the child has written its start marker.
// The same script shows that a closed connection leaves nothing that keeps a process alive.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const SCRIPT = resolve(import.meta.dir, "../../../fixtures/mcp-servers/early-spawn.ts");

describe("stdio start", () => {
  test("the child is spawned before the session module (and the SDK) has loaded", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lemon-early-"));
    try {
      const marker = join(dir, "log");
      const p = Bun.spawn([process.execPath, SCRIPT, marker], { stdout: "pipe", stderr: "pipe", cwd: dir });
      // The script ends on its own once its connection is closed: no timer of the close (its
      // 6 s budget) may keep the process alive.
      const exited = await Promise.race([
        p.exited.then(() => "exited"),
        new Promise((r) => setTimeout(() => r("alive 5 s after start"), 5_000)),
      ]);
      if (exited !== "exited") p.kill("SIGKILL");
      expect(exited).toBe("exited");
      const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
      expect(code).toBe(0);
      expect(out.trim()).toBe("child-first 2");
      expect(readFileSync(marker, "utf8").split("\n").slice(0, 2)).toEqual(["start", "initialize"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
