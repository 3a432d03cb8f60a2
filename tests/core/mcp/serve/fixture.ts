// The catalog the serve tests run against: served skills of both scopes and every kind that must
// never be served (hidden, disabled, blocked), plus the supporting files the containment rules
// are about (a link out of the bundle, a FIFO, a file over 1 MiB, a hostile description).
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyRecord } from "../../../../src/core/skills/lockfile.ts";
import type { Sandbox } from "../../../support/sandbox.ts";

export const SECRET = "top-secret-outside-the-bundle";

export async function serveFixture(box: Sandbox): Promise<{ global: string; project: string }> {
  box.env.LEMON_SNAPSHOT_WORKER = "never";
  const global = join(box.agentDir, "skill");
  const project = join(box.project, ".lemon", "skill");
  const d = (key: string, what: string) => ({ name: key, description: `Use this skill to ${what}.` });
  await box.skill(
    global,
    "k8s-rollout",
    d("k8s-rollout", "roll out kubernetes deployments safely"),
    "# Rollout\n\n## Steps\n\nkubectl rollout status\u202E hidden\u200B\n",
  );
  await box.write(join(global, "k8s-rollout", "references", "api.md"), "# API\n\nkubectl reference\n");
  await box.write(join(global, "k8s-rollout", "references", "big.txt"), "x".repeat(1024 * 1024 + 1));
  await box.write(join(box.root, "outside.txt"), SECRET);
  symlinkSync(join(box.root, "outside.txt"), join(global, "k8s-rollout", "references", "escape.md"));
  Bun.spawnSync(["mkfifo", join(global, "k8s-rollout", "references", "pipe")]);
  await box.skill(project, "pg-migrate", d("pg-migrate", "write postgres migrations"));
  await box.skill(global, "secret-hidden", { ...d("secret-hidden", "deploy kubernetes canaries"), hide: true });
  await box.skill(global, "turned-off", d("turned-off", "roll out kubernetes clusters"));
  await box.skill(global, "evil", d("evil", "roll out kubernetes secrets"));
  await box.skill(global, "sneaky", {
    name: "sneaky",
    description: "Use this\u200B to format\u2060 markdown <tables> & lists.",
  });
  await box.skill(global, "browser-thing", {
    name: "browser-thing",
    description: "Use this skill to click through web pages.",
    requires_tools: ["browser"],
  });
  writeFileSync(join(box.agentDir, "skills.json"), JSON.stringify({ version: 1, disabled: ["turned-off"] }));
  mkdirSync(box.agentDir, { recursive: true });
  const evil = { ...emptyRecord("evil"), source_kind: "git", source_id: "https://example.test/evil.git" };
  writeFileSync(
    join(box.agentDir, "skills.lock.json"),
    JSON.stringify({ version: 1, skills: { evil: { ...evil, audit_status: "block" } } }),
  );
  return { global, project };
}

/** Keys that must never reach a client. */
export const NEVER = ["secret-hidden", "turned-off", "evil"];
/** Keys served with both scopes. */
export const SERVED = ["browser-thing", "k8s-rollout", "pg-migrate", "sneaky"];
