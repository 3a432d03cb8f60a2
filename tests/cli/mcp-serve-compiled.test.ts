// `lemon mcp serve` inside the compiled binary (cli.md §3.8): the SDK's server code and lemon's
// serve modules are bundled, so the SDK's stdio and Streamable HTTP clients get the same tools,
// resources and prompts as from the source, and stdin EOF still exits 0.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hostTarget } from "../../scripts/targets.ts";
import { compiledBinary } from "../compiled/binary.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";
import { serveFixture } from "../core/mcp/serve/fixture.ts";
import { httpChild, httpClient, stdioClient } from "./mcp-serve-support.ts";

let binary = "";
let box: Sandbox;

beforeAll(async () => {
  binary = await compiledBinary();
  box = await sandbox();
  await serveFixture(box);
}, 240_000);

afterAll(async () => {
  await box?.[Symbol.asyncDispose]();
});

describe(`lemon mcp serve in the compiled binary (${hostTarget().name})`, () => {
  test("stdio: tools, find_skills, a resource and a prompt", async () => {
    const { client } = await stdioClient(box, [], binary);
    try {
      expect(client.getServerVersion()?.name).toBe("lemon");
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["find_skills", "read_skill"]);
      const r = await client.callTool({ name: "find_skills", arguments: { query: "kubernetes rollout" } });
      expect((r.structuredContent as { skills: { key: string }[] }).skills.map((s) => s.key)).toEqual(["k8s-rollout"]);
      const res = await client.readResource({ uri: "skill://k8s-rollout/references/api.md" });
      expect((res.contents[0] as { text: string }).text).toContain("kubectl reference");
      const p = await client.getPrompt({ name: "use_skill", arguments: { key: "pg-migrate" } });
      expect((p.messages[0]!.content as { text: string }).text).toContain("Do the thing carefully.");
    } finally {
      await client.close();
    }
  });

  test("Streamable HTTP with the printed token; SIGTERM exits 0", async () => {
    const child = await httpChild(box, ["--allow-writes"], { binary });
    try {
      const client = await httpClient(child.url, child.token!);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
        "find_skills",
        "read_skill",
        "skill_manage",
      ]);
      const r = await client.callTool({ name: "read_skill", arguments: { key: "k8s-rollout", view: "summary" } });
      expect(r.isError).toBe(false);
      await client.close();
    } finally {
      child.proc.kill("SIGTERM");
      expect(await child.proc.exited).toBe(0);
    }
  });
});
