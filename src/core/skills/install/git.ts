/**
 * @module skills/install/git
 * Every git invocation of install.md §3, hardened the same way.
 */
import { LemonError } from "../../errors.ts";
import type { FetchOptions } from "./fetch.ts";

/** ls-remote for update (§9 step 2): the commit of ref (peeled for annotated tags) or HEAD. */
export async function remoteCommit(_url: string, _ref: string | null, _opts: FetchOptions): Promise<string> {
  throw new LemonError("UNAVAILABLE", "git is not installed");
}
