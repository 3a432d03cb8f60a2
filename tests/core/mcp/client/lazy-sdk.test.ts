// The SDK loads only when a server is contacted: connect.ts reaches the session code through
// `import()`, so the configuration commands and the host's static graph never parse the SDK, and
// only the transport modules name it at all.
import { describe, expect, test } from "bun:test";
import { chain, exists, importsOf, sourceFiles, staticGraph } from "../../../arch/graph.ts";

const SDK = "@modelcontextprotocol/sdk";

describe("the SDK is lazy", () => {
  const entries = [
    "src/core/mcp/client/connect.ts",
    "src/core/mcp/index.ts",
    "src/core/index.ts",
    "src/cli/commands/mcp/list.ts",
    "src/cli/commands/mcp/get.ts",
    "src/cli/commands/mcp/status.ts",
  ];
  for (const entry of entries)
    test.skipIf(!exists(entry))(`${entry} never statically reaches ${SDK}`, () => {
      const g = staticGraph(entry);
      const via = g.packages.get(SDK);
      expect(via === undefined ? null : chain(g, via)).toBeNull();
    });

  // The client's transports and the server of `lemon mcp serve` (loaded by serveSkills through import()).
  test("only modules under mcp/client/transport/ and mcp/serve/ import the SDK", () => {
    const users = sourceFiles("src").filter((f) => importsOf(f).some((e) => e.to === SDK));
    expect(users.length).toBeGreaterThan(0);
    const allowed = ["src/core/mcp/client/transport/", "src/core/mcp/serve/"];
    expect(users.filter((f) => !allowed.some((dir) => f.startsWith(dir)))).toEqual([]);
  });

  test("connect.ts reaches the transports only through import()", () => {
    // stdio.ts first (it starts the child and needs no SDK), then the session with the SDK.
    const edges = importsOf("src/core/mcp/client/connect.ts").filter((e) => e.to.includes("/transport/"));
    expect(edges.map((e) => e.kind)).toEqual(["dynamic", "dynamic"]);
  });

  test("the stdio transport's own module loads no SDK code (types only)", () => {
    const g = staticGraph("src/core/mcp/client/transport/stdio.ts");
    const via = g.packages.get(SDK);
    expect(via === undefined ? null : chain(g, via)).toBeNull();
  });
});
