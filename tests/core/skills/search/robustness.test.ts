// Snapshots shared between real processes (skills.md §7.3, DESIGN.md §4): concurrent rebuilds
// leave one valid file, and a file replaced under a process that has it mapped leaves that
// process's bytes alone (new file + rename, never an in-place write).
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { registryOf } from "../../../../src/core/internals.ts";
import { readSnapshotFile } from "../../../../src/core/skills/search/file.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { lemonFor } from "./lemon-for.ts";

const CHILD = join(import.meta.dir, "fixtures", "snapshot-child.ts");

function config(box: Sandbox, query: string) {
  return { cwd: box.project, agentDir: box.agentDir, root: join(box.root, "global-skills"), query };
}

function spawnChild(mode: string, cfg: object, stdin: "ignore" | "pipe" = "ignore") {
  return Bun.spawn([process.execPath, CHILD, mode, JSON.stringify(cfg)], {
    stdin,
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "" },
  });
}

/** Reads stdout line by line. */
function lines(stream: ReadableStream<Uint8Array>): () => Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  return async () => {
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`child closed stdout; pending: ${buf}`);
      buf += decoder.decode(value, { stream: true });
    }
  };
}

async function skills(box: Sandbox, n: number, prefix = "kafka"): Promise<void> {
  for (let i = 0; i < n; i++)
    await box.skill(
      "global-skills",
      `${prefix}-${String(i).padStart(3, "0")}`,
      {
        name: `${prefix}-${i}`,
        description: `Kafka topics, consumer groups and partition ${i} rebalancing.`,
      },
      `# ${prefix} ${i}\n\n${"Brokers, offsets and retention. ".repeat(40)}\n`,
    );
}

const snapDir = (box: Sandbox) => join(box.agentDir, "cache", "skills");

describe("search snapshot across processes", () => {
  test("two processes rebuilding the same snapshot at once leave a valid, current snapshot", async () => {
    await using box = await sandbox();
    await skills(box, 120);
    const cfg = config(box, "kafka partition rebalancing");
    const [a, b] = [spawnChild("rebuild", cfg), spawnChild("rebuild", cfg)];
    const [outA, outB] = await Promise.all([new Response(a.stdout).text(), new Response(b.stdout).text()]);
    expect([await a.exited, await b.exited]).toEqual([0, 0]);
    expect(JSON.parse(outA).keys.length).toBe(50);
    expect(JSON.parse(outA)).toEqual(JSON.parse(outB));
    // One snapshot file, no temp file left behind, readable, and current: a third process
    // answers from it without rebuilding.
    const files = readdirSync(snapDir(box));
    expect(files.filter((f) => f.endsWith(".snap")).length).toBe(1);
    expect(files.filter((f) => !f.endsWith(".snap"))).toEqual([]);
    expect(readSnapshotFile(join(snapDir(box), files[0]!))).not.toBeNull();
    await using l = lemonFor(box);
    const got = await l.skills.findRelevant(cfg.query, { maxResults: 50 });
    expect((await registryOf(l)).relevance().store.lastBuild).toBeNull();
    expect(got.map((e) => e.key)).toEqual(JSON.parse(outA).keys);
  }, 30_000);

  test("a snapshot replaced while another process has it mapped leaves that process's bytes alone", async () => {
    await using box = await sandbox();
    await skills(box, 60);
    const cfg = config(box, "kafka partition rebalancing");
    const first = spawnChild("rebuild", cfg);
    expect(await first.exited).toBe(0);

    const holder = spawnChild("hold", cfg, "pipe");
    const read = lines(holder.stdout);
    const before = JSON.parse(await read());
    expect(before.keys.length).toBe(50);
    if (process.platform !== "win32") expect(before.mapped).toBe(true);

    // Another process rebuilds over a changed tree: a new file is renamed over the mapped one.
    await skills(box, 40, "zookeeper");
    const other = spawnChild("rebuild", { ...cfg, query: "zookeeper" });
    expect(await other.exited).toBe(0);
    const replaced = readSnapshotFile(join(snapDir(box), readdirSync(snapDir(box)).find((f) => f.endsWith(".snap"))!));
    expect(Buffer.from(replaced!.identity).toString("hex")).not.toBe(before.identity);

    const stdin = holder.stdin;
    if (!stdin) throw new Error("holder has no stdin pipe");
    stdin.write("go\n");
    await stdin.end();
    const after = JSON.parse(await read());
    expect(await holder.exited).toBe(0);
    // Same bytes, same answers: the holder still sees the snapshot it mapped.
    expect(after).toEqual(before);
  }, 30_000);
});
