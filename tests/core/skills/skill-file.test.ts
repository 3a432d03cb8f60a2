// The one SKILL.md reader keeps a SKILL.md link inside its skill directory (skills.md §2.2): an
// embedder calling readSkillFile gets symlink_escape, never the outside file's content.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readSkillFile } from "../../../src/core/skills/skill-file.ts";
import { sandbox } from "../../support/sandbox.ts";

describe("readSkillFile and SKILL.md links", () => {
  test("a link out of the directory is refused unread, one within it is read, a dangling one fails", async () => {
    await using box = await sandbox();
    const outside = await box.write("outside.md", "---\nname: [SECRET\n---\n");
    await box.link(outside, "out/SKILL.md");
    const escaped = await readSkillFile(join(box.root, "out/SKILL.md"));
    expect(escaped).toMatchObject({ ok: false, code: "symlink_escape", contentHash: null });
    expect(JSON.stringify(escaped)).not.toContain("SECRET");
    await box.write("in/docs/real.md", "---\nname: in\ndescription: linked within the skill dir\n---\nbody\n");
    await box.link("docs/real.md", "in/SKILL.md");
    expect(await readSkillFile(join(box.root, "in/SKILL.md"))).toMatchObject({ ok: true, body: "body\n" });
    // The caller's real skill directory decides: the same link read as part of a narrower skill escapes it.
    const narrower = await readSkillFile(join(box.root, "in/SKILL.md"), join(box.root, "in/other"));
    expect(narrower).toMatchObject({ ok: false, code: "symlink_escape" });
    await box.link(join(box.root, "gone.md"), "dangling/SKILL.md");
    expect(await readSkillFile(join(box.root, "dangling/SKILL.md"))).toMatchObject({
      ok: false,
      code: "skill_file_unreadable",
      message: "SKILL.md cannot be read (ENOENT)",
    });
    const none = await readSkillFile(join(box.root, "none/SKILL.md"));
    expect(none).toMatchObject({ ok: false, code: "missing_skill_file" });
  });
});
