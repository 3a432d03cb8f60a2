// The instance the relevance tests share: the sandbox's project, its `global-skills` folder as the
// only global root, snapshots built in-process, no curator.
import { join } from "node:path";
import { createLemon, type Lemon } from "../../../../src/core/index.ts";
import type { Sandbox } from "../../../support/sandbox.ts";

export function lemonFor(
  box: Sandbox,
  extra: { tools?: string[]; now?: () => Date; platform?: string; env?: Record<string, string> } = {},
): Lemon {
  return createLemon({
    cwd: box.project,
    agentDir: box.agentDir,
    env: { ...box.env, LEMON_SNAPSHOT_WORKER: "never", ...(extra.env ?? {}) },
    skillRoots: { agents: null, omp: null, claude: join(box.root, "global-skills"), codex: null },
    curator: false,
    ...(extra.tools ? { availableTools: extra.tools } : {}),
    ...(extra.now ? { now: extra.now } : {}),
    ...(extra.platform ? { platform: extra.platform } : {}),
  });
}
