/**
 * @module cli/commands/mcp
 * `lemon mcp …` (cli.md §3): one lazily loaded file per subcommand. Rows marked unavailable are
 * the contract's commands this version does not build (OAuth login).
 */
import { defineGroup, lazy } from "../../command.ts";

export default defineGroup({
  name: "mcp",
  description: "Configure, trust, test and call MCP servers; list their tools and status",
  commands: {
    list: { load: lazy(() => import("./list.ts")) },
    get: { load: lazy(() => import("./get.ts")) },
    add: { load: lazy(() => import("./add.ts")) },
    "add-json": { load: lazy(() => import("./add-json.ts")) },
    remove: { load: lazy(() => import("./remove.ts")), aliases: ["rm"] },
    enable: { load: lazy(() => import("./enable.ts")) },
    disable: { load: lazy(() => import("./disable.ts")) },
    status: { load: lazy(() => import("./status.ts")) },
    test: { load: lazy(() => import("./test.ts")) },
    login: { load: lazy(() => import("./login.ts")) },
    logout: { load: lazy(() => import("./logout.ts")) },
    trust: { load: lazy(() => import("./trust.ts")) },
    untrust: { load: lazy(() => import("./trust.ts").then((m) => ({ default: m.untrust }))) },
    call: { load: lazy(() => import("./call.ts")) },
    tools: { load: lazy(() => import("./tools.ts")) },
    serve: { load: lazy(() => import("./serve.ts")) },
  },
});
