/**
 * Usage sidecar under contention (issue 12 §5): 1,000 loads recorded by 8 concurrent processes
 * (125 each) into one `skills.usage.json`, every count checked, against the floor of the same
 * work that any locked atomic update must do: an empty lock + atomic write + unlock cycle.
 *
 *   npx bun scripts/bench/usage.ts [--runs N] [--procs P] [--loads L]
 *
 * Rows (each the median of N runs, wall time of all P processes from spawn to exit):
 * - `floor`: per update, acquireLock + writeFileAtomic of a fixed 100-byte document + release.
 * - `recordLoad`: per update, the sidecar's read-modify-write (lock, read, parse, check, bump,
 *   verify, atomic write, unlock) through `recordLoad`.
 * - `readSkill`: per update, a whole `lemon.readSkill` summary call of a real skill (catalog,
 *   view, event, sidecar), the path an agent's load takes.
 * - `process start`: P processes that import the sidecar module and exit, so the per-record cost
 *   can be read without it (subtracted in the last column).
 * A run whose final count is not exactly P × L fails the script.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pct } from "./measure.ts";

const SRC = join(import.meta.dir, "..", "..", "src", "core");

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer`);
  return v;
}

const WORKER = `
const [mode, cwd, agentDir, n] = process.argv.slice(2);
const count = Number(n);
const ts = () => new Date().toISOString().replace(/\\.\\d{3}Z$/, "Z");
if (mode === "start") {
  await import(${JSON.stringify(join(SRC, "skills/usage/sidecar.ts"))});
} else if (mode === "floor") {
  const { acquireLock } = await import(${JSON.stringify(join(SRC, "fsx/lock.ts"))});
  const { writeFileAtomic } = await import(${JSON.stringify(join(SRC, "fsx/atomic.ts"))});
  const file = agentDir + "/floor.json";
  const body = JSON.stringify({ version: 1, pad: "x".repeat(80) }) + "\\n";
  for (let i = 0; i < count; i++) {
    const lock = await acquireLock(file, { command: "bench", timeoutMs: 60000 });
    try { await writeFileAtomic(file, body, { confineTo: null }); } finally { await lock.release(); }
  }
} else if (mode === "recordLoad") {
  const { createContext } = await import(${JSON.stringify(join(SRC, "context.ts"))});
  const { recordLoad } = await import(${JSON.stringify(join(SRC, "skills/usage/sidecar.ts"))});
  const ctx = createContext({ cwd, agentDir, env: {} });
  for (let i = 0; i < count; i++)
    await recordLoad(ctx, "global", { ts: ts(), key: "bench-skill", scope: "global", view: "summary", result: "ok", chars: 100, duration_ms: 0 });
} else if (mode === "readSkill") {
  const { createLemon } = await import(${JSON.stringify(join(SRC, "index.ts"))});
  const lemon = createLemon({ cwd, agentDir, env: {}, curator: false, readConfigFile: false });
  let lost = 0;
  lemon.events.on("diagnostic", () => lost++);
  for (let i = 0; i < count; i++) {
    const r = await lemon.readSkill({ key: "bench-skill", view: "summary" });
    if (r.isError) throw new Error("readSkill failed");
  }
  await lemon.close();
  if (lost > 0) throw new Error(lost + " loads not recorded");
}
`;

interface Row {
  name: string;
  wallMs: number[];
}

async function main(): Promise<void> {
  const runs = arg("--runs", 3);
  const procs = arg("--procs", 8);
  const loads = arg("--loads", 125);
  const scratch = mkdtempSync(join(tmpdir(), "lemon-bench-usage-"));
  try {
    const worker = join(scratch, "worker.ts");
    await writeFile(worker, WORKER);
    const rows: Row[] = ["process start", "floor", "recordLoad", "readSkill"].map((name) => ({ name, wallMs: [] }));
    for (let run = 0; run < runs; run++) {
      for (const row of rows) {
        const mode = row.name === "process start" ? "start" : row.name;
        const dir = join(scratch, `${mode}-${run}`);
        const agentDir = join(dir, "agent");
        const project = join(dir, "project");
        const skill = join(agentDir, "skill", "bench-skill");
        await mkdir(skill, { recursive: true });
        await mkdir(project, { recursive: true });
        await writeFile(
          join(skill, "SKILL.md"),
          "---\nname: bench-skill\ndescription: Use this skill when benchmarking usage records.\n---\n# Steps\n\nCount.\n",
        );
        const started = performance.now();
        const children = Array.from({ length: procs }, () =>
          Bun.spawn([process.execPath, worker, mode, project, agentDir, String(loads)], {
            stdout: "ignore",
            stderr: "inherit",
          }),
        );
        const codes = await Promise.all(children.map((c) => c.exited));
        row.wallMs.push(performance.now() - started);
        if (codes.some((c) => c !== 0)) throw new Error(`${row.name}: a worker failed (${codes.join(",")})`);
        if (mode === "recordLoad" || mode === "readSkill") {
          const doc = JSON.parse(readFileSync(join(agentDir, "skills.usage.json"), "utf8"));
          const got = doc.skills["bench-skill"]?.load_count;
          if (got !== procs * loads) throw new Error(`${row.name}: lost counts: ${got} of ${procs * loads}`);
        }
      }
    }
    const total = procs * loads;
    const start = pct(rows[0]!.wallMs, 50);
    const floor = pct(rows[1]!.wallMs, 50) - start;
    console.log(`${total} updates from ${procs} concurrent processes (${loads} each), median of ${runs} runs\n`);
    console.log("| row | wall ms (p50) | per update ms | per update ms without process start | × floor |");
    console.log("|---|---:|---:|---:|---:|");
    for (const row of rows) {
      const wall = pct(row.wallMs, 50);
      const per = wall / total;
      const net = row.name === "process start" ? null : (wall - start) / total;
      const ratio = net === null || floor <= 0 ? "" : ((wall - start) / floor).toFixed(2);
      console.log(
        `| ${row.name} | ${wall.toFixed(0)} | ${per.toFixed(3)} | ${net === null ? "" : net.toFixed(3)} | ${ratio} |`,
      );
    }
    console.log(`\nno lost count: ${total} of ${total} recorded in every recordLoad and readSkill run`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
