import { describe, expect, test } from "bun:test";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { update } from "../../src/core/fsx/update.ts";
import { mcpJsonCodec } from "../../src/core/mcp/edit.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const projectFile = (box: Sandbox) => join(box.project, ".lemon", "mcp.json");
const read = async (f: string) => JSON.parse(await readFile(f, "utf8")) as Record<string, unknown>;
const SECRET = "sk-very-secret-value";

function noLeaks(text: string) {
  for (const s of [SECRET, "uvx", "mcp-server-git", "api.example.com", "token=", "/srv/git"])
    expect(text).not.toContain(s);
  expect(text).not.toMatch(/[\u0000-\u0008\u001b\u202e]/);
}

describe("lemon mcp add", () => {
  test("stdio with every stdio flag; private file; redacted JSON", async () => {
    await using box = await sandbox();
    const r = await box.cli([
      "mcp",
      "add",
      "git",
      "--stdio",
      "uvx",
      "--env",
      `TOKEN=${SECRET}`,
      "--env",
      "MODE=ro",
      "--env-var",
      "GIT_AUTHOR",
      "--server-cwd",
      "/srv/git",
      "--tool-approval",
      "git_status=never",
      "--allow-tool",
      "git_status",
      "--allow-tool",
      "git_log",
      "--block-tool",
      "git_push",
      "--timeout-ms",
      "20000",
      "--tool-timeout-ms",
      "60000",
      "--ready-timeout-ms",
      "3000",
      "--json",
      "--",
      "mcp-server-git",
      "--repository",
      ".",
    ]);
    expect(r.code).toBe(0);
    noLeaks(r.stdout);
    expect(r.json()).toEqual({
      ok: true,
      action: "added",
      scope: "project",
      file: projectFile(box),
      server: {
        name: "git",
        index: 0,
        type: "stdio",
        enabled: true,
        approval: "always",
        env_count: 2,
        env_var_count: 1,
        header_count: 0,
        tool_approval_count: 1,
        has_oauth: false,
        filters: {
          allow_tools: ["git_status", "git_log"],
          block_tools: ["git_push"],
          allow_resources: [],
          block_resources: [],
          allow_prompts: [],
          block_prompts: [],
        },
        timeouts: { timeout_ms: 20000, tool_timeout_ms: 60000, ready_timeout_ms: 3000 },
      },
    });
    expect((await stat(projectFile(box))).mode & 0o777).toBe(0o600);
    expect(await read(projectFile(box))).toEqual({
      servers: [
        {
          name: "git",
          type: "stdio",
          command: "uvx",
          args: ["mcp-server-git", "--repository", "."],
          env: { TOKEN: SECRET, MODE: "ro" },
          env_vars: ["GIT_AUTHOR"],
          cwd: "/srv/git",
          approval: "always",
          tool_approvals: { git_status: "never" },
          allow_tools: ["git_status", "git_log"],
          block_tools: ["git_push"],
          timeout_ms: 20000,
          tool_timeout_ms: 60000,
          ready_timeout_ms: 3000,
        },
      ],
    });
  });

  test("http/sse with headers and oauth, --global, --disabled, human output and hint", async () => {
    await using box = await sandbox();
    const r = await box.cli([
      "mcp",
      "add",
      "api",
      "--http",
      "https://api.example.com/mcp?token=x",
      "--header",
      `X-Key: ${SECRET}`,
      "--header",
      "X-Team=core",
      "--global",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Added MCP server 'api' to ${join(box.agentDir, "mcp.json")} (http, approval always)\n`);
    expect(r.stderr).toBe("hint: shell history may retain credential arguments\n");
    expect(((await read(join(box.agentDir, "mcp.json"))).servers as unknown[])[0]).toMatchObject({
      headers: { "X-Key": SECRET, "X-Team": "core" },
    });
    const o = await box.cli([
      "mcp",
      "add",
      "oa",
      "--sse",
      "https://sse.example.com/sse",
      "--oauth-client-id",
      "cid",
      "--oauth-client-secret-env",
      "OA_SECRET",
      "--oauth-flow",
      "client_credentials",
      "--oauth-scope",
      "read",
      "--oauth-scope",
      "write",
      "--approval",
      "never",
      "--disabled",
      "--json",
    ]);
    expect(o.code).toBe(0);
    expect(o.json().server).toMatchObject({ type: "sse", has_oauth: true, approval: "never", enabled: false });
    expect(((await read(projectFile(box))).servers as unknown[])[0]).toMatchObject({
      enabled: false,
      oauth: {
        client_id: "cid",
        client_secret_env: "OA_SECRET",
        flow: "client_credentials",
        scopes: ["read", "write"],
      },
    });
  });

  test.each([
    [["mcp", "add", "x"], "exactly one of --stdio, --http or --sse is required"],
    [
      ["mcp", "add", "x", "--stdio", "a", "--http", "https://h.example"],
      "exactly one of --stdio, --http or --sse is required",
    ],
    [
      ["mcp", "add", "x", "--http", "https://h.example", "--env", "A=1"],
      "--env, --env-var and --server-cwd are only valid with --stdio",
    ],
    [
      ["mcp", "add", "x", "--stdio", "a", "--header", "A=1"],
      "--header and --oauth-* are only valid with --http or --sse",
    ],
    [
      ["mcp", "add", "x", "--stdio", "a", "--oauth-client-id", "c"],
      "--header and --oauth-* are only valid with --http or --sse",
    ],
    [["mcp", "add", "x", "--http", "https://h.example", "--", "arg"], "arguments after -- are only valid with --stdio"],
    [["mcp", "add", "x", "--stdio", "a", "--approval", "maybe"], "--approval must be always or never (got 'maybe')"],
    [["mcp", "add", "x", "--stdio", "a", "--env", "NOEQUALS"], "--env expects K=V"],
    [
      ["mcp", "add", "x", "--stdio", "a", "--timeout-ms", "soon"],
      "--timeout-ms must be an integer of at least 1 (got 'soon')",
    ],
    [["mcp", "add", "x", "--stdio", "a", "--timeout-ms", "400000"], "timeout_ms must not exceed 300000"],
    [["mcp", "add", "x", "--http", "ftp://h.example"], "invalid HTTP URL"],
    [
      ["mcp", "add", "bad name", "--stdio", "a"],
      "name must be 1-64 characters of A-Z, a-z, 0-9, '_', '.', '-' and start with a letter or digit",
    ],
    // Before the program: no hint (after it, see "Claude's spelling …" below).
    [["mcp", "add", "x", "--bogus", "--stdio", "a"], "unknown option '--bogus'"],
  ])("usage error %j → exit 2", async (argv, message) => {
    await using box = await sandbox();
    const stop = argv.indexOf("--");
    const r = await box.cli(stop < 0 ? [...argv, "--json"] : [...argv.slice(0, stop), "--json", ...argv.slice(stop)]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.json()).toEqual({ ok: false, error: { code: "INVALID_PARAMS", message } });
  });

  test("existing name is a CONFLICT; --replace keeps omitted credentials of the same transport", async () => {
    await using box = await sandbox();
    await box.write(
      projectFile(box),
      JSON.stringify({
        version: 3,
        "x-top": { keep: true },
        servers: [
          { name: "other", command: "o", "x-ext": 1 },
          {
            name: "api",
            type: "http",
            url: "https://old.example/mcp",
            headers: { Authorization: "Bearer ${API_TOKEN}", "X-A": "1" },
            "x-note": "keep me",
            allow_tools: ["a"],
          },
        ],
      }),
    );
    const c = await box.cli(["mcp", "add", "api", "--http", "https://new.example/mcp"]);
    expect(c.code).toBe(1);
    expect(c.stderr).toBe(`error [CONFLICT]: MCP server 'api' already exists in ${projectFile(box)}; use --replace\n`);
    const r = await box.cli([
      "mcp",
      "add",
      "api",
      "--http",
      "https://new.example/mcp",
      "--header",
      "X-B=2",
      "--replace",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ action: "replaced", server: { name: "api", index: 1, header_count: 3 } });
    const doc = await read(projectFile(box));
    expect(doc).toEqual({
      version: 3,
      "x-top": { keep: true },
      servers: [
        { name: "other", command: "o", "x-ext": 1 },
        {
          name: "api",
          type: "http",
          url: "https://new.example/mcp",
          headers: { Authorization: "Bearer ${API_TOKEN}", "X-A": "1", "X-B": "2" },
          approval: "always",
          "x-note": "keep me",
        },
      ],
    });
    // A different transport drops the old transport's fields.
    await box.cli(["mcp", "add", "api", "--stdio", "node", "--replace", "--", "server.js"]);
    expect(((await read(projectFile(box))).servers as unknown[])[1]).toEqual({
      name: "api",
      type: "stdio",
      command: "node",
      args: ["server.js"],
      approval: "always",
      "x-note": "keep me",
    });
  });

  test("refuses to overwrite an invalid file; another host's lock fails with the owner; a busy file", async () => {
    await using box = await sandbox();
    await box.write(projectFile(box), '{"servers": [ {"name": "x", "command": "' + SECRET);
    const bad = await box.cli(["mcp", "add", "y", "--stdio", "z"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toStartWith(`error [CONFLICT]: refusing to overwrite invalid ${projectFile(box)}: invalid JSON`);
    expect(bad.stderr).not.toContain(SECRET);
    expect(await readFile(projectFile(box), "utf8")).toContain(SECRET);

    await writeFile(projectFile(box), '{"servers": []}');
    await mkdir(`${projectFile(box)}.lock`);
    await writeFile(
      `${projectFile(box)}.lock/owner.json`,
      JSON.stringify({ pid: 999999, host: "other-host", started_at: "2026-01-01T00:00:00Z", command: "mcp add" }),
    );
    const locked = await box.cli(["mcp", "add", "y", "--stdio", "z", "--json"]);
    expect(locked.code).toBe(1);
    expect(locked.json()).toEqual({
      ok: false,
      error: {
        code: "CONFLICT",
        message: `${projectFile(box)} is locked by pid 999999 on other-host since 2026-01-01T00:00:00Z (alive); remove ${projectFile(box)}.lock only if no lemon command is writing`,
      },
    });
    expect(await readFile(projectFile(box), "utf8")).toBe('{"servers": []}');
  }, 15000);

  test("a file changed between read and write is not overwritten", async () => {
    await using box = await sandbox();
    await box.write(projectFile(box), '{"servers": []}');
    const run = update(
      projectFile(box),
      mcpJsonCodec,
      async (doc) => {
        await writeFile(projectFile(box), '{"servers": [{"name": "sneaky", "command": "x"}]}');
        return { next: { ...doc, servers: [{ name: "mine", command: "y" }] }, result: null };
      },
      { confineTo: box.project },
    );
    await expect(run).rejects.toThrow(`${projectFile(box)} changed while it was being updated; retry`);
    expect(await read(projectFile(box))).toEqual({ servers: [{ name: "sneaky", command: "x" }] });
  });
});

describe("lemon mcp list", () => {
  test("file listing (unnamed legacy entries as #index) and --all with sources and notes", async () => {
    await using box = await sandbox();
    await box.write(
      projectFile(box),
      JSON.stringify({
        servers: [
          { name: "git", command: "uvx", args: ["mcp-server-git"], env: { T: SECRET } },
          { command: "/usr/bin/legacy", disabled: true },
        ],
        disabled_servers: ["cur"],
      }),
    );
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { git: { command: "uvx" }, cur: { url: "https://api.example.com/mcp" } } }),
    );
    const human = await box.cli(["mcp", "list"]);
    expect(human.stdout).toBe(
      "NAME  TYPE   ENABLED  APPROVAL  ENV  HEADERS  TOOL-APPROVALS\n" +
        "git   stdio  yes      never     1    0        0\n" +
        "#1    stdio  no       never     0    0        0\n",
    );
    const j = await box.cli(["mcp", "list", "--json"]);
    noLeaks(j.stdout);
    expect(j.json()).toMatchObject({
      ok: true,
      scope: "project",
      file: projectFile(box),
      exists: true,
      enabled: true,
      enabled_servers: [],
      disabled_servers: ["cur"],
    });
    expect((j.json().servers as { name: string | null }[]).map((s) => s.name)).toEqual(["git", null]);

    const all = await box.cli(["mcp", "list", "--all"]);
    expect(all.stdout).toBe(
      "NAME      SOURCE          TYPE   ENABLED  TRUST      NOTE\n" +
        "git       lemon:project   stdio  yes      untrusted  shadows 1\n" +
        "legacy#1  lemon:project   stdio  no       untrusted  disabled by entry\n" +
        "cur       cursor:project  http   no       untrusted  disabled by lemon:project disabled_servers\n",
    );
    const allJson = await box.cli(["mcp", "list", "--all", "--json"]);
    noLeaks(allJson.stdout);
    expect(allJson.json()).toEqual({
      ok: true,
      scope: "project",
      effective: [
        {
          name: "git",
          source: "lemon:project",
          type: "stdio",
          enabled: true,
          disabled_by: null,
          approval: "never",
          shadowed: [{ source: "cursor:project" }],
          warnings: [],
          trust: "untrusted",
        },
        {
          name: "legacy#1",
          source: "lemon:project",
          type: "stdio",
          enabled: false,
          disabled_by: "entry",
          approval: "never",
          shadowed: [],
          warnings: [],
          trust: "untrusted",
        },
        {
          name: "cur",
          source: "cursor:project",
          type: "http",
          enabled: false,
          disabled_by: "lemon:project disabled_servers",
          approval: "always",
          shadowed: [],
          warnings: [],
          trust: "untrusted",
        },
      ],
      diagnostics: [],
    });
    const g = await box.cli(["mcp", "list", "--global", "--json"]);
    expect(g.json()).toMatchObject({ scope: "global", exists: false, servers: [] });
  });
});

describe("lemon mcp enable / disable / remove / status", () => {
  test("enable and disable move a name between the lists; unknown names are NOT_FOUND unless --force", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".gemini", "settings.json"),
      JSON.stringify({ mcpServers: { gem: { httpUrl: "https://g.example/mcp" } } }),
    );
    const d = await box.cli(["mcp", "disable", "gem", "--json"]);
    expect(d.json()).toEqual({
      ok: true,
      name: "gem",
      scope: "project",
      file: projectFile(box),
      enabled: false,
      changed: true,
    });
    expect(await read(projectFile(box))).toEqual({ servers: [], disabled_servers: ["gem"] });
    expect((await box.cli(["mcp", "disable", "gem", "--json"])).json().changed).toBe(false);
    const e = await box.cli(["mcp", "enable", "gem"]);
    expect(e.stdout).toBe(`Enabled MCP server 'gem' (project, updated ${projectFile(box)})\n`);
    expect(await read(projectFile(box))).toEqual({ servers: [], disabled_servers: [], enabled_servers: ["gem"] });
    const nf = await box.cli(["mcp", "disable", "nope"]);
    expect([nf.code, nf.stderr]).toEqual([1, "error [NOT_FOUND]: MCP server 'nope' not found\n"]);
    const forced = await box.cli(["mcp", "disable", "nope", "--force", "--global", "--json"]);
    expect(forced.json()).toMatchObject({ scope: "global", file: join(box.agentDir, "mcp.json"), changed: true });
    const bad = await box.cli(["mcp", "enable", "no/pe", "--json"]);
    expect(bad.code).toBe(2);
  });

  test("remove: the selected file only; ambiguous names are a CONFLICT", async () => {
    await using box = await sandbox();
    await box.write(
      projectFile(box),
      JSON.stringify({
        servers: [
          { name: "a", command: "x" },
          { name: "b", command: "y" },
        ],
        mcpServers: { b: { command: "z" } },
        note: 1,
      }),
    );
    const r = await box.cli(["mcp", "remove", "a", "--json"]);
    expect(r.json()).toEqual({ ok: true, name: "a", scope: "project", file: projectFile(box), removed: true });
    expect(await read(projectFile(box))).toEqual({
      servers: [{ name: "b", command: "y" }],
      mcpServers: { b: { command: "z" } },
      note: 1,
    });
    const amb = await box.cli(["mcp", "remove", "b"]);
    expect([amb.code, amb.stderr]).toEqual([
      1,
      `error [CONFLICT]: ambiguous server name 'b' appears 2 times in ${projectFile(box)}\n`,
    ]);
    const amb2 = await box.cli(["mcp", "disable", "b"]);
    expect(amb2.code).toBe(1);
    const nf = await box.cli(["mcp", "remove", "a", "--global"]);
    expect([nf.code, nf.stderr]).toEqual([
      1,
      `error [NOT_FOUND]: MCP server 'a' not found in ${join(box.agentDir, "mcp.json")}\n`,
    ]);
    expect((await box.cli(["mcp", "remove"])).code).toBe(2);
  });

  test("status of an untrusted project server: listed as untrusted, never contacted", async () => {
    await using box = await sandbox();
    await box.write(projectFile(box), JSON.stringify({ servers: [{ name: "a", url: "https://api.example.com/mcp" }] }));
    const h = await box.cli(["mcp", "status"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/^a +untrusted +0 +0 +0/m);
    const j = await box.cli(["mcp", "status", "--json"]);
    const doc = JSON.parse(j.stdout) as { ok: boolean; servers: Record<string, Record<string, unknown>> };
    expect(doc.ok).toBe(true);
    expect(doc.servers.a).toMatchObject({ state: "untrusted", connected: false, last_error: null });
    expect(j.stdout).not.toContain("api.example.com");
  });
});

describe("lemon mcp get / add-json (cli.md §3.2)", () => {
  test("add-json writes lemon's or Claude Code's shape; get shows any source, redacted", async () => {
    await using box = await sandbox();
    const add = await box.cli([
      "mcp",
      "add-json",
      "git",
      JSON.stringify({ type: "stdio", command: "uvx", args: ["mcp-server-git"], env: { K: SECRET } }),
    ]);
    expect([add.code, add.stdout]).toEqual([
      0,
      `Added MCP server 'git' to ${projectFile(box)} (stdio, approval always)\n`,
    ]);
    expect(add.stderr).toBe("hint: shell history may retain credential arguments\n");
    await box.write(
      join(box.project, ".mcp.json"),
      JSON.stringify({
        mcpServers: { api: { type: "http", url: "https://u:p@h.example/mcp?k=1", headers: { Authorization: SECRET } } },
      }),
    );
    const get = await box.cli(["mcp", "get", "api"]);
    expect(get.code).toBe(0);
    // get shows what runs (command, URL) but never a value: env, headers, userinfo, query.
    for (const leak of [SECRET, "u:p", "k=1"]) expect(get.stdout + get.stderr).not.toContain(leak);
    expect(get.stdout).toContain("api   mcp-json:project  http  yes");
    expect(get.stdout).toMatch(/^ {2}url +https:\/\/h\.example\/mcp$/m);
    expect(get.stdout).toMatch(/^ {2}headers +Authorization$/m);
    const j = await box.cli(["mcp", "get", "git", "--json"]);
    expect(j.stdout).not.toContain(SECRET);
    expect(j.json()).toMatchObject({
      ok: true,
      server: { name: "git", source: "lemon:project", command: "uvx", args: ["mcp-server-git"], env_names: ["K"] },
    });
    expect((await box.cli(["mcp", "get", "nope"])).code).toBe(1);
    const bad = await box.cli(["mcp", "add-json", "x", "not json"]);
    expect(bad.code).toBe(2);
    expect((await box.cli(["mcp", "add-json", "git", '{"command":"uvx"}'])).code).toBe(1);
    expect((await box.cli(["mcp", "add-json", "git", '{"command":"uvx"}', "--replace"])).code).toBe(0);
  });
});

describe("lemon mcp add: messages for common mistakes", () => {
  test("Claude's spelling with a dash argument hints at --", async () => {
    await using box = await sandbox();
    const r = await box.cli(["mcp", "add", "x", "npx", "-y", "pkg"]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toBe(
      "error [INVALID_PARAMS]: unknown option '-y'\nhint: pass arguments after --: lemon mcp add NAME -- npx -y pkg\n",
    );
    const s = await box.cli(["mcp", "add", "x", "--stdio", "npx", "-y", "pkg"]);
    expect(s.stderr).toBe(
      "error [INVALID_PARAMS]: unknown option '-y'\nhint: pass arguments after --: lemon mcp add NAME --stdio npx -- -y pkg\n",
    );
    // A flag value is no command: `-e K=V -y` has only NAME before the unknown option.
    const plain = await box.cli(["mcp", "add", "x", "-e", "K=V", "--bogus"]);
    expect(plain.stderr).not.toContain("pass arguments after --");
    expect(plain.code).toBe(2);
    const ok = await box.cli(["mcp", "add", "x", "--json", "--", "npx", "-y", "pkg"]);
    expect(ok.code).toBe(0);
  });

  test("a .lemon that is a file: one clear CONFLICT line, nothing written", async () => {
    await using box = await sandbox();
    await box.write(join(box.project, ".lemon"), "not a dir\n");
    const r = await box.cli(["mcp", "add", "x", "--stdio", "y"]);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toBe(`error [CONFLICT]: ${join(box.project, ".lemon")} is not a directory\n`);
    expect(await readFile(join(box.project, ".lemon"), "utf8")).toBe("not a dir\n");
    const j = await box.cli(["mcp", "disable", "x", "--force", "--json"]);
    expect(JSON.parse(j.stderr).error).toEqual({
      code: "CONFLICT",
      message: `${join(box.project, ".lemon")} is not a directory`,
    });
  });
});

describe("lemon mcp diagnostics on stderr", () => {
  test("the path is printed once, before the message (cli.md §1.2)", async () => {
    await using box = await sandbox();
    await box.write(projectFile(box), '{"servers": [], "servers": []}');
    const cursor = await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { "bad name": { command: "x" } } }),
    );
    const l = await box.cli(["mcp", "list"]);
    expect(l.stderr.split("\n")[0]).toBe(`error: ${projectFile(box)}: duplicate key 'servers'`);
    const a = await box.cli(["mcp", "list", "--all"]);
    expect(a.stderr.split("\n").slice(0, 2)).toEqual([
      `error: ${projectFile(box)}: duplicate key 'servers'`,
      `warn: ${cursor}: servers[0]: name must be 1-64 characters of A-Z, a-z, 0-9, '_', '.', '-' and start with a letter or digit`,
    ]);
  });
});

describe("lemon mcp get: diagnostics of the server's file", () => {
  test("a refused {file:…} is reported on stderr and in --json", async () => {
    await using box = await sandbox();
    const secret = await box.write(join(box.root, "outside", "token"), `${SECRET}\n`);
    const oc = await box.write(
      join(box.project, "opencode.jsonc"),
      JSON.stringify({ mcp: { leak: { type: "remote", url: `https://h.example/{file:${secret}}` } } }),
    );
    const g = await box.cli(["mcp", "get", "leak"]);
    expect(g.code).toBe(0);
    expect(g.stdout + g.stderr).not.toContain(SECRET);
    expect(g.stderr).toBe(`warn: ${oc}: included file outside the project directory, not read\n`);
    const j = await box.cli(["mcp", "get", "leak", "--json"]);
    expect((j.json().server as { diagnostics: unknown[] }).diagnostics).toEqual([
      {
        level: "warn",
        code: "file_reference",
        message: "included file outside the project directory, not read",
        path: oc,
        source: "opencode:project",
      },
    ]);
  });
});
