// The §7 contract of findRelevant, rule by rule, plus the snapshot rules of §7.3.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon, type Lemon } from "../../../../src/core/index.ts";
import { registryOf } from "../../../../src/core/internals.ts";
import { SNAPSHOT_MAGIC } from "../../../../src/core/skills/search/format.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { lemonFor } from "./lemon-for.ts";

const keys = async (l: Lemon, q: string, o: { maxResults?: number; refresh?: boolean } = {}) =>
  (await l.skills.findRelevant(q, o)).map((e) => `${e.scope}:${e.key}`);

const snapFiles = (box: Sandbox) => {
  const dir = join(box.agentDir, "cache", "skills");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".snap")) : [];
};

describe("findRelevant contract (skills.md §7.1)", () => {
  test("rule 1: disabled, hidden, superseded, incompatible and invalid skills are never returned", async () => {
    await using box = await sandbox();
    const g = "global-skills";
    await box.skill(g, "kafka-ok", { name: "kafka-ok", description: "Kafka topics and consumers." });
    await box.skill(g, "kafka-off", { name: "kafka-off", description: "Kafka topics and consumers." });
    await box.skill(g, "kafka-hidden", { name: "kafka-hidden", description: "Kafka topics.", hide: true });
    await box.skill(g, "kafka-fallback", {
      name: "kafka-fallback",
      description: "Kafka topics.",
      fallback_for_tools: ["kafka_tool"],
    });
    await box.skill(g, "kafka-mac", { name: "kafka-mac", description: "Kafka topics.", platforms: ["darwin"] });
    await box.skill(g, "kafka-bad", "---\nname: [unclosed\n---\nKafka topics\n");
    await box.skill(g, "kafka-needs", {
      name: "kafka-needs",
      description: "Kafka topics.",
      requires: { bins: ["no-such-bin-xyz"] },
    });
    await box.write(join(box.agentDir, "skills.json"), JSON.stringify({ disabled: ["kafka-off"] }));
    await using l = lemonFor(box, { tools: ["kafka_tool"], platform: "linux" });
    const got = await l.skills.findRelevant("kafka topics", { maxResults: 50 });
    expect(got.map((e) => e.key).sort()).toEqual(["kafka-needs", "kafka-ok"]);
    expect(got.find((e) => e.key === "kafka-needs")!.activation_state).toBe("not_ready");
  });

  test("rule 2: only positive scores; punctuation or stop words only return []", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "csv-tools", { name: "csv-tools", description: "Parse CSV files." });
    await using l = lemonFor(box);
    expect(await keys(l, "quantum chromodynamics")).toEqual([]);
    expect(await keys(l, "?!... ---")).toEqual([]);
    expect(await keys(l, "the and of please")).toEqual([]);
    expect(await keys(l, "   ")).toEqual([]);
  });

  test("rule 3: maxResults default 3, capped at 50, non-positive or non-integer gives []", async () => {
    await using box = await sandbox();
    for (let i = 0; i < 60; i++)
      await box.skill("global-skills", `lint-${String(i).padStart(2, "0")}`, {
        name: `lint-${i}`,
        description: "Lint YAML files.",
      });
    await using l = lemonFor(box);
    expect((await keys(l, "yaml lint")).length).toBe(3);
    expect((await keys(l, "yaml lint", { maxResults: 7 })).length).toBe(7);
    expect((await keys(l, "yaml lint", { maxResults: 500 })).length).toBe(50);
    expect(await keys(l, "yaml lint", { maxResults: 0 })).toEqual([]);
    expect(await keys(l, "yaml lint", { maxResults: -2 })).toEqual([]);
    expect(await keys(l, "yaml lint", { maxResults: 2.5 })).toEqual([]);
  });

  test("rule 4: project results precede global ones; equal scores ordered by key", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "a-global-redis", {
      name: "a-global-redis",
      description: "Redis caching and eviction policies, redis redis.",
    });
    await box.skill("project/.lemon/skill", "z-project-redis", { name: "z-project-redis", description: "Redis." });
    await box.skill("project/.lemon/skill", "m-twin", { name: "twin", description: "Redis twin." });
    await box.skill("project/.lemon/skill", "b-twin", { name: "twin", description: "Redis twin." });
    await using l = lemonFor(box);
    const got = await keys(l, "redis", { maxResults: 10 });
    expect(got.slice(0, 3).every((k) => k.startsWith("project:"))).toBe(true);
    expect(got[3]).toBe("global:a-global-redis");
    expect(got.indexOf("project:b-twin")).toBeLessThan(got.indexOf("project:m-twin"));
  });

  test("a project skill hides the global skill with the same key", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "deploy", { name: "deploy", description: "Deploy with helm." });
    await box.skill("project/.lemon/skill", "deploy", {
      name: "deploy",
      description: "Deploy with helm, project flavour.",
    });
    await using l = lemonFor(box);
    expect(await keys(l, "deploy helm", { maxResults: 10 })).toEqual(["project:deploy"]);
  });

  test("rule 5: a query equal to a key or name ranks that skill first in its scope", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "git", { name: "git", description: "Basics." });
    await box.skill("global-skills", "git-rebase", {
      name: "git-rebase",
      description: "Git git git rebase git history git.",
    });
    await box.skill("global-skills", "pdf-tool", {
      name: "Portable Docs",
      description: "Portable docs portable docs.",
    });
    await box.skill("global-skills", "docs-portable", {
      name: "docs-portable",
      description: "Portable docs everywhere portable.",
    });
    await using l = lemonFor(box);
    expect((await keys(l, "  GIT "))[0]).toBe("global:git");
    expect((await keys(l, "portable docs"))[0]).toBe("global:pdf-tool");
  });

  test("rule 6: a keywords-only or tags-only match is returned", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "quiet", {
      name: "quiet",
      description: "Nothing relevant here.",
      keywords: ["zeppelin"],
    });
    await box.skill("global-skills", "tagged", {
      name: "tagged",
      description: "Nothing relevant here.",
      tags: ["blimp"],
    });
    await using l = lemonFor(box);
    expect(await keys(l, "zeppelin")).toEqual(["global:quiet"]);
    expect(await keys(l, "blimp")).toEqual(["global:tagged"]);
  });

  test("rule 7: only the first 10,000 body characters count", async () => {
    await using box = await sandbox();
    const body = "x ".repeat(5_000) + " wombat";
    await box.skill("global-skills", "late", { name: "late", description: "Unrelated." }, body);
    await box.skill(
      "global-skills",
      "early",
      { name: "early", description: "Unrelated." },
      "narwhal " + "y ".repeat(5_000),
    );
    await using l = lemonFor(box);
    expect(await keys(l, "wombat")).toEqual([]);
    expect(await keys(l, "narwhal")).toEqual(["global:early"]);
  });

  test("rule 8: case-insensitive, Unicode-aware, deterministic under concurrency", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "cafe", { name: "café-menu", description: "Crème brûlée recipes for the CAFÉ." });
    await box.skill("global-skills", "zh", { name: "zh-docs", description: "编写技术文档和测试用例" });
    await using l = lemonFor(box);
    expect(await keys(l, "creme BRULEE")).toEqual(["global:cafe"]);
    expect(await keys(l, "测试用例")).toEqual(["global:zh"]);
    const runs = await Promise.all(Array.from({ length: 8 }, () => keys(l, "cafe recipes")));
    for (const r of runs) expect(r).toEqual(runs[0]!);
  });

  test("rule 9: disabled state is read live", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "sqlite-tips", { name: "sqlite-tips", description: "SQLite pragmas." });
    await using l = lemonFor(box);
    expect(await keys(l, "sqlite")).toEqual(["global:sqlite-tips"]);
    await l.skills.disable("sqlite-tips");
    expect(await keys(l, "sqlite")).toEqual([]);
  });
});

describe("search snapshot (skills.md §7.3)", () => {
  test("an empty catalog yields [] and writes no snapshot", async () => {
    await using box = await sandbox();
    await using l = lemonFor(box);
    expect(await keys(l, "anything")).toEqual([]);
    expect(snapFiles(box)).toEqual([]);
  });

  test("the snapshot starts with LEMSNAP and a foreign or truncated file is rebuilt", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "terraform", { name: "terraform", description: "Terraform modules." });
    {
      await using l = lemonFor(box);
      expect(await keys(l, "terraform modules")).toEqual(["global:terraform"]);
    }
    const [file] = snapFiles(box);
    const path = join(box.agentDir, "cache", "skills", file!);
    expect(readFileSync(path).subarray(0, 7).toString()).toBe(SNAPSHOT_MAGIC);
    const full = readFileSync(path);
    for (const bad of [
      Buffer.from("not a snapshot at all, just text".repeat(4)),
      full.subarray(0, full.length >> 1),
      Buffer.alloc(0),
    ]) {
      writeFileSync(path, bad);
      await using l = lemonFor(box);
      expect(await keys(l, "terraform")).toEqual(["global:terraform"]);
      // The rebuilt snapshot is persisted behind the call: settled() waits for the write.
      await (await registryOf(l)).relevance().store.settled();
      expect(readFileSync(path).subarray(0, 7).toString()).toBe(SNAPSHOT_MAGIC);
    }
  });

  test("adds, removals and rewrites become visible after the check interval without refresh", async () => {
    await using box = await sandbox();
    let t = 1_000_000;
    await box.skill("global-skills", "alpha", { name: "alpha", description: "Prometheus alerts." });
    await using l = lemonFor(box, { now: () => new Date(t) });
    expect(await keys(l, "prometheus")).toEqual(["global:alpha"]);
    await box.skill("global-skills", "beta", { name: "beta", description: "Prometheus alerts, prometheus rules." });
    expect(await keys(l, "prometheus")).toEqual(["global:alpha"]); // within 50 ms: cached
    t += 51;
    expect((await keys(l, "prometheus")).sort()).toEqual(["global:alpha", "global:beta"]);
    await box.skill("global-skills", "alpha", { name: "alpha", description: "Grafana panels." });
    t += 51;
    expect(await keys(l, "prometheus")).toEqual(["global:beta"]);
    expect(await keys(l, "grafana")).toEqual(["global:alpha"]);
    await box.skill("global-skills", "gamma", { name: "gamma", description: "Loki logs." });
    expect(await keys(l, "loki", { refresh: true })).toEqual(["global:gamma"]);
  });

  test("an incremental rebuild reuses unchanged documents", async () => {
    await using box = await sandbox();
    for (let i = 0; i < 20; i++)
      await box.skill("global-skills", `s${i}`, { name: `s${i}`, description: `Topic number ${i} about ansible.` });
    let t = 0;
    await using l = lemonFor(box, { now: () => new Date(t) });
    expect((await keys(l, "ansible", { maxResults: 50 })).length).toBe(20);
    await box.skill("global-skills", "s3", { name: "s3", description: "Now about saltstack." });
    t += 100;
    expect(await keys(l, "saltstack")).toEqual(["global:s3"]);
    expect((await registryOf(l)).relevance().store.lastBuild).toMatchObject({ reused: 19, loaded: 1 });
  });

  test("an unwritable cache still answers from memory", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "nginx", { name: "nginx", description: "Nginx config." });
    await box.write(join(box.agentDir, "cache"), "a file where the cache directory should be");
    await using l = lemonFor(box);
    expect(await keys(l, "nginx")).toEqual(["global:nginx"]);
  });

  test("the snapshot worker builds and scores over the mapped file", async () => {
    await using box = await sandbox();
    await box.skill("global-skills", "vault", { name: "vault", description: "HashiCorp Vault secrets." });
    await box.skill("global-skills", "consul", { name: "consul", description: "Service discovery." });
    await using l = lemonFor(box, { env: { LEMON_SNAPSHOT_WORKER: "always" } });
    expect(await keys(l, "vault secrets")).toEqual(["global:vault"]);
    const store = (await registryOf(l)).relevance().store;
    expect(store.lastBuild?.via).toBe("worker");
    const [file] = snapFiles(box);
    const hits = await (await store.worker()).score(
      join(box.agentDir, "cache", "skills", file!),
      "service discovery",
      3,
    );
    expect(hits.map((h) => h.key)).toEqual(["consul"]);
  });
});

describe("skills.refresh()", () => {
  test("makes the next findRelevant rebuild instead of trusting the last check", async () => {
    await using box = await sandbox();
    for (const k of ["alpha", "beta"])
      await box.skill(join(box.project, ".lemon/skill"), k, {
        name: k,
        description: `the ${k} skill for refresh tests`,
      });
    let t = 0;
    const l = createLemon({ cwd: box.project, env: box.env, now: () => new Date(t) });
    await l.skills.findRelevant("alpha skill");
    const store = (await registryOf(l)).relevance().store;
    store.lastBuild = null;
    await l.skills.findRelevant("alpha skill");
    expect(store.lastBuild).toBeNull();
    await l.skills.refresh();
    await l.skills.findRelevant("alpha skill");
    expect(store.lastBuild).not.toBeNull();
    store.lastBuild = null;
    t += 1;
    await l.skills.findRelevant("alpha skill");
    expect(store.lastBuild).toBeNull();
    await l.close();
  });
});
