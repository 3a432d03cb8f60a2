// `lemon skill curator …` (cli.md §2.17): output shapes, gates and exit codes, and the crontab
// line run twice at once as real processes (exactly one pass runs).
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const REPO = join(import.meta.dir, "..", "..");
const BUN = join(REPO, "node_modules", ".bin", "bun");
const MAIN = join(REPO, "src", "cli", "main.ts");
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString().replace(/\.\d{3}Z$/, "Z");
const agentSkill = (days: number, extra: Record<string, unknown> = {}) => ({
  created_by: "agent",
  created_at: ago(days + 1),
  last_loaded_at: ago(days),
  ...extra,
});

async function usage(box: Sandbox, dir: string, skills: Record<string, unknown>) {
  await box.write(join(dir, "skills.usage.json"), `${JSON.stringify({ version: 1, skills })}\n`);
}

describe("lemon skill curator (cli.md §2.17)", () => {
  test("status: JSON document and human form", async () => {
    await using box = await sandbox();
    await usage(box, box.agentDir, { old: agentSkill(100), narrow: agentSkill(40), mine: { last_loaded_at: ago(5) } });
    const j = await box.cli(["skill", "curator", "status", "--json"]);
    expect(j.code).toBe(0);
    const doc = j.json();
    expect(Object.keys(doc)).toEqual(["ok", "scope", "state", "should_run_now", "gate", "rows", "diagnostics"]);
    expect(doc).toMatchObject({ ok: true, scope: "global", should_run_now: true, gate: null });
    expect(doc.state).toEqual({
      version: 1,
      last_run_at: null,
      last_run_summary: null,
      last_report_path: null,
      last_candidate_count: null,
      paused: false,
      run_count: 0,
    });
    expect((doc.rows as { name: string }[]).map((r) => r.name)).toEqual(["old", "narrow", "mine"]);
    const h = await box.cli(["skill", "curator", "status"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toBe(
      [
        "Curator (global scope): not paused; runs=0",
        "Last run: never",
        "Automatic run due: yes",
        "Skill usage report for global scope:",
        "- old: agent-authored,stale-candidate,archive-candidate; loads=0; writes=0; idle_days=100; last_activity=" +
          ago(100),
        "- narrow: agent-authored,stale-candidate; loads=0; writes=0; idle_days=40; last_activity=" + ago(40),
        "- mine: -; loads=0; writes=0; idle_days=5; last_activity=" + ago(5),
        "",
      ].join("\n"),
    );
    // Reads never create state files.
    expect(existsSync(join(box.agentDir, "skills.curator.json"))).toBe(false);
  });

  test("run: summary line and report path; JSON; --prompt; the second --auto is gated by the interval", async () => {
    await using box = await sandbox();
    await usage(box, box.agentDir, { old: agentSkill(100), narrow: agentSkill(40) });
    const h = await box.cli(["skill", "curator", "run", "--prompt"]);
    expect(h.code).toBe(0);
    const [summary, path, blank, ...prompt] = h.stdout.split("\n");
    expect(summary).toBe("checked=2 stale=1 archived=1 reactivated=0");
    expect(path).toMatch(new RegExp(`^${join(box.agentDir, "logs", "curator")}/\\d{8}T\\d{6}/run\\.json$`));
    expect(blank).toBe("");
    expect(prompt.join("\n")).toContain("- narrow (state: stale; idle days: 40; stale candidate)");
    expect(h.stderr).toBe("review required: see the report's candidates\n");
    expect(JSON.parse(readFileSync(path!, "utf8")).summary).toBe(summary);
    // The README's promise: the printed path is run.json's, and REPORT.md sits beside it.
    const report = readFileSync(join(dirname(path!), "REPORT.md"), "utf8");
    expect(report).toStartWith("# Curator run\n");
    expect(report).toContain(`- Summary: ${summary}\n`);

    const again = await box.cli(["skill", "curator", "run", "--auto", "--json"]);
    expect(again.code).toBe(0);
    expect(again.json()).toEqual({
      ok: true,
      ran: false,
      gate: "interval",
      report_path: null,
      run: null,
      prompt: null,
      diagnostics: [],
    });
    const forced = await box.cli(["skill", "curator", "run", "--json"]);
    const doc = forced.json();
    expect(Object.keys(doc)).toEqual(["ok", "ran", "gate", "report_path", "run", "prompt", "diagnostics"]);
    expect(doc).toMatchObject({ ok: true, ran: true, gate: null, prompt: null });
    expect((doc.run as { summary: string }).summary).toBe("checked=2 stale=0 archived=0 reactivated=0");
  });

  test("pause and resume; a paused --auto exits 0 with its reason, --quiet silences it; --force runs", async () => {
    await using box = await sandbox();
    const p = await box.cli(["skill", "curator", "pause", "--json"]);
    expect([p.code, p.json()]).toEqual([0, { ok: true, scope: "global", paused: true }]);
    const gated = await box.cli(["skill", "curator", "run", "--auto"]);
    expect([gated.code, gated.stdout]).toEqual([0, ""]);
    expect(gated.stderr).toBe("curator not run: paused (run 'lemon skill curator resume', or 'run --force' once)\n");
    const quiet = await box.cli(["skill", "curator", "run", "--auto", "--quiet"]);
    expect([quiet.code, quiet.stdout, quiet.stderr]).toEqual([0, "", ""]);
    const manual = await box.cli(["skill", "curator", "run"]);
    expect([manual.code, manual.stdout]).toEqual([0, ""]);
    const forced = await box.cli(["skill", "curator", "run", "--force"]);
    expect(forced.stdout.split("\n")[0]).toBe("checked=0 stale=0 archived=0 reactivated=0");
    const r = await box.cli(["skill", "curator", "resume"]);
    expect([r.code, r.stdout]).toEqual([0, "Curator resumed (global scope)\n"]);
    expect(JSON.parse(readFileSync(join(box.agentDir, "skills.curator.json"), "utf8")).paused).toBe(false);
  });

  test("--local curates the project scope; thresholds from the flags; bad flags exit 2", async () => {
    await using box = await sandbox();
    await usage(box, join(box.project, ".lemon"), { p: agentSkill(20) });
    const r = await box.cli(["skill", "curator", "run", "--local", "--stale-after-days", "10", "--json"]);
    expect(r.code).toBe(0);
    expect((r.json().run as { marked_stale: string[] }).marked_stale).toEqual(["p"]);
    expect(existsSync(join(box.project, ".lemon", "skills.curator.json"))).toBe(true);
    expect(existsSync(join(box.agentDir, "skills.curator.json"))).toBe(false);
    for (const argv of [
      ["skill", "curator", "run", "--stale-after-days", "-1"],
      ["skill", "curator", "run", "--archive-after-days", "x"],
      ["skill", "curator", "status", "--global", "--local"],
      ["skill", "curator", "frobnicate"],
    ]) {
      const bad = await box.cli(argv);
      expect([argv, bad.code]).toEqual([argv, 2]);
    }
  });

  test("a corrupt state file: run exits 1 CONFLICT naming it, status warns, the file is left as it was", async () => {
    await using box = await sandbox();
    const file = await box.write(join(box.agentDir, "skills.curator.json"), "[1,2]\n");
    const r = await box.cli(["skill", "curator", "run", "--auto", "--json"]);
    expect(r.code).toBe(1);
    const err = JSON.parse(r.stderr).error;
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toStartWith(`refusing to overwrite invalid ${file}: `);
    const st = await box.cli(["skill", "curator", "status"]);
    expect(st.code).toBe(0);
    expect(st.stdout).toContain("Automatic run due: no\n");
    expect(st.stderr).toStartWith(`error: ${file}: invalid ${file}: `);
    expect(readFileSync(file, "utf8")).toBe("[1,2]\n");
  });
});

describe("the crontab line, twice at once (real processes)", () => {
  async function blockingAgent(box: Sandbox) {
    const dir = join(box.root, "agent");
    const script = await box.write(
      join(dir, "agent.sh"),
      [
        "#!/bin/sh",
        `cat > "${dir}/prompt"`,
        `echo $$ > "${dir}/pid"`,
        `touch "${dir}/started"`,
        // Holds the pass (and so the curator lock) until the test lets it go.
        `while [ ! -e "${dir}/release" ]; do sleep 0.05; done`,
        "",
      ].join("\n"),
    );
    chmodSync(script, 0o755);
    await box.write(
      join(box.agentDir, "config.toml"),
      `[skills.curator]\nreview = true\n[agents.default]\ncommand = ["${script}"]\n`,
    );
    return dir;
  }

  const spawnCron = (box: Sandbox, json = true) =>
    Bun.spawn([BUN, MAIN, "skill", "curator", "run", "--auto", "--quiet", ...(json ? ["--json"] : [])], {
      cwd: box.project,
      env: box.env as Record<string, string>,
      stdout: "pipe",
      stderr: "pipe",
    });
  const outcome = async (p: ReturnType<typeof spawnCron>) => ({
    code: await p.exited,
    out: await new Response(p.stdout).text(),
    err: await new Response(p.stderr).text(),
  });
  const waitFor = async (file: string) => {
    for (let i = 0; i < 600 && !existsSync(file); i++) await Bun.sleep(50);
    expect(existsSync(file)).toBe(true);
  };

  test("while one pass holds the lock, the second exits 0 saying so; exactly one report", async () => {
    await using box = await sandbox();
    await usage(box, box.agentDir, { narrow: agentSkill(40) });
    const dir = await blockingAgent(box);
    const first = spawnCron(box);
    await waitFor(join(dir, "started"));
    const second = await outcome(spawnCron(box));
    expect([second.code, second.err]).toEqual([0, ""]);
    const doc = JSON.parse(second.out);
    expect([doc.ran, doc.gate]).toEqual([false, "locked"]);
    await box.write(join(dir, "release"), "");
    const one = await outcome(first);
    expect([one.code, one.err]).toEqual([0, ""]);
    expect(JSON.parse(one.out).run.review_submission.status).toBe("ok");
    expect(readdirSync(join(box.agentDir, "logs", "curator")).length).toBe(1);
    expect(JSON.parse(readFileSync(join(box.agentDir, "skills.curator.json"), "utf8")).run_count).toBe(1);
    // No lock directory or temp file left behind.
    expect(readdirSync(box.agentDir).filter((n) => n.includes(".lock") || n.includes(".tmp-"))).toEqual([]);
  }, 60_000);

  test("SIGTERM during the review: exit 143, the agent's process group is killed, the lock released", async () => {
    await using box = await sandbox();
    await usage(box, box.agentDir, { narrow: agentSkill(40) });
    const dir = await blockingAgent(box);
    const proc = spawnCron(box);
    await waitFor(join(dir, "started"));
    const agentPid = Number(readFileSync(join(dir, "pid"), "utf8"));
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(143);
    const alive = () => {
      try {
        process.kill(agentPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) await Bun.sleep(50);
    expect(alive()).toBe(false);
    expect(existsSync(join(box.agentDir, "skills.curator.json.lock"))).toBe(false);
    // Nothing was recorded for the interrupted pass, so the next cron line runs it again.
    expect(existsSync(join(box.agentDir, "skills.curator.json"))).toBe(false);
  }, 60_000);

  test("started together: both exit 0, exactly one runs", async () => {
    await using box = await sandbox();
    await usage(box, box.agentDir, { old: agentSkill(100), narrow: agentSkill(40) });
    const dir = await blockingAgent(box);
    const procs = [spawnCron(box), spawnCron(box)];
    await waitFor(join(dir, "started"));
    await box.write(join(dir, "release"), "");
    const results = await Promise.all(procs.map(outcome));
    for (const r of results) expect([r.code, r.err]).toEqual([0, ""]);
    const docs = results.map((r) => JSON.parse(r.out));
    expect(docs.filter((d) => d.ran).length).toBe(1);
    // The other found the lock held, or (if it started after the pass) the interval not yet over.
    expect(["locked", "interval"]).toContain(docs.find((d) => !d.ran).gate);
    expect(readdirSync(join(box.agentDir, "logs", "curator")).length).toBe(1);
    expect(JSON.parse(readFileSync(join(box.agentDir, "skills.json"), "utf8")).disabled).toEqual(["old"]);
  }, 60_000);
});
