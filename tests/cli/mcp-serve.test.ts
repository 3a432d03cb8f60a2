// `lemon mcp serve` from the source, as a real child process (cli.md §3.8): the SDK's own stdio
// and Streamable HTTP clients, mcp-remote as a second independent client over HTTP, stdout
// carrying the protocol only, and a clean exit 0 on stdin EOF, SIGINT and SIGTERM.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { parseListen } from "../../src/cli/commands/mcp/serve.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";
import { NEVER, serveFixture } from "../core/mcp/serve/fixture.ts";
import { childEnv, httpChild, httpClient, lemonCmd, stdioClient, type HttpChild } from "./mcp-serve-support.ts";

const REPO = join(import.meta.dir, "../..");
const MCP_REMOTE = join(REPO, "node_modules/mcp-remote/dist/proxy.js");

let box: Sandbox;

beforeAll(async () => {
  box = await sandbox();
  await serveFixture(box);
});

afterAll(async () => {
  await box?.[Symbol.asyncDispose]();
});

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** A raw child on stdio: JSON-RPC lines in, stdout and the exit code out. */
function rawStdio(args: string[] = []) {
  return Bun.spawn([...lemonCmd(), "mcp", "serve", ...args], {
    cwd: box.project,
    env: childEnv(box),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function readUntil(stream: ReadableStream<Uint8Array>, done: (text: string) => boolean): Promise<string> {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let text = "";
  while (!done(text)) {
    const r = await reader.read();
    if (r.done) break;
    text += dec.decode(r.value);
  }
  reader.releaseLock();
  return text;
}

describe("stdio", () => {
  test("the SDK client: tools, a find_skills round trip, resources, prompts; --tools sets readiness", async () => {
    const { client, stderr } = await stdioClient(box, ["--tools", "editor"]);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["find_skills", "read_skill"]);
      const r = await client.callTool({ name: "find_skills", arguments: { query: "kubernetes rollout" } });
      expect((r.structuredContent as { skills: { key: string }[] }).skills.map((s) => s.key)).toEqual(["k8s-rollout"]);
      const names = (await client.listResources()).resources.map((x) => x.name);
      for (const k of NEVER) expect(names).not.toContain(k);
      const listing = await client.getPrompt({ name: "skills_listing" });
      expect((listing.messages[0]!.content as { text: string }).text).toContain(
        '<skill key="browser-thing" state="not_ready">',
      );
    } finally {
      await client.close();
    }
    expect(stderr()).toContain("lemon mcp serve: serving over stdio");
  });

  test("resources/list_changed reaches a stdio client when a skill appears", async () => {
    const { client } = await stdioClient(box);
    const dir = join(box.agentDir, "skill", "stdio-notice");
    try {
      let seen = false;
      client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
        seen = true;
      });
      // A first listing after the handshake arms the watcher.
      await client.listResources();
      await Bun.sleep(50);
      await box.skill(join(box.agentDir, "skill"), "stdio-notice", {
        name: "stdio-notice",
        description: "Use this to check notifications over stdio.",
      });
      while (!seen) await Bun.sleep(20);
      expect((await client.listResources()).resources.map((r) => r.name)).toContain("stdio-notice");
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await client.close();
    }
  });

  test("stdout carries JSON-RPC only, and stdin EOF ends the server with exit 0", async () => {
    const proc = rawStdio();
    proc.stdin.write(`${JSON.stringify(INIT)}\n`);
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "resources/list" })}\n`);
    await proc.stdin.flush();
    const out = await readUntil(proc.stdout, (t) => t.split("\n").filter(Boolean).length >= 3);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    const lines = out.split("\n").filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as { jsonrpc: string; id: number }).id)).toEqual([1, 2, 3]);
    expect(lines.every((l) => (JSON.parse(l) as { jsonrpc: string }).jsonrpc === "2.0")).toBe(true);
    expect(await readUntil(proc.stdout, () => false)).toBe("");
  });

  test("stdin EOF right after the last request: every request already read is answered, then exit 0", async () => {
    const proc = rawStdio();
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    const lines = [
      JSON.stringify(INIT),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/list" }),
      call(3, "read_skill", { key: "k8s-rollout", view: "summary" }),
      call(4, "find_skills", { query: "roll out kubernetes" }),
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "prompts/get", params: { name: "skills_listing" } }),
    ];
    proc.stdin.write(`${lines.join("\n")}\n`);
    proc.stdin.end();
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    const ids = out
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: number }).id)
      .sort();
    expect(ids).toEqual([1, 2, 3, 4, 5]);
  });

  test("a line longer than 8 MiB is dropped as it arrives and answered; the session goes on; exit 0", async () => {
    const proc = rawStdio();
    proc.stdin.write(`${JSON.stringify(INIT)}\n`);
    const chunk = "x".repeat(1024 * 1024);
    for (let i = 0; i < 10; i++) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    }
    proc.stdin.write(`\n${JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" })}\n`);
    await proc.stdin.end();
    const out = (await new Response(proc.stdout).text()).split("\n").filter(Boolean);
    expect(out.map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } })).toContainEqual(
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) }),
    );
    expect(out.some((l) => l.includes('"id":5') && l.includes('"result"'))).toBe(true);
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stderr).text()).toContain("dropped a message of 10485760 bytes");
  });

  for (const signal of ["SIGINT", "SIGTERM"] as const)
    test(`${signal} ends the server with exit 0`, async () => {
      const proc = rawStdio();
      proc.stdin.write(`${JSON.stringify(INIT)}\n`);
      await proc.stdin.flush();
      await readUntil(proc.stdout, (t) => t.includes("\n"));
      proc.kill(signal);
      expect(await proc.exited).toBe(0);
    });
});

describe("Streamable HTTP", () => {
  let child: HttpChild;
  beforeAll(async () => {
    child = await httpChild(box);
  });
  afterAll(async () => {
    child?.proc.kill("SIGTERM");
    await child?.proc.exited;
  });

  test("binds 127.0.0.1 and prints a fresh bearer token on stderr", async () => {
    expect(child.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(child.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test("the SDK client with the token; without it 401", async () => {
    const client = await httpClient(child.url, child.token!);
    try {
      const r = await client.callTool({ name: "read_skill", arguments: { key: "k8s-rollout", view: "summary" } });
      expect(r.isError).toBe(false);
    } finally {
      await client.close();
    }
    const bare = await fetch(child.url, { method: "POST", body: "{}" });
    expect(bare.status).toBe(401);
  });

  test.skipIf(!existsSync(MCP_REMOTE))("mcp-remote 0.15.1 bridges a stdio client to it", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_REMOTE, child.url, "--header", `Authorization:Bearer ${child.token}`, "--transport", "http-only"],
      cwd: box.project,
      env: childEnv(box, { MCP_REMOTE_CONFIG_DIR: join(box.home, ".mcp-auth") }),
      stderr: "pipe",
    });
    const client = new Client({ name: "via-mcp-remote", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["find_skills", "read_skill"]);
      const r = await client.callTool({ name: "find_skills", arguments: { query: "postgres migrations" } });
      expect((r.structuredContent as { skills: { key: string }[] }).skills.map((s) => s.key)).toEqual(["pg-migrate"]);
      const res = await client.readResource({ uri: "skill://pg-migrate" });
      expect((res.contents[0] as { text: string }).text).toContain("pg-migrate");
    } finally {
      await client.close();
    }
  });

  test("LEMON_SERVE_TOKEN is used and never printed; SIGINT exits 0 with nothing on stdout", async () => {
    const token = "from-the-environment-0123";
    const c = await httpChild(box, ["--global-only"], { env: { LEMON_SERVE_TOKEN: token } });
    try {
      expect(c.token).toBeNull();
      expect(c.stderr()).not.toContain(token);
      const client = await httpClient(c.url, token);
      const names = (await client.listResources()).resources.map((r) => r.name);
      expect(names).not.toContain("pg-migrate");
      expect(names).toContain("k8s-rollout");
      await client.close();
    } finally {
      c.proc.kill("SIGINT");
      expect(await c.proc.exited).toBe(0);
      expect(await new Response(c.proc.stdout).text()).toBe("");
    }
  });
});

describe("arguments", () => {
  test("--http takes [HOST:]PORT", () => {
    expect(parseListen("8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(parseListen("0.0.0.0:9")).toEqual({ host: "0.0.0.0", port: 9 });
    expect(parseListen("[::1]:0")).toEqual({ host: "::1", port: 0 });
    for (const bad of ["", "x", "host:", "70000", "a:b:1"]) expect(() => parseListen(bad)).toThrow("--http");
  });

  test("a bad --http value is INVALID_PARAMS, exit 2, before anything listens", async () => {
    const r = await box.cli(["mcp", "serve", "--http", "nope"]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toContain("--http: expected [HOST:]PORT");
  });
});
