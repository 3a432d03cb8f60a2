// read_skill view=file (skills.md §8): containment, special files, sizes, binary text.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const text = (r: { content: { type: string; text?: string }[] }) => r.content.map((b) => b.text ?? "").join("");

async function setup(box: Sandbox) {
  const root = join(box.project, ".lemon/skill");
  const skillFile = await box.skill(root, "alpha");
  const dir = join(root, "alpha");
  await box.write(join(dir, "references/api.md"), "# API\n\nCall it.\n");
  await box.write(join(box.root, "outside/secret.txt"), "TOP SECRET\n");
  const lemon = createLemon({ cwd: box.project, env: box.env });
  const file = (path: unknown, extra: Record<string, unknown> = {}) =>
    lemon.readSkill({ key: "alpha", view: "file", path, ...extra });
  return { dir, skillFile, lemon, file };
}

describe("read_skill view=file", () => {
  test("a supporting file: ## File then its text; it need not be listed in references", async () => {
    await using box = await sandbox();
    const { lemon, file } = await setup(box);
    await using _ = lemon;
    const r = await file("references/api.md");
    expect(r.isError).toBe(false);
    expect(text(r).endsWith("\n\n## File: references/api.md\n# API\n\nCall it.\n")).toBe(true);
    expect(r.details).toMatchObject({ key: "alpha", view: "file", file: "references/api.md", truncated: false });
    const md = await file("SKILL.md");
    expect(text(md)).toContain("## File: SKILL.md\n---\n");
    const dotted = await file("./references//api.md");
    expect(dotted.isError).toBe(false);
  });

  test("no path", async () => {
    await using box = await sandbox();
    const { lemon, file } = await setup(box);
    await using _ = lemon;
    for (const p of [undefined, "", 5, null]) {
      const r = await file(p);
      expect(r.isError).toBe(true);
      expect(text(r)).toBe('No path given. Pass "path" relative to the skill directory.');
      expect(r.details.error).toBe("invalid_params");
    }
  });

  test("traversal, absolute paths and NUL are outside, whatever exists there", async () => {
    await using box = await sandbox();
    const { dir, lemon, file } = await setup(box);
    await using _ = lemon;
    const outside = [
      "../../../../outside/secret.txt",
      "references/../../alpha/SKILL.md",
      "..",
      "../alpha/SKILL.md",
      "references\\..\\..\\x",
      join(box.root, "outside/secret.txt"),
      join(dir, "SKILL.md"),
      "/etc/passwd",
      "\\etc\\passwd",
      "C:\\Windows\\win.ini",
      "c:x",
      "references/api.md\0.png",
    ];
    for (const p of outside) {
      const r = await file(p);
      expect([p, r.isError, r.details.error]).toEqual([p, true, "outside_skill"]);
      expect(text(r)).toMatch(/^Path '.*' is outside the skill directory\.$/);
      expect(text(r)).not.toContain("TOP SECRET");
    }
    expect(text(await file("a\0b"))).toBe("Path 'a\\u0000b' is outside the skill directory.");
  });

  test("encoded and look-alike forms are names, not traversal: used as given, never decoded", async () => {
    await using box = await sandbox();
    const { dir, lemon, file } = await setup(box);
    await using _ = lemon;
    for (const p of ["%2e%2e/%2e%2e/outside/secret.txt", "%2E%2E%2Fx", "\uff0e\uff0e/x", "\u2025/x", "․․/x"]) {
      const r = await file(p);
      expect([p, text(r)]).toEqual([p, `Could not read '${p}': not found`]);
      expect(r.details.error).toBe("read_failed");
    }
    // A file that really has such a name inside the skill is shown.
    mkdirSync(join(dir, "%2e%2e"));
    writeFileSync(join(dir, "%2e%2e/x.md"), "literal\n");
    expect(text(await file("%2e%2e/x.md"))).toContain("literal");
  });

  test("symlinks: out of the skill refused, within it followed", async () => {
    await using box = await sandbox();
    const { dir, lemon, file } = await setup(box);
    await using _ = lemon;
    symlinkSync(join(box.root, "outside/secret.txt"), join(dir, "references/leak.md"));
    symlinkSync(join(box.root, "outside"), join(dir, "assets"));
    symlinkSync("api.md", join(dir, "references/alias.md"));
    symlinkSync(join(box.root, "nowhere"), join(dir, "references/dangling.md"));
    expect(text(await file("references/leak.md"))).toBe("Path 'references/leak.md' is outside the skill directory.");
    expect(text(await file("assets/secret.txt"))).toBe("Path 'assets/secret.txt' is outside the skill directory.");
    expect(text(await file("references/alias.md"))).toContain("Call it.");
    expect(text(await file("references/dangling.md"))).toBe("Could not read 'references/dangling.md': not found");
  });

  test("hard links: a supporting file with another name anywhere is refused as outside (realpath cannot see them)", async () => {
    await using box = await sandbox();
    const { dir, lemon } = await setup(box);
    await using _ = lemon;
    linkSync(join(box.root, "outside/secret.txt"), join(dir, "references/hard.md"));
    const r = await lemon.readSkill({ key: "alpha", view: "file", path: "references/hard.md" });
    expect(text(r)).toBe("Path 'references/hard.md' is outside the skill directory.");
    await expect(lemon.resolveSkillUri("skill://alpha/references/hard.md")).rejects.toThrow(
      "Path 'references/hard.md' is outside the skill directory.",
    );
    expect((await lemon.readSkill({ key: "alpha", view: "file", path: "references/api.md" })).isError).toBe(false);
  });

  test("a component swapped for a link to the outside while reading never leaks (a real racing process)", async () => {
    await using box = await sandbox();
    const { dir, lemon } = await setup(box);
    await using _ = lemon;
    await box.write(join(dir, "real/f.md"), "inside\n");
    await box.write(join(box.root, "outside/f.md"), "SECRET\n");
    symlinkSync(join(box.root, "outside"), join(dir, "link"));
    // The racer moves the real directory and the link in and out of the name 'refs' as fast as it can.
    const racer = join(box.root, "racer.ts");
    writeFileSync(
      racer,
      `import { renameSync } from "node:fs";\n` +
        `const d = ${JSON.stringify(dir)};\nconst end = Date.now() + 1500;\n` +
        `while (Date.now() < end) for (const n of ["real", "link"]) {\n` +
        `  try { renameSync(d + "/" + n, d + "/refs"); renameSync(d + "/refs", d + "/" + n); } catch {}\n}\n`,
    );
    const child = Bun.spawn([process.execPath, racer], { stdout: "ignore", stderr: "ignore" });
    const { readContained } = await import("../../../src/core/skills/tools/contained-read.ts");
    const seen = new Set<string>();
    const until = Date.now() + 1200;
    while (Date.now() < until) {
      const r = readContained(dir, "refs/f.md");
      seen.add(r.ok ? `ok:${r.text}` : r.problem);
      expect(r.ok && r.text?.includes("SECRET")).toBe(false);
    }
    await child.exited;
    // Both shapes were met: the inside file was read, and the link refused.
    expect(seen.has("ok:inside\n")).toBe(true);
    expect(seen.has("outside")).toBe(true);
  });

  test("a skill directory that is itself a link: containment is to its real directory", async () => {
    await using box = await sandbox();
    const real = join(box.root, "elsewhere/linked");
    await box.skill(join(box.root, "elsewhere"), "linked");
    await box.write(join(real, "references/r.md"), "real ref\n");
    await box.write(join(box.root, "elsewhere/sibling.md"), "sibling\n");
    await box.link(real, join(box.project, ".lemon/skill/linked"));
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const ok = await lemon.readSkill({ key: "linked", view: "file", path: "references/r.md" });
    expect(text(ok)).toContain("real ref");
    const up = await lemon.readSkill({ key: "linked", view: "file", path: "../sibling.md" });
    expect(up.details.error).toBe("outside_skill");
  });

  test("directories, FIFOs and sockets are not regular files, and a FIFO never blocks", async () => {
    await using box = await sandbox();
    const { dir, lemon, file } = await setup(box);
    await using _ = lemon;
    expect(text(await file("references"))).toBe("Could not read 'references': not a regular file");
    expect(text(await file("."))).toBe("Could not read '.': not a regular file");
    expect(spawnSync("mkfifo", [join(dir, "references/pipe")]).status).toBe(0);
    expect(text(await file("references/pipe"))).toBe("Could not read 'references/pipe': not a regular file");
    const server = Bun.listen({ unix: join(dir, "sock"), socket: { data() {} } });
    try {
      expect(text(await file("sock"))).toBe("Could not read 'sock': not a regular file");
    } finally {
      server.stop(true);
    }
  });

  test("a file over 1 MiB is too large, refused from its size (a sparse 4 GiB file is never read)", async () => {
    await using box = await sandbox();
    const { dir, lemon, file } = await setup(box);
    await using _ = lemon;
    const huge = join(dir, "assets/huge.bin");
    mkdirSync(join(dir, "assets"));
    writeFileSync(huge, "");
    truncateSync(huge, 4 * 1024 ** 3);
    const before = process.memoryUsage().rss;
    expect(text(await file("assets/huge.bin"))).toBe("Could not read 'assets/huge.bin': too large");
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
    writeFileSync(join(dir, "assets/edge.txt"), "a".repeat(1024 * 1024 + 1));
    expect(text(await file("assets/edge.txt"))).toBe("Could not read 'assets/edge.txt': too large");
    writeFileSync(join(dir, "assets/fits.txt"), "a".repeat(1024 * 1024));
    const fits = await file("assets/fits.txt");
    expect(fits.isError).toBe(false);
    expect(text(fits).endsWith("[truncated: showing 100000 of 1048576 characters]")).toBe(true);
    expect(fits.details.truncated).toBe(true);
  });

  test("max_chars applies to the file text", async () => {
    await using box = await sandbox();
    const { lemon, file } = await setup(box);
    await using _ = lemon;
    const r = await file("references/api.md", { max_chars: 5 });
    expect(text(r).endsWith("## File: references/api.md\n# API\n\n[truncated: showing 5 of 16 characters]")).toBe(true);
  });

  test("binary: not UTF-8, or holding NUL, is described and not shown", async () => {
    await using box = await sandbox();
    const { dir, lemon, file } = await setup(box);
    await using _ = lemon;
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "assets/logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]));
    writeFileSync(join(dir, "assets/nul.txt"), "a\0b");
    const png = await file("assets/logo.png");
    expect(png.isError).toBe(false);
    expect(text(png).endsWith("## File: assets/logo.png\nFile 'assets/logo.png' is binary (6 bytes); not shown.")).toBe(
      true,
    );
    expect(text(await file("assets/nul.txt"))).toContain("File 'assets/nul.txt' is binary (3 bytes); not shown.");
  });

  test("permission denied (as an unprivileged user)", async () => {
    await using box = await sandbox();
    const { dir } = await setup(box);
    const locked = join(dir, "references/locked.md");
    writeFileSync(locked, "nope\n", { mode: 0o600 });
    const script = join(box.root, "probe.ts");
    writeFileSync(
      script,
      `import { readContained } from ${JSON.stringify(join(import.meta.dir, "../../../src/core/skills/tools/contained-read.ts"))};\n` +
        `console.log(JSON.stringify(readContained(${JSON.stringify(dir)}, "references/locked.md")));\n`,
    );
    spawnSync("chmod", ["-R", "a+rX", box.root]);
    spawnSync("chmod", ["600", locked]);
    const p = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, script], {
      encoding: "utf8",
    });
    if (p.status !== 0 && /setpriv/.test(p.stderr ?? "")) return; // no setpriv here
    expect(JSON.parse(p.stdout)).toEqual({ ok: false, problem: "permission denied" });
  });
});
