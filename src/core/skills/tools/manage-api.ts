/**
 * @module skills/tools/manage-api
 * `Lemon.skillManage` (cli.md §7): binds the `skill_manage` tool to one instance — its context,
 * event hub, `[skills] write_approval`, `approve` callback and registry. Light on purpose: the
 * module entry imports it, and the tool itself loads on the first call.
 */
import type { LemonContext } from "../../context.ts";
import type { SkillRegistry } from "../registry.ts";
import type { EventHub } from "../usage/events.ts";
import type { ToolResult } from "./result.ts";
import type { SkillManageCall, SkillManageDetails, SkillWriteApprovalRequest } from "./skill-manage.ts";

export type { SkillManageCall, SkillManageDetails, SkillWriteApprovalRequest } from "./skill-manage.ts";

export interface ManageApiHost {
  context: LemonContext;
  hub: EventHub;
  /** `[skills] write_approval` of the instance. */
  writeApproval(): Promise<boolean>;
  approve?: (request: SkillWriteApprovalRequest) => Promise<boolean>;
  registry(): Promise<SkillRegistry>;
}

/** The instance's `skillManage(params, ctx)`; never rejects. */
export function skillManageMethod(
  host: ManageApiHost,
): (params: unknown, call?: SkillManageCall) => Promise<ToolResult<SkillManageDetails>> {
  return async (params, call) => {
    const { skillManage } = await import("./skill-manage.ts");
    const safeCall = typeof call === "object" && call !== null ? call : undefined;
    return skillManage(
      {
        context: host.context,
        writeApproval: host.writeApproval,
        ...(host.approve !== undefined ? { approve: host.approve } : {}),
        publish: (e, ctx) => host.hub.publish("skill.write", e, ctx),
        emit: (e) => host.hub.emit("skill.write", e),
        refresh: async () => (await host.registry()).refresh(),
      },
      params,
      safeCall,
    );
  };
}
