// The scorer keeps the best `limit` hits and skips documents that cannot reach them (score.ts):
// whatever the limit, its hits must be exactly the first ones of the full ranking, scores and
// matched slots included, with ties broken by key and exact key/name matches first.
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readSnapshotFile } from "../../../../src/core/skills/search/file.ts";
import { parseQuery, scoreSnapshot } from "../../../../src/core/skills/search/score.ts";
import { sandbox } from "../../../support/sandbox.ts";
import { lemonFor } from "./lemon-for.ts";

const WORDS = ["deploy", "docker", "test", "review", "pdf", "slides", "kubernetes", "lint", "release", "notes"];

test("a small limit returns the head of the full ranking, whatever the limit", async () => {
  await using box = await sandbox();
  // 60 skills over a few shared words, so most documents match most queries and many tie.
  for (let i = 0; i < 60; i++) {
    const words = [WORDS[i % 10]!, WORDS[(i * 3 + 1) % 10]!, WORDS[(i * 7 + 2) % 10]!];
    const name = i % 9 === 0 ? WORDS[i % 10]! : `${words[0]}-${words[1]}-${i}`;
    const body = i % 4 === 0 ? words.join(" ") : `${words.join(" ")} ${words[2]} guide`;
    await box.skill(
      "global-skills",
      `s${String(i).padStart(2, "0")}`,
      `---\nname: ${name}\ndescription: ${words.join(" and ")} helper.\n---\n${body}\n`,
    );
  }
  const lemon = lemonFor(box);
  await lemon.skills.findRelevant("warm", { refresh: true });
  await lemon.close();
  const dir = join(box.agentDir, "cache", "skills");
  const snaps = readdirSync(dir)
    .filter((f) => f.endsWith(".snap"))
    .map((f) => readSnapshotFile(join(dir, f)))
    .filter((s) => s !== null && s.docCount > 0);
  expect(snaps.length).toBe(1);
  const snap = snaps[0]!;
  const queries = ["deploy docker", "test", "pdf slides notes", "kubernetes", "release notes lint review", "docker"];
  for (const q of queries) {
    const parsed = parseQuery(q);
    const all = scoreSnapshot(snap, parsed, 1000);
    expect(all.length).toBeGreaterThan(10);
    for (const limit of [1, 2, 3, 5, 8, 13]) expect(scoreSnapshot(snap, parsed, limit)).toEqual(all.slice(0, limit));
  }
  // A request equal to a skill's name ranks it first as exact (rule 5); one longer than every key
  // and name (the label look-up is skipped) has no exact hit.
  const exact = scoreSnapshot(snap, parseQuery("Deploy"), 3);
  expect(exact[0]?.exact).toBe(true);
  expect(snap.keyOf(exact[0]!.doc)).toBe("s00");
  expect(scoreSnapshot(snap, parseQuery(`deploy ${"docker ".repeat(20)}`), 50).some((h) => h.exact)).toBe(false);
});
