/**
 * @module cli/commands/skill
 * `lemon skill …` (cli.md §2): one lazily loaded file per subcommand (a chunk of its own in the
 * binary). Rows marked unavailable are the contract's commands this version does not build.
 */
import { defineGroup, lazy } from "../../command.ts";

export default defineGroup({
  name: "skill",
  description: "Find, install, update and remove agent skills; inspect, lint, audit and curate them",
  commands: {
    list: { load: lazy(() => import("./list.ts")) },
    browse: { load: lazy(() => import("./browse.ts")) },
    inspect: { load: lazy(() => import("./inspect.ts")), aliases: ["info"] },
    check: { load: lazy(() => import("./check.ts")) },
    lint: { load: lazy(() => import("./lint.ts")) },
    audit: { load: lazy(() => import("./audit.ts")) },
    enable: { load: lazy(() => import("./enable.ts")) },
    disable: { load: lazy(() => import("./disable.ts")) },
    relevant: { load: lazy(() => import("./relevant.ts")) },
    prompt: { load: lazy(() => import("./prompt.ts")) },
    search: { load: lazy(() => import("./search.ts")) },
    discover: { load: lazy(() => import("./discover.ts")) },
    hermes: { load: lazy(() => import("./hermes.ts")) },
    install: { load: lazy(() => import("./install.ts")) },
    update: { load: lazy(() => import("./update.ts")) },
    remove: { load: lazy(() => import("./remove.ts")), aliases: ["uninstall"] },
    draft: { unavailable: "Generate and publish skill drafts" },
    curator: { load: lazy(() => import("./curator.ts")) },
  },
});
