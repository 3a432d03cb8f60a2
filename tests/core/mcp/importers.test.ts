import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { truncateSync } from "node:fs";
import { effectiveServers, type EffectiveServer } from "../../../src/core/mcp/index.ts";
import { expandEntry } from "../../../src/core/mcp/expand.ts";
import { sandbox } from "../../support/sandbox.ts";
import { ctxFor, installFixtures } from "./fixtures.ts";

const byName = (servers: EffectiveServer[]) => Object.fromEntries(servers.map((s) => [s.name, s]));
const ENV = {
  SENTRY_TOKEN: "sentry-secret",
  OC_VALUE: "oc-secret",
  FIGMA_OAUTH_TOKEN: "figma-tok",
  FIGMA_API_KEY: "figma-key",
};

describe("imports from the nine tools (project files)", () => {
  test("the merged effective set, sources and enabled state", async () => {
    await using box = await sandbox();
    await installFixtures(box, ["project"]);
    const set = await effectiveServers(ctxFor(box, ENV), {}, "project");
    const summary = set.servers.map((s) => [s.name, s.source, s.type, s.enabled, s.disabled_by]);
    expect(summary).toEqual([
      ["omp-git", "omp:project", "stdio", true, null],
      ["shared", "omp:project", "stdio", true, null],
      ["sentry", "claude:project", "http", true, null],
      ["context7", "codex:project", "stdio", true, null],
      ["local-tool", "codex:project", "stdio", true, null],
      ["figma", "codex:project", "http", false, "entry"],
      ["gemini-http", "gemini:project", "http", true, null],
      ["gemini-sse", "gemini:project", "sse", true, null],
      ["gemini-stdio", "gemini:project", "stdio", true, null],
      ["oc-local", "opencode:project", "stdio", true, null],
      ["oc-remote", "opencode:project", "http", true, null],
      ["cursor-stdio", "cursor:project", "stdio", true, null],
      ["cursor-remote", "cursor:project", "http", true, null],
      ["cursor-off-by-omp", "cursor:project", "stdio", false, "omp disabledServers"],
      ["windsurf-remote", "windsurf:project", "http", true, null],
      ["windsurf-off", "windsurf:project", "stdio", false, "entry"],
      ["fetch", "vscode:project", "stdio", true, null],
      ["github", "vscode:project", "http", true, null],
      ["desktop-fs", "mcp-json:project", "stdio", true, null],
    ]);
    const s = byName(set.servers);
    // "shared" is claimed by omp first; claude and mcp-json lose it.
    expect(s.shared!.shadowed).toEqual([{ source: "claude:project" }, { source: "mcp-json:project" }]);
    // User files are not read without opt-in (and none exist here anyway).
    expect(set.servers.some((x) => x.source.endsWith(":user"))).toBe(false);
    const codes = set.diagnostics.map((d) => [d.code, d.source]);
    expect(codes).toContainEqual(["invalid_entry", "claude:project"]); // "both": command + url
    expect(codes).toContainEqual(["unresolved_input", "vscode:project"]); // Perplexity uses ${input:…}
    expect(set.servers.find((x) => x.name === "both" || x.name === "Perplexity")).toBeUndefined();
    // Diagnostics never echo configured values.
    const text = JSON.stringify(set.diagnostics);
    for (const secret of ["sentry-secret", "npx", "both.example.com", "perplexity-key", "figma"])
      expect(text).not.toContain(secret);
  });

  test("field mapping per provider", async () => {
    await using box = await sandbox();
    await installFixtures(box, ["project"]);
    const set = await effectiveServers(ctxFor(box, ENV), {}, "project");
    const e = (n: string) => byName(set.servers)[n]!.server.entry;
    const srv = (n: string) => byName(set.servers)[n]!.server;
    // omp: numeric-string timeout, glob filters kept apart from exact filters
    expect(e("omp-git").timeout_ms).toBe(30000);
    expect(srv("omp-git").toolGlobs).toEqual({ enabled: ["git_*"], disabled: ["git_push*"] });
    // codex: env_vars, relative command and cwd against the config dir, timeouts, filters, headers
    expect(e("context7")).toMatchObject({
      command: "npx",
      env_vars: ["CONTEXT7_API_KEY"],
      ready_timeout_ms: 20000,
      tool_timeout_ms: 60000,
      allow_tools: ["resolve-library-id", "get-library-docs"],
    });
    expect(e("local-tool").command).toBe(join(box.project, ".codex", "bin", "mcp-local"));
    expect(e("local-tool").cwd).toBe(join(box.project, ".codex", "tools"));
    expect(e("figma").headers).toEqual({
      "X-Figma-Region": "us-east-1",
      "X-Api-Key": "figma-key",
      Authorization: "Bearer figma-tok",
    });
    expect(e("figma").block_tools).toEqual(["delete_file"]);
    expect(srv("context7").vars).toBe("none");
    // gemini: httpUrl → http, url → sse, filters, timeout
    expect(e("gemini-http")).toMatchObject({ type: "http", url: "https://api.example.com/mcp", timeout_ms: 5000 });
    expect(e("gemini-http").trust).toBeUndefined();
    expect(e("gemini-sse")).toMatchObject({ type: "sse", allow_tools: ["search"], block_tools: ["delete"] });
    // opencode: {env:} in a string value becomes ${VAR:-} (masked like ${VAR}, the same value to
    // connect), command array split, deep merge with .opencode/
    expect(e("oc-local")).toMatchObject({
      command: "bun",
      args: ["x", "my-mcp-command"],
      env: { MY_ENV_VAR: "${OC_VALUE:-}" },
    });
    expect(e("oc-remote")).toMatchObject({
      url: "https://mcp.context7.com/mcp",
      timeout_ms: 8000,
      headers: { CONTEXT7_API_KEY: "ctx7-fake-key" },
    });
    // cursor: envFile read relative to C, env wins
    expect(e("cursor-stdio").env).toEqual({ API_KEY: "value-from-env", EXTRA: "1" });
    // windsurf: serverUrl preferred, disabledTools → block_tools
    expect(e("windsurf-remote").url).toBe("https://windsurf.example.com/mcp");
    expect(e("windsurf-off").block_tools).toEqual(["create_issue"]);
    // vscode: servers key, JSONC
    expect(e("github")).toMatchObject({ type: "http", url: "https://api.githubcopilot.com/mcp/" });
    // mcp-json: globs and timeout
    expect(srv("desktop-fs").toolGlobs).toEqual({ enabled: [], disabled: ["write_*"] });
    expect(e("desktop-fs").timeout_ms).toBe(15000);
    // imports ask before a tool call unless the entry says otherwise (mcp.md §4.2)
    expect(byName(set.servers).sentry!.approval).toBe("always");
  });

  test("editor variables expand at connect time; unresolved ones stay literal and are reported", async () => {
    await using box = await sandbox();
    await installFixtures(box, ["project"]);
    const ctx = ctxFor(box, { SENTRY_TOKEN: "tok" });
    const set = await effectiveServers(ctx, {}, "project");
    const s = byName(set.servers);
    const vars = { env: ctx.env, cwd: ctx.cwd, homeDir: ctx.homeDir };
    expect(expandEntry(s["omp-git"]!.server.entry, "editor", vars).entry.args).toEqual([
      "mcp-server-git",
      "--repository",
      box.project,
    ]);
    expect(expandEntry(s.fetch!.server.entry, "editor", vars).entry.cwd).toBe(`${box.project}/tools`);
    expect(expandEntry(s.sentry!.server.entry, "editor", vars).entry.headers).toEqual({ Authorization: "Bearer tok" });
    const gem = expandEntry(s["gemini-stdio"]!.server.entry, "editor", vars).entry;
    expect(gem.env).toEqual({ DATABASE_URL: "sqlite:///local.db" });
    // CURSOR_REMOTE_KEY (${env:…}) and WS_TOKEN are unset: literal + warning, names only.
    expect(s["cursor-remote"]!.warnings).toEqual(["unresolved variable CURSOR_REMOTE_KEY"]);
    expect(s["cursor-remote"]!.server.entry.headers).toEqual({ API_KEY: "${env:CURSOR_REMOTE_KEY}" });
    expect(set.diagnostics.filter((d) => d.code === "unresolved_variable").map((d) => d.key)).toEqual([
      "cursor-remote",
      "windsurf-remote",
    ]);
  });

  test("user files: omp by default, the rest only with external user discovery", async () => {
    await using box = await sandbox();
    await installFixtures(box);
    const off = await effectiveServers(ctxFor(box), {}, "project");
    expect(off.servers.filter((s) => s.source.endsWith(":user")).map((s) => s.name)).toEqual(["omp-user"]);

    const on = await effectiveServers(ctxFor(box, { LEMON_MCP_EXTERNAL_USER_DISCOVERY: "yes" }), {}, "project");
    const user = on.servers.filter((s) => s.source.endsWith(":user")).map((s) => [s.name, s.source]);
    expect(user).toEqual([
      ["omp-user", "omp:user"],
      ["claude-local", "claude:user"],
      ["claude-user", "claude:user"],
      ["codex-user", "codex:user"],
      ["gemini-user", "gemini:user"],
      ["oc-user", "opencode:user"],
      ["cursor-user", "cursor:user"],
      ["windsurf-user", "windsurf:user"],
      ["copilot-user", "vscode:user"],
    ]);
    const s = byName(on.servers);
    // Claude: the project's local scope first, the top-level duplicate is shadowed; other projects ignored.
    expect(s["claude-local"]!.server.entry.args).toEqual(["local.js"]);
    expect(s["claude-local"]!.shadowed).toEqual([{ source: "claude:user" }]);
    expect(s["other-project"]).toBeUndefined();
    expect(s["claude-fallback"]).toBeUndefined();
    expect(s["claude-user"]!.type).toBe("sse");
    // OpenCode: a server defined in a project file is project even when the user file also has it.
    expect(s["oc-remote"]!.source).toBe("opencode:project");
    expect(s["oc-remote"]!.server.entry.headers).toEqual({ "X-User": "1", CONTEXT7_API_KEY: "ctx7-fake-key" });
    expect(s["copilot-user"]!.type).toBe("stdio");
  });

  test("Claude falls back to ~/.claude/mcp.json only when ~/.claude.json is absent; CLAUDE_CONFIG_DIR", async () => {
    await using box = await sandbox();
    await box.write(join(box.home, ".claude", "mcp.json"), JSON.stringify({ mcpServers: { fb: { command: "x" } } }));
    const on = await effectiveServers(ctxFor(box, { LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1" }), {}, "project");
    expect(on.servers.map((s) => [s.name, s.source])).toEqual([["fb", "claude:user"]]);

    const dir = join(box.root, "claude-config");
    await box.write(join(dir, ".claude.json"), JSON.stringify({ mcpServers: { "from-config-dir": { command: "y" } } }));
    // CLAUDE_CONFIG_DIR turns Claude's user files on by itself and moves them.
    const cc = await effectiveServers(ctxFor(box, { CLAUDE_CONFIG_DIR: dir }), {}, "project");
    expect(cc.servers.map((s) => [s.name, s.source])).toEqual([["from-config-dir", "claude:user"]]);
  });

  test("env overrides of other tools' homes: CODEX_HOME, XDG_CONFIG_HOME, COPILOT_HOME", async () => {
    await using box = await sandbox();
    const codexHome = join(box.root, "codex-home");
    const xdg = join(box.root, "xdg");
    const copilot = join(box.root, "copilot");
    await box.write(join(codexHome, "config.toml"), '[mcp_servers.ch]\ncommand = "c"\n');
    await box.write(join(xdg, "opencode", "opencode.jsonc"), '{"mcp": {"xo": {"type": "local", "command": ["o"],},},}');
    await box.write(join(copilot, "mcp-config.json"), '{"mcpServers": {"cp": {"command": "p"}}}');
    const env = {
      LEMON_MCP_EXTERNAL_USER_DISCOVERY: "true",
      CODEX_HOME: codexHome,
      XDG_CONFIG_HOME: xdg,
      COPILOT_HOME: copilot,
    };
    const set = await effectiveServers(ctxFor(box, env), {}, "project");
    expect(set.servers.map((s) => [s.name, s.source])).toEqual([
      ["ch", "codex:user"],
      ["xo", "opencode:user"],
      ["cp", "vscode:user"],
    ]);
  });

  test("VS Code legacy nested mcp.servers, Gemini type override, opencode {file:} on comment lines", async () => {
    await using box = await sandbox();
    await box.write(join(box.project, ".vscode", "mcp.json"), '{"mcp": {"servers": {"legacy": {"command": "l"}}}}');
    await box.write(
      join(box.project, ".gemini", "settings.json"),
      '{"mcpServers": {"g": {"url": "https://g.example/mcp", "type": "http"}}}',
    );
    await box.write(
      join(box.project, "opencode.json"),
      '{\n// "x": "{file:/definitely/missing}"\n"mcp": {"o": {"type": "remote", "url": "https://o.example/mcp", "headers": {"K": "{file:missing.txt}"}}}}',
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    const s = byName(set.servers);
    expect(s.legacy!.source).toBe("vscode:project");
    expect(s.g!.type).toBe("http");
    expect(s.o!.server.entry.headers).toEqual({ K: "" });
  });
});

describe("bad input in provider files", () => {
  test("malformed JSON, JSONC and TOML skip only that file, with a diagnostic naming it", async () => {
    await using box = await sandbox();
    await installFixtures(box, ["project"]);
    await box.write(
      join(box.project, ".codex", "config.toml"),
      '[mcp_servers.broken\ncommand = "x"\napi_key = "toml-secret"\n',
    );
    await box.write(join(box.project, ".cursor", "mcp.json"), '{"mcpServers": {"c": {"command": "cursor-secret"}}');
    await box.write(join(box.project, ".vscode", "mcp.json"), '{ "servers": { /* unterminated');
    const set = await effectiveServers(ctxFor(box, ENV), {}, "project");
    const parse = set.diagnostics.filter((d) => d.code === "parse_error");
    expect(parse.map((d) => [d.source, d.path])).toEqual([
      ["codex:project", join(box.project, ".codex", "config.toml")],
      ["cursor:project", join(box.project, ".cursor", "mcp.json")],
      ["vscode:project", join(box.project, ".vscode", "mcp.json")],
    ]);
    expect(JSON.stringify(parse)).not.toContain("secret");
    const sources = new Set(set.servers.map((s) => s.source));
    expect(sources.has("codex:project") || sources.has("cursor:project") || sources.has("vscode:project")).toBe(false);
    // The other providers still load.
    expect(sources).toEqual(
      new Set([
        "omp:project",
        "claude:project",
        "gemini:project",
        "opencode:project",
        "windsurf:project",
        "mcp-json:project",
      ]),
    );
  });

  test("wrong types, shell strings for argv, invalid names and command+url are skipped without claiming", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({
        mcpServers: {
          "shell-args": { command: "npx", args: "-y some-server --flag" },
          "bad env": { command: "x" },
          "env-types": { command: "x", env: { N: 1 } },
          "not-an-object": "npx some-server",
          both: { command: "x", url: "https://x.example/mcp" },
          ok: { command: "x" },
        },
      }),
    );
    await box.write(
      join(box.project, ".mcp.json"),
      JSON.stringify({ mcpServers: { both: { command: "fallback" }, "shell-args": { command: "y" } } }),
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.servers.map((s) => [s.name, s.source])).toEqual([
      ["ok", "cursor:project"],
      ["both", "mcp-json:project"],
      ["shell-args", "mcp-json:project"],
    ]);
    const msgs = set.diagnostics.map((d) => `${d.path?.replace(box.project, "C")}: ${d.message}`);
    expect(msgs).toEqual([
      "C/.cursor/mcp.json: servers[0] 'shell-args': args must be a list of strings",
      "C/.cursor/mcp.json: servers[1]: name must be 1-64 characters of A-Z, a-z, 0-9, '_', '.', '-' and start with a letter or digit",
      "C/.cursor/mcp.json: servers[2] 'env-types': env must be an object of strings",
      "C/.cursor/mcp.json: servers[3] 'not-an-object': invalid MCP server config",
      "C/.cursor/mcp.json: servers[4] 'both': command and url are mutually exclusive",
    ]);
  });

  test("imported files may hold up to 64 MiB; a bigger one is skipped with a diagnostic naming it", async () => {
    await using box = await sandbox();
    const pad = "x".repeat(2 * 1024 * 1024);
    // A real ~/.claude.json carries project histories of several MiB.
    await box.write(
      join(box.home, ".claude.json"),
      `{"history": "${pad}", "mcpServers": {"big-user": {"command": "c"}}}`,
    );
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      `{"pad": "${pad}", "mcpServers": {"big-project": {"command": "c"}}}`,
    );
    const huge = join(box.project, ".gemini", "settings.json");
    await box.write(huge, "");
    truncateSync(huge, 64 * 1024 * 1024 + 1); // sparse: refused by its size before any read
    const set = await effectiveServers(ctxFor(box, { LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1" }), {}, "project");
    expect(set.servers.map((s) => [s.name, s.source])).toEqual([
      ["big-user", "claude:user"],
      ["big-project", "cursor:project"],
    ]);
    expect(set.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      ["read_error", huge, "file exceeds 67108864 bytes"],
    ]);
  });

  test("lemon's own mcp.json keeps the 1 MiB cap", async () => {
    await using box = await sandbox();
    const file = join(box.project, ".lemon", "mcp.json");
    await box.write(file, `{"pad": "${"x".repeat(1024 * 1024)}", "servers": [{"name": "a", "command": "x"}]}`);
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.servers).toEqual([]);
    expect(set.diagnostics.map((d) => [d.code, d.message])).toEqual([["read_error", "file exceeds 1048576 bytes"]]);
  });
});
