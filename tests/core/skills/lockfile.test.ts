// skills.lock.json (install.md §6) read and written through real files: the lenient read a listing
// does, the locked rewrite installs do, what survives it, and writers in several processes.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  emptyRecord,
  installedIdentity,
  readLockfile,
  updateAvailable,
  updateLockfile,
  type LockRecord,
} from "../../../src/core/skills/lockfile.ts";
import {
  LOCK_RECORD_FIELDS,
  LockFileShape,
  LockRecord as LockRecordSchema,
} from "../../../src/core/schema/lockfile.ts";
import { lockFileShape, lockRecordChecks } from "../../../src/core/schema/skills.checks.js";
import { Value } from "@sinclair/typebox/value";
import { sandbox } from "../../support/sandbox.ts";

const HASH = "a".repeat(64);
const record = (key: string, over: Partial<LockRecord> = {}): LockRecord => ({ ...emptyRecord(key), ...over });

async function readOk(file: string) {
  const r = await readLockfile(file);
  if (!r.ok) throw new Error(`expected a valid lockfile, got: ${r.reason}`);
  return r.doc;
}

describe("readLockfile (install.md §6 Reading)", () => {
  test("a missing file, and an object without skills, read as empty", async () => {
    await using box = await sandbox();
    expect(await readOk(join(box.root, "none.json"))).toEqual({ version: 1, skills: {} });
    const f = await box.write("l.json", '{"version":1}');
    expect(await readOk(f)).toEqual({ version: 1, skills: {} });
    // A parent that is a file (a `.lemon` file): nothing there, as the state-dir diagnostic says.
    await box.write("dot-lemon", "x");
    expect(await readOk(join(box.root, "dot-lemon", "skills.lock.json"))).toEqual({ version: 1, skills: {} });
  });

  test.each([
    ["malformed JSON", "{", /./],
    ["a non-object top level", "[1]", /^top level: expected object$/],
    ["a non-object skills", '{"skills":[]}', /^skills: expected object$/],
    ["skills as a string", '{"skills":"x"}', /^skills: expected object$/],
    ["a duplicate key", '{"skills":{},"skills":{}}', /duplicate key 'skills'/],
    ["a later version", '{"version":2,"skills":{}}', /^unsupported version$/],
    [
      "a hostile nesting",
      `{"skills":{"a":{"x":${"[".repeat(100000)}${"]".repeat(100000)}}}}`,
      /^nesting deeper than 32 levels$/,
    ],
  ])("%s is invalid with a reason", async (_what, text, reason) => {
    await using box = await sandbox();
    const f = await box.write("l.json", text);
    const r = await readLockfile(f);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  test("nesting within the bound, brackets inside strings, and escaped quotes do not count", async () => {
    await using box = await sandbox();
    const deepString = `${"[".repeat(100)}\\"{{{`;
    const f = await box.write(
      "l.json",
      JSON.stringify({ skills: { a: { source_id: deepString, x: [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]] } } }),
    );
    expect((await readOk(f)).skills.a!.source_id).toBe(deepString);
  });

  test("a file that is not regular, too large or not UTF-8 is invalid, never read whole", async () => {
    await using box = await sandbox();
    const fifo = join(box.root, "fifo.json");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    expect(await readLockfile(fifo)).toEqual({ ok: false, reason: "not a regular file" });
    const big = await box.write("big.json", `{"skills":{},"pad":"${"x".repeat(4 * 1024 * 1024)}"}`);
    expect(await readLockfile(big)).toEqual({ ok: false, reason: "file exceeds 4194304 bytes" });
    const latin = await box.write("latin.json", new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
    expect(await readLockfile(latin)).toEqual({ ok: false, reason: "file is not valid UTF-8" });
  });

  test("unknown enum strings read as null; a record missing fields reads them as null", async () => {
    await using box = await sandbox();
    const f = await box.write(
      "l.json",
      JSON.stringify({
        version: 1,
        skills: {
          a: { source_kind: "ftp", trust_level: "godlike", audit_status: "fine", agent: "claude" },
          b: {},
          c: "not a record",
        },
      }),
    );
    const doc = await readOk(f);
    expect(doc.skills.a).toEqual(record("a", { agent: "claude" }));
    expect(doc.skills.b).toEqual(record("b"));
    expect(doc.skills.c).toEqual(record("c"));
    // Everything read is a document lemon could write.
    for (const r of Object.values(doc.skills)) expect(Value.Check(LockRecordSchema, r)).toBe(true);
  });

  test("ill-typed fields fall back field by field; findings keep their strings", async () => {
    await using box = await sandbox();
    const f = await box.write(
      "l.json",
      JSON.stringify({
        skills: {
          a: {
            source_kind: "git",
            source_id: 7,
            audit_status: "block",
            audit_findings: ["one", 2, "three"],
            security_override: { bundle_hash: "NOT-HEX", approved_at: "t", engine_version: "e", findings: [] },
            audit_approval: { bundle_hash: HASH, approved_at: "t" },
            installed_at: "2026-01-01T00:00:00Z",
          },
        },
      }),
    );
    expect((await readOk(f)).skills.a).toEqual(
      record("a", {
        source_kind: "git",
        audit_status: "block",
        audit_findings: ["one", "three"],
        installed_at: "2026-01-01T00:00:00Z",
      }),
    );
  });

  test("the map key is the record's identity: a disagreeing key field is ignored", async () => {
    await using box = await sandbox();
    const f = await box.write("l.json", JSON.stringify({ skills: { real: { key: "other", audit_status: "block" } } }));
    const doc = await readOk(f);
    expect(Object.keys(doc.skills)).toEqual(["real"]);
    expect(doc.skills.real!.key).toBe("real");
    expect(doc.skills.real!.audit_status).toBe("block");
  });

  test("agent: missing or null reads as lemon; an unknown root is not read at all", async () => {
    await using box = await sandbox();
    const f = await box.write(
      "l.json",
      JSON.stringify({ skills: { a: {}, b: { agent: null }, c: { agent: "cursor", audit_status: "pass" } } }),
    );
    const doc = await readOk(f);
    expect(Object.keys(doc.skills).sort()).toEqual(["a", "b"]);
    expect(doc.skills.a!.agent).toBe("lemon");
    expect(doc.skills.b!.agent).toBe("lemon");
  });

  test("keys like __proto__ and constructor are plain records, never Object's members", async () => {
    await using box = await sandbox();
    const f = await box.write("l.json", '{"skills":{"__proto__":{"audit_status":"block"},"toString":{}}}');
    const doc = await readOk(f);
    expect(Object.hasOwn(doc.skills, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(doc.skills, "__proto__")?.value.audit_status).toBe("block");
    expect(doc.skills.constructor).toBeUndefined();
    expect(Object.keys(doc.skills).sort()).toEqual(["__proto__", "toString"]);
  });
});

describe("updateLockfile (install.md §6 Writes, skills.md §1.3)", () => {
  test("creates the file with every field, mode 0600, keys sorted, trailing newline", async () => {
    await using box = await sandbox();
    const f = join(box.agentDir, "skills.lock.json");
    const result = await updateLockfile(f, null, async (doc) => {
      doc.skills.zeta = record("zeta", { source_kind: "local", trust_level: "trusted" });
      doc.skills.alpha = record("alpha", { agent: "claude" });
      return { next: doc, result: "done" };
    });
    expect(result).toBe("done");
    const text = readFileSync(f, "utf8");
    expect(text.endsWith("}\n")).toBe(true);
    const parsed = JSON.parse(text) as { version: number; skills: Record<string, Record<string, unknown>> };
    expect(parsed.version).toBe(1);
    expect(Object.keys(parsed.skills)).toEqual(["alpha", "zeta"]);
    expect(Object.keys(parsed.skills.zeta!)).toEqual(Object.keys(emptyRecord("x")));
    expect(parsed.skills.alpha!.agent).toBe("claude");
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(existsSync(`${f}.lock`)).toBe(false);
  });

  test("unknown top-level keys and record fields survive; untouched records stay as they were", async () => {
    await using box = await sandbox();
    const original = {
      version: 1,
      note: { keep: true },
      skills: {
        old: { key: "old", source_kind: "sftp", future_field: [1, 2], agent: "lemon" },
        odd: { key: "odd", agent: "cursor", audit_status: "block" },
        "bad/key": { agent: "lemon" },
        edit: { ...record("edit"), extra: "kept" },
      },
    };
    const f = await box.write("l.json", JSON.stringify(original));
    await updateLockfile(f, null, async (doc) => {
      doc.skills.edit = { ...doc.skills.edit!, audit_status: "pass" };
      doc.skills.fresh = record("fresh");
      return { next: doc, result: null };
    });
    const after = JSON.parse(readFileSync(f, "utf8")) as Record<string, unknown> & {
      skills: Record<string, unknown>;
    };
    expect(after.note).toEqual({ keep: true });
    // untouched: byte-for-byte the read value (the unknown enum is not nulled by a rewrite)
    expect(after.skills.old).toEqual(original.skills.old);
    // never read (unknown root, a key no skill can have): kept as it was
    expect(after.skills.odd).toEqual(original.skills.odd);
    expect(after.skills["bad/key"]).toEqual(original.skills["bad/key"]);
    expect(after.skills.edit).toEqual({ ...record("edit", { audit_status: "pass" }), extra: "kept" });
    expect(after.skills.fresh).toEqual(record("fresh"));
  });

  test("a record removed by the change is gone; next undefined writes nothing", async () => {
    await using box = await sandbox();
    const f = await box.write("l.json", JSON.stringify({ skills: { a: record("a"), b: record("b") } }));
    const before = readFileSync(f, "utf8");
    expect(await updateLockfile(f, null, async () => ({ next: undefined, result: 1 }))).toBe(1);
    expect(readFileSync(f, "utf8")).toBe(before);
    await updateLockfile(f, null, async (doc) => {
      delete doc.skills.a;
      return { next: doc, result: null };
    });
    expect(Object.keys((await readOk(f)).skills)).toEqual(["b"]);
  });

  test("an invalid file is never overwritten: CONFLICT refusing to overwrite invalid <file>: <reason>", async () => {
    await using box = await sandbox();
    const f = await box.write("l.json", '{"skills":[]}');
    let ran = false;
    const err = await updateLockfile(f, null, async (doc) => {
      ran = true;
      return { next: doc, result: null };
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "CONFLICT",
      message: `refusing to overwrite invalid ${f}: skills: expected object`,
    });
    expect(ran).toBe(false);
    expect(readFileSync(f, "utf8")).toBe('{"skills":[]}');
  });

  test("a failing change leaves the file and releases the lock", async () => {
    await using box = await sandbox();
    const f = await box.write("l.json", JSON.stringify({ skills: { a: record("a") } }));
    const before = readFileSync(f, "utf8");
    await expect(
      updateLockfile(f, null, async () => {
        throw new Error("activation failed");
      }),
    ).rejects.toThrow("activation failed");
    expect(readFileSync(f, "utf8")).toBe(before);
    expect(existsSync(`${f}.lock`)).toBe(false);
  });

  test("a project lockfile is confined to C: a symlinked .lemon leaving it is FORBIDDEN", async () => {
    await using box = await sandbox();
    const outside = join(box.root, "outside");
    await box.write("outside/keep", "");
    await box.link(outside, join(box.project, ".lemon"));
    const f = join(box.project, ".lemon", "skills.lock.json");
    const err = await updateLockfile(f, box.project, async (doc) => ({ next: doc, result: null })).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "FORBIDDEN" });
    expect(existsSync(join(outside, "skills.lock.json"))).toBe(false);
  });

  test("concurrent writers in several processes never lose a record", async () => {
    await using box = await sandbox();
    const f = join(box.agentDir, "skills.lock.json");
    const LOCKFILE_TS = join(import.meta.dir, "../../../src/core/skills/lockfile.ts");
    const worker = await box.write(
      "lock-worker.ts",
      `import { emptyRecord, updateLockfile } from ${JSON.stringify(LOCKFILE_TS)};
const [file, id] = process.argv.slice(2);
for (let i = 0; i < 5; i++) {
  for (;;) {
    try {
      await updateLockfile(file, null, async (doc) => {
        doc.skills[\`w\${id}-\${i}\`] = { ...emptyRecord(\`w\${id}-\${i}\`), source_kind: "local" };
        return { next: doc, result: null };
      }, { lockTimeoutMs: 30000 });
      break;
    } catch (err) {
      // A concurrent change detected under the lock is the one retryable failure.
      if (!String(err).includes("changed while it was being updated")) throw err;
    }
  }
}
`,
    );
    const children = [1, 2, 3, 4].map((id) =>
      Bun.spawn([process.execPath, worker, f, String(id)], { stdout: "ignore", stderr: "inherit", cwd: box.root }),
    );
    expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0, 0]);
    const keys = Object.keys((await readOk(f)).skills).sort();
    const want = [1, 2, 3, 4].flatMap((id) => [0, 1, 2, 3, 4].map((i) => `w${id}-${i}`)).sort();
    expect(keys).toEqual(want);
    expect(existsSync(`${f}.lock`)).toBe(false);
  });
});

describe("the generated checks say what the TypeBox schemas say", () => {
  const VALUES: unknown[] = [
    null,
    "",
    "x",
    "a".repeat(64),
    "A".repeat(64),
    1,
    true,
    [],
    ["a"],
    ["a", 1],
    {},
    { skills: {} },
    { skills: [] },
    { bundle_hash: "a".repeat(64), approved_at: "t", findings: [] },
    { bundle_hash: "a".repeat(64), approved_at: "t", engine_version: "e", findings: ["f"] },
    ...["git", "hermes", "ftp", "builtin", "official", "nope", "pending", "block", "fine", "lemon", "omp", "cursor"],
  ];
  test("one check per §6 field, in order, agreeing with its schema on every sample", () => {
    expect(lockRecordChecks.map(([f]) => f)).toEqual(Object.keys(LOCK_RECORD_FIELDS));
    expect(Object.keys(LOCK_RECORD_FIELDS)).toEqual(Object.keys(emptyRecord("k")));
    for (const [field, check] of lockRecordChecks) {
      const schema = LOCK_RECORD_FIELDS[field as keyof typeof LOCK_RECORD_FIELDS];
      for (const v of VALUES) expect([field, v, check(v)]).toEqual([field, v, Value.Check(schema, v)]);
    }
    for (const v of VALUES) expect([v, lockFileShape(v)]).toEqual([v, Value.Check(LockFileShape, v)]);
  });
});

describe("installed identity and update_available (install.md §6 last paragraph)", () => {
  test("the commit for git-like sources, upstream_hash for the others, null for the rest", () => {
    const r = (source_kind: LockRecord["source_kind"]) =>
      record("k", { source_kind, resolved_commit: "c".repeat(40), upstream_hash: HASH });
    for (const k of ["git", "github", "registry"] as const) expect(installedIdentity(r(k))).toBe("c".repeat(40));
    for (const k of ["hermes", "local", "well_known"] as const) expect(installedIdentity(r(k))).toBe(HASH);
    for (const k of ["builtin", "draft", "bundle", null] as const) expect(installedIdentity(r(k))).toBeNull();
  });

  test("null with a reason until an update --check recorded an upstream; then a comparison", () => {
    const base = record("k", { source_kind: "git", resolved_commit: "1".repeat(40) });
    expect(updateAvailable(base)).toEqual({
      value: null,
      reason: "never checked; run `lemon skill update <key> --check` (or --all --check)",
    });
    expect(updateAvailable({ ...base, latest_upstream_hash: "1".repeat(40) })).toEqual({ value: false, reason: null });
    expect(updateAvailable({ ...base, latest_upstream_hash: "2".repeat(40) })).toEqual({ value: true, reason: null });
    expect(updateAvailable(record("k", { source_kind: "draft", latest_upstream_hash: HASH })).value).toBeNull();
  });
});
