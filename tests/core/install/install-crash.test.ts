// Installs that do not finish, with real child processes: one killed (SIGKILL) at a chosen step of
// the sequence, one whose lockfile write fails with EFBIG (a full disk, through RLIMIT_FSIZE), and
// several installing different keys at once into one scope.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { computeBundleHash } from "../../../src/core/skills/bundle.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const INDEX = join(import.meta.dir, "../../../src/core/index.ts");

/** A child that installs `source` through the module and prints one JSON line. */
const CHILD = `
import { createLemon } from ${JSON.stringify(INDEX)};
const [cwd, source, as, force, scope] = Bun.argv.slice(2);
const lemon = createLemon({ cwd, env: process.env, curator: false });
try {
  const r = await lemon.skills.install(source, { approve: true, force: force === "1", as, global: scope !== "project" });
  console.log(JSON.stringify({ ok: true, action: r.action }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, code: e.code, message: e.message }));
  process.exitCode = 1;
}
await lemon.close();
`;

async function childScript(box: Sandbox): Promise<string> {
  return box.write("child.ts", CHILD);
}

function spawnInstall(
  box: Sandbox,
  script: string,
  args: { source: string; as: string; force?: boolean; scope?: "global" | "project" },
  env: Record<string, string> = {},
  wrap: string[] = [],
) {
  return Bun.spawn(
    [
      ...wrap,
      process.execPath,
      script,
      box.project,
      args.source,
      args.as,
      args.force ? "1" : "0",
      args.scope ?? "global",
    ],
    {
      cwd: box.project,
      env: { ...box.env, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0", ...env },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
}

async function waitFor(file: string, proc: { exitCode: number | null }): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (existsSync(file)) return;
    if (proc.exitCode !== null) throw new Error(`child exited (${proc.exitCode}) before ${file}`);
    await Bun.sleep(50);
  }
  throw new Error(`no marker ${file}`);
}

const dots = (dir: string) => readdirSync(dir).filter((n) => n.startsWith("."));

/** v1 installed as `hello`; the source then changes to v2. */
/** The state dir and audit cache of a scope (a project's cache lives under A, by scope id). */
function scopeFiles(box: Sandbox, scope: "global" | "project") {
  const state = scope === "global" ? box.agentDir : join(box.project, ".lemon");
  const auditDir = join(box.agentDir, "cache", "audit");
  const audit =
    scope === "global" ? join(box.agentDir, "skills.audit.json") : join(auditDir, readdirSync(auditDir)[0] ?? "none");
  return { state, lockfile: join(state, "skills.lock.json"), audit, root: join(state, "skill") };
}

async function installedV1(box: Sandbox, scope: "global" | "project" = "global") {
  const src = join(box.root, "src", "hello");
  await box.skill(join(box.root, "src"), "hello");
  await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
  await lemon.skills.install(src, { approve: true, global: scope === "global" });
  await box.write(join(src, "v2.md"), "second version\n");
  const files = scopeFiles(box, scope);
  const dest = join(files.root, "hello");
  return {
    src,
    dest,
    files,
    v1: await computeBundleHash(dest),
    lock: readFileSync(files.lockfile),
    audit: readFileSync(files.audit),
  };
}

describe("a process killed mid-install", () => {
  for (const step of ["staged", "activated", "recorded"]) {
    test(`at '${step}': the previous install and lock stay (or are put back) exactly; the next install works`, async () => {
      await using box = await sandbox();
      const before = await installedV1(box);
      const marker = join(box.root, `paused-${step}`);
      const script = await childScript(box);
      const proc = spawnInstall(
        box,
        script,
        { source: before.src, as: "hello", force: true },
        { LEMON_TEST_HOOKS: "1", LEMON_TEST_PAUSE_AT: step, LEMON_TEST_PAUSE_MARKER: marker },
      );
      await waitFor(marker, proc);
      proc.kill("SIGKILL");
      await proc.exited;
      // The lock was never written by the dead process.
      expect(readFileSync(join(box.agentDir, "skills.lock.json")).equals(before.lock)).toBe(true);
      // The next writer of the scope (here: an install of another key) finishes the job first.
      await box.skill(join(box.root, "src"), "other");
      await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
      await lemon.skills.install(join(box.root, "src", "other"), { approve: true });
      expect(await computeBundleHash(before.dest)).toBe(before.v1);
      const lock = JSON.parse(readFileSync(join(box.agentDir, "skills.lock.json"), "utf8"));
      expect(lock.skills.hello).toEqual(JSON.parse(before.lock.toString()).skills.hello);
      const audit = JSON.parse(readFileSync(join(box.agentDir, "skills.audit.json"), "utf8"));
      expect(audit.records["skill:hello"]).toEqual(JSON.parse(before.audit.toString()).records["skill:hello"]);
      expect(dots(join(box.agentDir, "skill"))).toEqual([]);
      // Nothing blocks installing v2 now.
      const r = await lemon.skills.install(before.src, { approve: true, force: true });
      expect(r.action).toBe("replaced");
      expect(await computeBundleHash(before.dest)).not.toBe(before.v1);
    });
  }

  test("after the lock write: the install counts, the journal and backup are cleared by the next writer", async () => {
    await using box = await sandbox();
    const before = await installedV1(box);
    const marker = join(box.root, "paused-locked");
    const proc = spawnInstall(
      box,
      await childScript(box),
      { source: before.src, as: "hello", force: true },
      { LEMON_TEST_HOOKS: "1", LEMON_TEST_PAUSE_AT: "locked", LEMON_TEST_PAUSE_MARKER: marker },
    );
    await waitFor(marker, proc);
    proc.kill("SIGKILL");
    await proc.exited;
    const v2 = await computeBundleHash(before.dest);
    expect(v2).not.toBe(before.v1);
    const lock = JSON.parse(readFileSync(join(box.agentDir, "skills.lock.json"), "utf8"));
    expect(lock.skills.hello.bundle_hash).toBe(v2);
    await box.skill(join(box.root, "src"), "other");
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    await lemon.skills.install(join(box.root, "src", "other"), { approve: true });
    expect(await computeBundleHash(before.dest)).toBe(v2);
    expect(dots(join(box.agentDir, "skill"))).toEqual([]);
  });
});

describe("a remove after an install killed mid-activation", () => {
  for (const step of ["activated", "recorded"]) {
    test(`at '${step}': the remove finishes the journal first; nothing comes back, no record is left`, async () => {
      await using box = await sandbox();
      const before = await installedV1(box);
      const marker = join(box.root, `paused-${step}`);
      const proc = spawnInstall(
        box,
        await childScript(box),
        { source: before.src, as: "hello", force: true },
        { LEMON_TEST_HOOKS: "1", LEMON_TEST_PAUSE_AT: step, LEMON_TEST_PAUSE_MARKER: marker },
      );
      await waitFor(marker, proc);
      proc.kill("SIGKILL");
      await proc.exited;
      // The dead install left v2 in place and v1 in its journal's backup.
      expect(await computeBundleHash(before.dest)).not.toBe(before.v1);
      await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
      const asked: string[] = [];
      const r = await lemon.skills.uninstall("hello", {
        approve: async (req) => {
          asked.push("destination" in req ? req.destination : req.kind);
          return true;
        },
      });
      expect(r.removed).toBe(true);
      expect(asked).toEqual([before.dest]);
      const root = before.files.root;
      expect(existsSync(before.dest)).toBe(false);
      expect(dots(root)).toEqual([]);
      const lock = JSON.parse(readFileSync(before.files.lockfile, "utf8"));
      expect(Object.keys(lock.skills)).toEqual([]);
      const audit = JSON.parse(readFileSync(before.files.audit, "utf8"));
      expect(Object.keys(audit.records)).not.toContain("skill:hello");
      // The next writer of the scope finds nothing to finish: the skill stays gone.
      await box.skill(join(box.root, "src"), "other");
      await lemon.skills.install(join(box.root, "src", "other"), { approve: true });
      expect(existsSync(before.dest)).toBe(false);
      expect(readdirSync(root)).toEqual(["other"]);
      expect((await lemon.skills.list({ refresh: true })).skills.map((e) => e.key)).toEqual(["other"]);
    });
  }

  test("an update after an install killed at 'activated' settles the journal first: no false local edit", async () => {
    await using box = await sandbox();
    const before = await installedV1(box);
    const marker = join(box.root, "paused-update");
    const proc = spawnInstall(
      box,
      await childScript(box),
      { source: before.src, as: "hello", force: true },
      { LEMON_TEST_HOOKS: "1", LEMON_TEST_PAUSE_AT: "activated", LEMON_TEST_PAUSE_MARKER: marker },
    );
    await waitFor(marker, proc);
    proc.kill("SIGKILL");
    await proc.exited;
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    const r = await lemon.skills.update("hello", { approve: true });
    expect(r.status).toBe("updated");
    const lock = JSON.parse(readFileSync(before.files.lockfile, "utf8"));
    expect(lock.skills.hello.bundle_hash).toBe(await computeBundleHash(before.dest));
    expect(lock.skills.hello.bundle_hash).not.toBe(before.v1);
    expect(dots(before.files.root)).toEqual([]);
  });

  test("a fresh install killed at 'recorded': after the remove no directory, record or audit record is left", async () => {
    await using box = await sandbox();
    await box.skill(join(box.root, "src"), "fresh");
    const marker = join(box.root, "paused-fresh");
    const proc = spawnInstall(
      box,
      await childScript(box),
      { source: join(box.root, "src", "fresh"), as: "fresh" },
      { LEMON_TEST_HOOKS: "1", LEMON_TEST_PAUSE_AT: "recorded", LEMON_TEST_PAUSE_MARKER: marker },
    );
    await waitFor(marker, proc);
    proc.kill("SIGKILL");
    await proc.exited;
    const root = join(box.agentDir, "skill");
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    // Undoing the journal first leaves nothing to remove (NOT_FOUND); removing what it left is as good.
    const outcome = await lemon.skills.uninstall("fresh", { approve: true }).then(
      (r) => (r.removed ? "removed" : "kept"),
      (e: { code?: string }) => e.code ?? "no code",
    );
    expect(["NOT_FOUND", "removed"]).toContain(outcome);
    expect(readdirSync(root)).toEqual([]);
    const audit = JSON.parse(readFileSync(join(box.agentDir, "skills.audit.json"), "utf8"));
    expect(Object.keys(audit.records)).toEqual([]);
    const lock = join(box.agentDir, "skills.lock.json");
    if (existsSync(lock)) expect(Object.keys(JSON.parse(readFileSync(lock, "utf8")).skills)).toEqual([]);
    // The next writer of the scope finds nothing to bring back.
    await box.skill(join(box.root, "src"), "other");
    await lemon.skills.install(join(box.root, "src", "other"), { approve: true });
    expect(readdirSync(root)).toEqual(["other"]);
  });
});

for (const scope of ["global", "project"] as const) {
  test(`a full disk on the ${scope} lockfile write (EFBIG) rolls back the directory and the audit record exactly`, async () => {
    await using box = await sandbox();
    const before = await installedV1(box, scope);
    const { lockfile, audit: auditFile, root } = before.files;
    // Padding only the lockfile carries makes its write the one that crosses the file-size limit.
    const doc = JSON.parse(before.lock.toString());
    doc.padding = "x".repeat(12_000);
    await writeFile(lockfile, `${JSON.stringify(doc, null, 2)}\n`);
    const lockBefore = readFileSync(lockfile);
    // Every other file the install writes stays far below the limit (the audit cache gains one record).
    expect(before.audit.length * 2 + 1024).toBeLessThan(8192);
    expect(lockBefore.length).toBeGreaterThan(8192);
    const proc = spawnInstall(
      box,
      await childScript(box),
      { source: before.src, as: "hello", force: true, scope },
      {},
      ["sh", "-c", `trap '' XFSZ; exec prlimit --fsize=8192 -- "$@"`, "sh"],
    );
    const [out, code] = [await new Response(proc.stdout).text(), await proc.exited];
    expect(code).toBe(1);
    const res = JSON.parse(out.trim().split("\n").pop()!);
    expect(res.ok).toBe(false);
    expect(res.message).toContain("EFBIG");
    expect(readFileSync(lockfile).equals(lockBefore)).toBe(true);
    expect(await computeBundleHash(before.dest)).toBe(before.v1);
    const audit = JSON.parse(readFileSync(auditFile, "utf8"));
    expect(audit.records["skill:hello"]).toEqual(JSON.parse(before.audit.toString()).records["skill:hello"]);
    expect(dots(root)).toEqual([]);
    expect(dots(before.files.state).filter((n) => n.includes("tmp") || n.endsWith(".lock"))).toEqual([]);
  });
}

test("several processes installing different keys at once: every record lands in the lock", async () => {
  await using box = await sandbox();
  await box.skill(join(box.root, "src"), "hello");
  const script = await childScript(box);
  const keys = ["k0", "k1", "k2", "k3", "k4", "k5"];
  const procs = keys.map((k) => spawnInstall(box, script, { source: join(box.root, "src", "hello"), as: k }));
  const outs = await Promise.all(
    procs.map(async (p) => [await new Response(p.stdout).text(), await p.exited] as const),
  );
  for (const [out, code] of outs) {
    expect(JSON.parse(out.trim())).toMatchObject({ ok: true, action: "installed" });
    expect(code).toBe(0);
  }
  const lock = JSON.parse(readFileSync(join(box.agentDir, "skills.lock.json"), "utf8"));
  expect(Object.keys(lock.skills).sort()).toEqual(keys);
  const audit = JSON.parse(readFileSync(join(box.agentDir, "skills.audit.json"), "utf8"));
  expect(Object.keys(audit.records).sort()).toEqual(keys.map((k) => `skill:${k}`));
  expect(readdirSync(join(box.agentDir, "skill")).sort()).toEqual(keys);
});

test("a journal committed into a project cannot move files, delete others or forge audit records", async () => {
  await using box = await sandbox();
  const root = join(box.project, ".lemon", "skill");
  const victim = join(box.project, "src");
  await box.write(join(victim, "main.ts"), "work\n");
  const victimHash = await computeBundleHash(victim);
  const globalAudit = join(box.agentDir, "skills.audit.json");
  await box.write(globalAudit, `${JSON.stringify({ version: 1, records: {} }, null, 2)}\n`);
  const auditBefore = readFileSync(globalAudit);
  const forged = { key: "evil", kind: "skill", bundle_hash: "a".repeat(64), verdict: "pass" };
  const hostile = [
    // A key that walks out of the root, with the hash of the directory it names.
    {
      dir: ".x.txn-aa",
      intent: { key: "../../src", dest: join(root, "../../src"), bundle_hash: victimHash, stamp: "t" },
    },
    // The journal's key disagrees with its name.
    { dir: ".a.txn-bb", intent: { key: "b", dest: join(root, "b"), bundle_hash: victimHash, stamp: "t" } },
    // A well-formed journal whose audit undo names the global cache with a forged record.
    {
      dir: ".evil.txn-cc",
      intent: {
        key: "evil",
        dest: join(root, "evil"),
        bundle_hash: "b".repeat(64),
        stamp: "t",
        audit: { file: globalAudit, id: "skill:evil", present: true, value: forged },
      },
    },
  ];
  for (const h of hostile) await box.write(join(root, h.dir, "intent.json"), JSON.stringify(h.intent));
  await box.skill(join(root, ".evil.txn-cc", "backup", ".."), "backup");
  await box.skill(join(box.root, "src-skills"), "hello");
  await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
  await lemon.skills.install(join(box.root, "src-skills", "hello"), { approve: true, global: false });
  expect(await computeBundleHash(victim)).toBe(victimHash);
  expect(readFileSync(globalAudit).equals(auditBefore)).toBe(true);
  // Not lemon's journals (those live under A): nothing is moved out of them, nothing is deleted.
  expect(existsSync(join(root, "evil"))).toBe(false);
  expect(dots(root).sort()).toEqual([".a.txn-bb", ".evil.txn-cc", ".x.txn-aa"]);
});
