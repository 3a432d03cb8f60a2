// Checks generated at bundle time (schema/generated.macro.ts) must answer exactly as TypeBox's own
// Check on the same schema: every document of a snapshot built from the real corpus, and
// mutations of them (a field dropped, a wrong type, a bad manifest value).
import { expect, test } from "bun:test";
import { Check } from "@sinclair/typebox/value";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { DocMetaSchema } from "../../../src/core/schema/doc-meta.ts";
import { isDocMeta } from "../../../src/core/skills/search/doc-meta.ts";
import { readSnapshotFile } from "../../../src/core/skills/search/file.ts";
import { corpusAvailable, CORPUS_DIR } from "../../support/corpus.ts";
import { sandbox } from "../../support/sandbox.ts";

function mutations(doc: Record<string, unknown>): unknown[] {
  const out: unknown[] = [null, [], "text", 1];
  for (const k of Object.keys(doc)) {
    const { [k]: _, ...rest } = doc;
    out.push(rest, { ...doc, [k]: 42 }, { ...doc, [k]: null }, { ...doc, [k]: [] });
  }
  const m = doc.manifest as Record<string, unknown>;
  for (const k of Object.keys(m))
    out.push({ ...doc, manifest: { ...m, [k]: { nested: true } } }, { ...doc, manifest: { ...m, [k]: -1 } });
  out.push({ ...doc, root: -1 }, { ...doc, root: 1.5 }, { ...doc, extra: "kept" });
  return out;
}

test.skipIf(!corpusAvailable())(
  "the generated DocMeta check agrees with TypeBox on corpus documents and their mutations",
  async () => {
    await using box = await sandbox();
    const env = {
      ...box.env,
      LEMON_AGENT_DIR: join(box.root, "agent"),
      LEMON_CLAUDE_SKILLS_DIR: CORPUS_DIR,
      LEMON_SNAPSHOT_WORKER: "never",
    };
    const lemon = createLemon({ cwd: box.project, env });
    await lemon.skills.findRelevant("write a test");
    await lemon.close();
    const dir = join(box.root, "agent", "cache", "skills");
    const files = [...new Bun.Glob("*.snap").scanSync(dir)];
    expect(files.length).toBe(1);
    const snap = readSnapshotFile(join(dir, files[0]!))!;
    let checked = 0;
    for (let d = 0; d < snap.docCount; d++) {
      const doc = snap.docJson(d) as Record<string, unknown>;
      expect(isDocMeta(doc)).toBe(true);
      for (const v of d % 50 === 0 ? mutations(doc) : [doc]) {
        expect(isDocMeta(v)).toBe(Check(DocMetaSchema, v));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(snap.docCount);
  },
);
