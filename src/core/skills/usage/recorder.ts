/**
 * @module skills/usage/recorder
 * The hub of one instance with its built-in subscribers: the usage sidecar from `skill.load` and
 * `skill.write` (skills.md §12.2), and the JSONL log when `[skills] event_log` is on (§11). Both
 * load on first use, so creating an instance costs only the hub.
 */
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { EventHub, type SkillWriteEvent } from "./events.ts";
import type { CreatedBy } from "./sidecar.ts";

/** `A/logs/skill-events.jsonl`. */
export function eventLogFile(ctx: LemonContext): string {
  return join(ctx.agentDir, "logs", "skill-events.jsonl");
}

/**
 * What a write event says about creation: a successful `create` is an agent's skill_manage
 * creation, a draft `publish` a draft's (put-if-absent in the sidecar).
 */
export function createdBy(e: SkillWriteEvent): CreatedBy | undefined {
  if (e.result !== "ok") return undefined;
  const agentId = e.agent_id !== undefined ? { agentId: e.agent_id } : {};
  if (e.action === "create") return { via: "skill_manage", ...agentId };
  if (e.action === "publish") return { via: "draft", ...agentId };
  return undefined;
}

export interface InstanceEventsOptions {
  /** Whether `[skills] event_log` is on; asked once, on the first event. */
  eventLog: () => Promise<boolean>;
}

/** A hub for `ctx`'s instance with the sidecar recorder and the optional JSONL sink attached. */
export function instanceEvents(ctx: LemonContext, opts: InstanceEventsOptions): EventHub {
  const hub = new EventHub({ log: (entry) => ctx.log(entry) });
  const sidecar = () => import("./sidecar.ts");
  hub.persist("skill.load", async (e, c) => (await sidecar()).recordLoad(c, e.scope, e));
  hub.persist("skill.write", async (e, c) => (await sidecar()).recordWrite(c, e.scope, e, createdBy(e)));
  hub.setSinkLoader(async () => {
    if (!(await opts.eventLog())) return null;
    return (await import("./jsonl.ts")).jsonlSink(eventLogFile(ctx));
  });
  return hub;
}
