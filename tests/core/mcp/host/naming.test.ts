import { describe, expect, test } from "bun:test";
import {
  canonicalJson,
  clampParts,
  identityHash,
  serverIdentity,
  serverSlug,
  toolName,
  utilityName,
} from "../../../../src/core/mcp/client/naming.ts";

// Golden values: the canonical texts are written out by hand and hashed with node:crypto
// independently of lemon's code, so a change to the algorithm shows up here.
describe("identity hash (mcp.md §7.3)", () => {
  test("stdio: env names sorted and deduplicated, absent cwd null, values never hashed", () => {
    const id = serverIdentity("git", "stdio", {
      command: "uvx",
      args: ["mcp-server-git", "--repository", "."],
      env: { GIT_TOKEN: "secret-1" },
      env_vars: ["API_KEY", "GIT_TOKEN"],
    });
    expect(canonicalJson({ kind: "tool", name: "git_status", server: id })).toBe(
      '{"kind":"tool","name":"git_status","server":{"args":["mcp-server-git","--repository","."],"command":"uvx","cwd":null,"env_names":["API_KEY","GIT_TOKEN"],"header_names":null,"name":"git","transport":"stdio","url":null}}',
    );
    expect(identityHash("tool", "git_status", id)).toBe("a679cfb97fa9a047");
    const rotated = serverIdentity("git", "stdio", {
      command: "uvx",
      args: ["mcp-server-git", "--repository", "."],
      env: { GIT_TOKEN: "another-secret" },
      env_vars: ["GIT_TOKEN", "API_KEY"],
    });
    expect(identityHash("tool", "git_status", rotated)).toBe("a679cfb97fa9a047");
    expect(toolName("git", id, "git_status")).toBe("mcp_git_git_status_a679cfb97fa9a047");
  });

  test("http utility: header names lowercased, URL before expansion", () => {
    const id = serverIdentity("api.example", "http", {
      url: "https://${HOST}/mcp",
      headers: { Authorization: "Bearer x", "X-API-Key": "k", authorization: "dup" },
    });
    expect(identityHash("utility", "resources/read", id)).toBe("7618ba1ef4db6f89");
    expect(utilityName(serverSlug(true, "api.example", {}), id, "resources/read")).toBe(
      "mcp_api_example_resource_read_7618ba1ef4db6f89",
    );
  });

  test("unnamed entry: display name hashed, absent args are [], cwd as written", () => {
    const entry = { command: "/usr/bin/srv.exe", cwd: "./sub" };
    const id = serverIdentity("srv#1", "stdio", entry);
    expect(identityHash("tool", "echo", id)).toBe("4301c24d6ae85d8b");
    expect(serverSlug(false, "srv#1", entry)).toBe("srv");
    expect(toolName("srv", id, "echo")).toBe("mcp_srv_echo_4301c24d6ae85d8b");
  });

  test("distinct configurations, raw names and kinds never collide", () => {
    const a = serverIdentity("x", "stdio", { command: "npx", args: ["-y", "a"] });
    const b = serverIdentity("x", "stdio", { command: "npx", args: ["-y", "b"] });
    const names = new Set([
      toolName("x", a, "echo"),
      toolName("x", b, "echo"),
      toolName("x", a, "Echo"),
      toolName("x", a, "e-cho"),
      utilityName("x", a, "prompts/get"),
      toolName("x", a, "prompts/get"),
    ]);
    expect(names.size).toBe(6);
  });
});

describe("slugs and the clamp (mcp.md §7.1, §7.2)", () => {
  test("slugs: NFKD, marks dropped, runs collapsed, fallbacks", () => {
    const id = serverIdentity("Café Ünïcode", "stdio", { command: "x" });
    expect(toolName(serverSlug(true, "Café Ünïcode", {}), id, "Hello, World!!")).toMatch(
      /^mcp_cafe_unicode_hello_world_[0-9a-f]{16}$/,
    );
    expect(toolName(serverSlug(true, "___", {}), id, "日本")).toMatch(/^mcp_server_tool_[0-9a-f]{16}$/);
  });

  test("short parts are unchanged; long ones cut, trailing _ trimmed", () => {
    expect(clampParts("git", "status")).toEqual(["git", "status"]);
    const s = "a".repeat(30);
    const t = "b".repeat(30);
    expect(clampParts(s, t)).toEqual(["a".repeat(16), "b".repeat(26)]);
    expect(clampParts("ab", "c".repeat(60))).toEqual(["ab", "c".repeat(40)]);
    expect(clampParts("s".repeat(60), "tt")).toEqual(["s".repeat(40), "tt"]);
    // the cut lands on an underscore: trimmed
    expect(clampParts(`${"a".repeat(15)}_${"z".repeat(20)}`, "b".repeat(26))).toEqual(["a".repeat(15), "b".repeat(26)]);
    const id = serverIdentity("x", "stdio", { command: "x" });
    const long = toolName("s".repeat(50), id, "t".repeat(50));
    expect(long.length).toBe(64);
    expect(long).toMatch(/^mcp_s{16}_t{26}_[0-9a-f]{16}$/);
  });
});
