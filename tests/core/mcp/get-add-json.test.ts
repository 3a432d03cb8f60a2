// Core support of `lemon mcp get NAME` and `lemon mcp add-json NAME '<json>'` (cli.md §3.2).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { mcpConfig } from "../../../src/core/mcp/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const api = (box: Sandbox, env: Record<string, string> = {}) =>
  mcpConfig({ cwd: box.project, env: { ...box.env, ...env } });
const SECRET = "sk-live-abcdefghijklmnopqrstuvwxyz123456";

describe("mcp get", () => {
  test("one effective server of any source, as list --all shows it, plus its redacted fields", async () => {
    await using box = await sandbox();
    const lemonFile = join(box.project, ".lemon", "mcp.json");
    await box.write(
      lemonFile,
      JSON.stringify({
        servers: [
          {
            name: "git",
            command: "uvx",
            args: ["mcp-server-git", "--token", SECRET, `--key=${SECRET}`, "--repository", "${workspaceFolder}"],
            env: { GIT_TOKEN: SECRET, A: "1" },
            env_vars: ["HOME"],
            cwd: "tools",
            approval: "always",
          },
        ],
      }),
    );
    const cursor = join(box.project, ".cursor", "mcp.json");
    await box.write(
      cursor,
      JSON.stringify({
        mcpServers: {
          git: { command: "shadowed" },
          web: {
            url: `https://user:${SECRET}@mcp.example.com/mcp?key=${SECRET}#frag`,
            headers: { Authorization: `Bearer ${SECRET}`, "X-Team": "core" },
          },
          tpl: { url: "https://${env:HOST}/mcp?token=${env:T}" },
        },
      }),
    );
    const a = api(box);
    const git = await a.get("git");
    expect(git).toEqual({
      name: "git",
      source: "lemon:project",
      file: lemonFile,
      type: "stdio",
      enabled: true,
      disabled_by: null,
      approval: "always",
      shadowed: [{ source: "cursor:project" }],
      // lemon files know ${VAR} only; the placeholder stays as written and is reported by name.
      warnings: ["unresolved variable workspaceFolder"],
      command: "uvx",
      // A token keeps its kind (prefix); the value after a secret-named flag goes whole.
      args: ["mcp-server-git", "--token", "****", "--key=sk-live-****", "--repository", "${workspaceFolder}"],
      cwd: "tools",
      url: null,
      env_names: ["A", "GIT_TOKEN", "HOME"],
      header_names: [],
      trust: "untrusted",
      trust_reason: "not trusted; review it and run 'lemon mcp trust git'",
      diagnostics: [],
    });
    const web = await a.get("web");
    expect(web).toMatchObject({
      source: "cursor:project",
      type: "http",
      command: null,
      args: null,
      url: "https://mcp.example.com/mcp",
    });
    expect(web.header_names).toEqual(["Authorization", "X-Team"]);
    expect((await a.get("tpl")).url).toBe("https://${env:HOST}/mcp");
    expect(JSON.stringify([git, web])).not.toContain(SECRET);
    // It matches the list --all view of the same server.
    const listed = (await a.list({ all: true })).effective.find((s) => s.name === "web")!;
    const { name, source, type, enabled, disabled_by, approval, shadowed, warnings, trust } = web;
    // get says "trusted" for the user's own sources where list says null; a project server agrees.
    expect({ name, source, type, enabled, disabled_by, approval, shadowed, warnings, trust }).toEqual({
      ...listed,
      trust: "untrusted",
    });
  });

  test("global scope, user sources are trusted, unnamed entries by display name, NOT_FOUND and bad names", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.agentDir, "mcp.json"),
      JSON.stringify({
        servers: [{ name: "g", url: "https://g.example/sse", type: "sse" }, { command: "/usr/bin/legacy-tool" }],
      }),
    );
    await box.write(
      join(box.project, ".lemon", "mcp.json"),
      JSON.stringify({ servers: [{ name: "p", command: "x" }] }),
    );
    const a = api(box);
    expect(await a.get("g", { global: true })).toMatchObject({
      source: "lemon:global",
      type: "sse",
      trust: "trusted",
      trust_reason: null,
    });
    expect(await a.get("legacy_tool#1")).toMatchObject({
      source: "lemon:global",
      command: "/usr/bin/legacy-tool",
      args: [],
    });
    await expect(a.get("p", { global: true })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "MCP server 'p' not found",
    });
    await expect(a.get("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(a.get("bad name\n")).rejects.toMatchObject({ code: "INVALID_PARAMS" });
  });
});

describe("mcp add-json", () => {
  test("lemon's shape: validated and written as add writes it", async () => {
    await using box = await sandbox();
    const a = api(box);
    const r = await a.addJson(
      "git",
      '{"type": "stdio", "command": "uvx", "args": ["mcp-server-git"], "tool-approvals": {"git_status": "never"}}',
    );
    expect(r).toMatchObject({ action: "added", scope: "project", file: join(box.project, ".lemon", "mcp.json") });
    expect(r.server).toMatchObject({ name: "git", type: "stdio", approval: "always", tool_approval_count: 1 });
    expect(JSON.parse(readFileSync(r.file, "utf8")).servers).toEqual([
      {
        name: "git",
        type: "stdio",
        command: "uvx",
        args: ["mcp-server-git"],
        approval: "always",
        tool_approvals: { git_status: "never" },
      },
    ]);
    await expect(a.addJson("git", '{"command": "other"}')).rejects.toMatchObject({
      code: "CONFLICT",
      message: `MCP server 'git' already exists in ${r.file}; use --replace`,
    });
    const replaced = await a.addJson("git", '{"command": "other", "approval": "never"}', { replace: true });
    expect(replaced).toMatchObject({ action: "replaced", server: { approval: "never" } });
  });

  test("Claude Code's shape: streamable-http type, headers, oauth clientId/callbackPort; --global", async () => {
    await using box = await sandbox();
    const a = api(box);
    const json = JSON.stringify({
      type: "streamable-http",
      url: "https://mcp.example.com/mcp",
      headers: { "X-Team": "core" },
      oauth: { clientId: "abc", callbackPort: 8765 },
    });
    const r = await a.addJson("remote", json, { global: true });
    expect(r).toMatchObject({
      scope: "global",
      file: join(box.agentDir, "mcp.json"),
      server: { type: "http", has_oauth: true },
    });
    expect(JSON.parse(readFileSync(r.file, "utf8")).servers[0]).toEqual({
      name: "remote",
      type: "http",
      url: "https://mcp.example.com/mcp",
      headers: { "X-Team": "core" },
      oauth: { client_id: "abc", redirect_uri: "http://127.0.0.1:8765/callback" },
      approval: "always",
    });
  });

  test("bad input: INVALID_PARAMS naming the problem, never the content; nothing written", async () => {
    await using box = await sandbox();
    const a = api(box);
    const cases: [string, string, string][] = [
      ["x", `{"command": "a", "command": "${SECRET}"}`, "invalid JSON entry: duplicate key 'command'"],
      ["x", `{"command": "${SECRET}"`, "invalid JSON entry: invalid JSON"],
      ["x", `["${SECRET}"]`, "the JSON entry must be an object"],
      ["x", '{"name": "y", "command": "a"}', "the JSON entry's name must be NAME when given"],
      [
        "bad name",
        '{"command": "a"}',
        "name must be 1-64 characters of A-Z, a-z, 0-9, '_', '.', '-' and start with a letter or digit",
      ],
      [
        "x",
        '{"url": "https://h.example/mcp", "headers": {"a\\r\\nX-Injected": "1"}}',
        "header names must be RFC 9110 tokens",
      ],
      ["x", '{"command": "a", "timeout_ms": 900000}', "timeout_ms must not exceed 300000"],
      ["x", '{"type": "websocket", "url": "wss://h.example"}', "type must be stdio, http, or sse"],
    ];
    for (const [name, json, message] of cases) {
      const err = await a.addJson(name, json).then(
        () => null,
        (e: unknown) => e as { code: string; message: string },
      );
      expect([json, err?.code, err?.message.startsWith(message)]).toEqual([json, "INVALID_PARAMS", true]);
      expect(err?.message).not.toContain(SECRET);
    }
    expect(existsSync(join(box.project, ".lemon"))).toBe(false);
  });
});
