/**
 * @module skills/install/update
 * `skill update` (install.md §9): compare the upstream identity with the installed one, refuse to
 * overwrite local edits, and reinstall through the install sequence's own activation.
 */
import type { LemonContext } from "../../context.ts";
import { LemonError, type ErrorCode } from "../../errors.ts";

/** Result status of one key (install.md §9). */
export type UpdateStatus = "up_to_date" | "updated" | "update_available" | "pinned";

/** cli.md §7 UpdateResult: `from`/`to` = installed/upstream identity (full hashes). */
export interface UpdateResult {
  key: string;
  status: UpdateStatus;
  from: string | null;
  to: string | null;
}

/** One key of a several-key run: its result, or the error that stopped it (cli.md §2.13). */
export type UpdateItem = UpdateResult | { key: string; error: { code: ErrorCode; message: string } };

/** An operation or warn approval; same shape as the install engine's (approval.ts, once it lands). */
export type ApproveArg = boolean | ((request: { kind: string; key: string }) => Promise<boolean>);

export interface UpdateRequest {
  /** Project scope when false (install.md §9 `--local`); default global. */
  global: boolean;
  approve: ApproveArg;
  /** Overwrite local modifications (§9 step 4). */
  force: boolean;
  /** Only query upstream and record checked_at / latest_upstream_hash (§9 step 3). */
  check: boolean;
  /** A new ref to follow (also the only way to move a commit pin). */
  ref?: string;
  /** Exact bundle sha256 for a blocked update (install.md §8). */
  securityOverride?: string;
  onProgress?: (line: string) => void;
  onNotice?: (line: string) => void;
  /** Remote checks in flight at once for several keys (default UPDATE_CONCURRENCY). */
  concurrency?: number;
}

/** Bound of parallel upstream queries of `update --all` / `--check`. */
export const UPDATE_CONCURRENCY = 8;

/** One key; throws LemonError (NOT_FOUND, INVALID_REQUEST, CONFLICT, FORBIDDEN …). */
export async function updateSkill(_ctx: LemonContext, _key: string, _req: UpdateRequest): Promise<UpdateResult> {
  throw new LemonError("UNAVAILABLE", "'lemon skill update' is not available in this version");
}

/**
 * Several keys, or every record of the scope's lock ("all"); never throws for one key: a failed
 * key's item carries its error. Throws only when the lockfile itself cannot be read.
 */
export async function updateSkills(
  _ctx: LemonContext,
  _keys: readonly string[] | "all",
  _req: UpdateRequest,
): Promise<UpdateItem[]> {
  throw new LemonError("UNAVAILABLE", "'lemon skill update' is not available in this version");
}

/** `update --check`: updateSkills with check forced on. */
export function checkUpdates(
  ctx: LemonContext,
  keys: readonly string[] | "all",
  req: Omit<UpdateRequest, "check">,
): Promise<UpdateItem[]> {
  return updateSkills(ctx, keys, { ...req, check: true });
}
