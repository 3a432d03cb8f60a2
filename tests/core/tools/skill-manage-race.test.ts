// skill_manage against a second process that swaps a component of the skill's path for a symlink
// after the checks (skills.md §9 Symlinks): nothing may ever be written or removed outside the
// skill directory. A real child runs the tool, pauses after its audit (LEMON_TEST_PAUSE_AT), the
// test swaps the path, then lets it resume (LEMON_TEST_RESUME_FILE). A second test races a real
// swapping process against a loop of writes, as an attacker's script would.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";
import { lemonFor, projectRoot, skillText, textOf } from "./manage-support.ts";

const REPO = join(import.meta.dir, "..", "..", "..");

const CHILD = `
import { createLemon } from ${JSON.stringify(join(REPO, "src/core/index.ts"))};
const lemon = createLemon({ cwd: process.argv[2], env: process.env });
const r = await lemon.skillManage(JSON.parse(process.argv[3]));
console.log(JSON.stringify(r));
await lemon.close();
`;

/** Runs skill_manage in a child paused at `step`; `swap` runs there; the child's result. */
async function swapAt(
  box: Sandbox,
  step: string,
  args: Record<string, unknown>,
  swap: () => void,
): Promise<{ isError: boolean; content: { text: string }[] }> {
  const script = await box.write("child.ts", CHILD);
  const mark = join(box.root, `paused-${step}`);
  const resume = join(box.root, `resume-${step}`);
  const child = Bun.spawn([process.execPath, script, box.project, JSON.stringify(args)], {
    env: {
      ...box.env,
      LEMON_TEST_HOOKS: "1",
      LEMON_TEST_PAUSE_AT: step,
      LEMON_TEST_PAUSE_FILE: mark,
      LEMON_TEST_RESUME_FILE: resume,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (!existsSync(mark) && !exited) await Bun.sleep(10);
  if (!existsSync(mark)) throw new Error(`child never paused at ${step}: ${await new Response(child.stdout).text()}`);
  swap();
  writeFileSync(resume, "go");
  const out = await new Response(child.stdout).text();
  await child.exited;
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
}

async function withSkill(box: Sandbox, files: Record<string, string> = {}): Promise<string> {
  const setup = lemonFor(box);
  await setup.skillManage({ action: "create", name: "x", content: skillText("x") });
  for (const [file_path, file_content] of Object.entries(files))
    await setup.skillManage({ action: "write_file", name: "x", file_path, file_content });
  await setup.close();
  return join(projectRoot(box), "x");
}

describe("skill_manage: a component swapped for a symlink after the checks", () => {
  test("write_file never lands in the symlink's target", async () => {
    await using box = await sandbox();
    const dir = await withSkill(box, { "scripts/keep.sh": "echo keep\n" });
    const outside = join(box.root, "outside");
    mkdirSync(outside);
    const r = await swapAt(
      box,
      "audited",
      { action: "write_file", name: "x", file_path: "scripts/r.sh", file_content: "echo r\n" },
      () => {
        renameSync(join(dir, "scripts"), join(dir, "scripts.real"));
        symlinkSync(outside, join(dir, "scripts"));
      },
    );
    expect(readdirSync(outside)).toEqual([]);
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toBe(`refusing to write through symlink: ${join(dir, "scripts")}`);
  });

  test("write_file never lands outside when the skill dir itself is swapped", async () => {
    await using box = await sandbox();
    const dir = await withSkill(box);
    const outside = join(box.root, "outside");
    mkdirSync(join(outside, "references"), { recursive: true });
    const r = await swapAt(
      box,
      "audited",
      { action: "write_file", name: "x", file_path: "references/r.md", file_content: "r\n" },
      () => {
        renameSync(dir, `${dir}.real`);
        symlinkSync(outside, dir);
      },
    );
    expect(readdirSync(join(outside, "references"))).toEqual([]);
    expect(r.isError).toBe(true);
  });

  test("edit never replaces a SKILL.md outside when the lemon root is swapped", async () => {
    await using box = await sandbox();
    const dir = await withSkill(box);
    const root = projectRoot(box);
    const outside = join(box.root, "outside");
    mkdirSync(join(outside, "x"), { recursive: true });
    writeFileSync(join(outside, "x", "SKILL.md"), "precious\n");
    const r = await swapAt(
      box,
      "audited",
      { action: "edit", name: "x", content: skillText("x", "Use this after the edit.") },
      () => {
        renameSync(root, `${root}.real`);
        symlinkSync(outside, root);
      },
    );
    expect(readdirSync(join(outside, "x"))).toEqual(["SKILL.md"]);
    expect(await Bun.file(join(outside, "x", "SKILL.md")).text()).toBe("precious\n");
    expect(r.isError).toBe(true);
    expect(dir).toBe(join(root, "x"));
  });

  test("remove_file never unlinks the symlink target's file", async () => {
    await using box = await sandbox();
    const dir = await withSkill(box, { "scripts/v.sh": "echo v\n" });
    const outside = join(box.root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "v.sh"), "precious\n");
    const r = await swapAt(box, "audited", { action: "remove_file", name: "x", file_path: "scripts/v.sh" }, () => {
      renameSync(join(dir, "scripts"), join(dir, "scripts.real"));
      symlinkSync(outside, join(dir, "scripts"));
    });
    expect(readdirSync(outside)).toEqual(["v.sh"]);
    expect(r.isError).toBe(true);
  });

  test("delete never removes a tree outside when the lemon root is swapped", async () => {
    await using box = await sandbox();
    await withSkill(box);
    const root = projectRoot(box);
    const outside = join(box.root, "outside");
    mkdirSync(join(outside, "x"), { recursive: true });
    writeFileSync(join(outside, "x", "SKILL.md"), "precious\n");
    const r = await swapAt(box, "checked", { action: "delete", name: "x" }, () => {
      renameSync(root, `${root}.real`);
      symlinkSync(outside, root);
    });
    expect(readdirSync(join(outside, "x"))).toEqual(["SKILL.md"]);
    expect(readdirSync(outside).filter((n) => n.startsWith("."))).toEqual([]);
    expect(r.isError).toBe(true);
  });

  test("a real process swapping scripts/ in a loop: no write ever lands outside", async () => {
    await using box = await sandbox();
    const dir = await withSkill(box, { "scripts/keep.sh": "echo keep\n" });
    const outside = join(box.root, "outside");
    mkdirSync(outside);
    const stop = join(box.root, "stop");
    const racer = await box.write(
      "racer.ts",
      `import { existsSync, renameSync, symlinkSync, unlinkSync } from "node:fs";
const [d, target, stop] = process.argv.slice(2);
while (!existsSync(stop)) {
  try { renameSync(d, d + ".real"); symlinkSync(target, d); await Bun.sleep(1); unlinkSync(d); renameSync(d + ".real", d); await Bun.sleep(1); } catch {}
}
try { unlinkSync(d); } catch {}
try { renameSync(d + ".real", d); } catch {}
`,
    );
    const child = Bun.spawn([process.execPath, racer, join(dir, "scripts"), outside, stop], {
      stdout: "ignore",
      stderr: "ignore",
    });
    await using lemon = lemonFor(box);
    const texts: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await lemon.skillManage({
        action: "write_file",
        name: "x",
        file_path: `scripts/r${i}.sh`,
        file_content: `echo ${i}\n`,
      });
      texts.push(textOf(r));
    }
    writeFileSync(stop, "1");
    await child.exited;
    expect(readdirSync(outside)).toEqual([]);
    // Whatever the race did, the agent sees lemon's own one-line messages, never an internal path.
    for (const t of texts) expect(t).not.toContain(".stage-");
  });
});
