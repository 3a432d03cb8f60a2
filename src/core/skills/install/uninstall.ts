/**
 * @module skills/install/uninstall
 * `skill remove` (install.md §10): only skills lemon installed, in the recorded root, removed by
 * rename under the lockfile lock so a failure puts everything back.
 */
import type { LemonContext } from "../../context.ts";
import { LemonError } from "../../errors.ts";
import type { Scope } from "../../paths.ts";
import type { ApproveArg } from "./update.ts";

export interface UninstallRequest {
  /** Project scope when false; default global. */
  global: boolean;
  /** Needed to remove a pinned skill. */
  force: boolean;
  approve: ApproveArg;
}

/** cli.md §2.14 JSON without `ok`; `path` = the removed directory. */
export interface UninstallResult {
  key: string;
  scope: Scope;
  path: string;
  removed: true;
}

export async function uninstallSkill(
  _ctx: LemonContext,
  _key: string,
  _req: UninstallRequest,
): Promise<UninstallResult> {
  throw new LemonError("UNAVAILABLE", "'lemon skill remove' is not available in this version");
}
