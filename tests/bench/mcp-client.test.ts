// scripts/bench/mcp-client.ts runs end to end on tiny inputs (one run, two servers, a few calls),
// so a change that breaks it fails CI. No timing is asserted: the figures are for people.
import { expect, test } from "bun:test";
import { join } from "node:path";

test("mcp-client.ts prints the three cases with their floors", () => {
  const p = Bun.spawnSync(
    [process.execPath, "scripts/bench/mcp-client.ts", "--runs", "1", "--calls", "3", "--servers", "2"],
    { cwd: join(import.meta.dir, "..", ".."), stdout: "pipe", stderr: "pipe" },
  );
  const out = p.stdout.toString();
  if (p.exitCode !== 0) throw new Error(`exit ${p.exitCode}:\n${p.stderr.toString()}\n${out}`);
  expect(out).toContain("floor: plain SDK client");
  expect(out).toMatch(/overhead -?[\d.]+ ms \(target <= 50 ms\)/);
  expect(out).toContain("floor: slowest single");
  expect(out).toMatch(/over the slowest -?[\d.]+ ms \(target <= 100 ms\)/);
  expect(out).toContain("floor: direct SDK call");
  expect(out).toMatch(/extra at p50 -?[\d.]+ ms \(target <= 1 ms\)/);
}, 60_000);
