// Shared set-up of the curator tests: a sandbox with a fixed clock and a usage sidecar whose
// records are written directly (the curator only reads them and sets lifecycle states).
import { join } from "node:path";
import { createLemon, type Lemon, type LemonOptions } from "../../../src/core/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

export const NOW = new Date("2026-08-29T10:15:00Z");
const DAY = 86_400_000;

/** An ISO timestamp `days` before NOW. */
export const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString().replace(/\.\d{3}Z$/, "Z");

export interface Rec {
  lifecycle_state?: string;
  created_by?: string;
  created_at?: string;
  last_loaded_at?: string;
  last_write_at?: string;
  load_count?: number;
}

/** An agent-written skill last active `days` ago. */
export const agentSkill = (days: number, extra: Rec = {}): Rec => ({
  created_by: "agent",
  created_at: daysAgo(days + 1),
  last_loaded_at: daysAgo(days),
  load_count: 1,
  ...extra,
});

export async function writeUsage(box: Sandbox, dir: string, skills: Record<string, Rec>): Promise<string> {
  return box.write(join(dir, "skills.usage.json"), `${JSON.stringify({ version: 1, skills }, null, 2)}\n`);
}

export interface CuratorBox extends AsyncDisposable {
  box: Sandbox;
  lemon: Lemon;
}

/** A sandbox and an instance over it (no background curator) at NOW. */
export async function curatorBox(opts: Partial<LemonOptions> = {}): Promise<CuratorBox> {
  const box = await sandbox();
  const lemon = createLemon({ cwd: box.project, env: box.env, curator: false, now: () => NOW, ...opts });
  return {
    box,
    lemon,
    async [Symbol.asyncDispose]() {
      await lemon.close();
      await box[Symbol.asyncDispose]();
    },
  };
}

/** The standard scope: one skill per transition rule and one per "never changed" case. */
export const MIXED: Record<string, Rec> = {
  "old-skill": agentSkill(120, { lifecycle_state: "stale" }),
  "narrow-skill": agentSkill(40),
  "back-again": agentSkill(3, { lifecycle_state: "stale" }),
  "fresh-skill": agentSkill(1),
  "pinned-skill": agentSkill(400, { lifecycle_state: "pinned" }),
  "gone-skill": agentSkill(400, { lifecycle_state: "archived" }),
  "user-skill": { created_at: daysAgo(300), last_loaded_at: daysAgo(300), load_count: 2 },
};
