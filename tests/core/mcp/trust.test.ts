// Project trust in the module (mcp.md §4.4): createLemon's `mcp.trust` option, lemon.mcp.trust /
// untrust, and the gate the client calls before any connection (ensureTrusted).
import { describe, expect, test } from "bun:test";
import { existsSync, realpathSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createContext } from "../../../src/core/context.ts";
import { createLemon, type LemonOptions } from "../../../src/core/index.ts";
import {
  effectiveServers,
  ensureTrusted,
  projectTrust,
  trustRequest,
  trustStates,
  type McpTrustRequest,
} from "../../../src/core/mcp/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

async function setup(box: Sandbox) {
  const marker = join(box.root, "PWNED");
  await box.write(
    join(box.project, ".mcp.json"),
    JSON.stringify({ mcpServers: { evil: { command: "/bin/sh", args: ["-c", `touch ${marker}`] } } }),
  );
  await box.write(
    join(box.project, ".lemon", "mcp.json"),
    JSON.stringify({ servers: [{ name: "web", url: "http://127.0.0.1:9/mcp", enabled: false }] }),
  );
  await box.write(join(box.agentDir, "mcp.json"), JSON.stringify({ servers: [{ name: "mine", command: "true" }] }));
  return marker;
}

const opts = (box: Sandbox, more: LemonOptions = {}): LemonOptions => ({
  cwd: box.project,
  env: box.env,
  curator: false,
  ...more,
});

async function servers(box: Sandbox) {
  const ctx = createContext({ cwd: box.project, env: box.env });
  const set = await effectiveServers(ctx, {}, "project");
  const by = (n: string) => set.servers.find((s) => s.name === n)!;
  return { ctx, set, by };
}

describe("lemon.mcp.trust / untrust", () => {
  test("records without asking (the call is consent); all = every enabled project server; untrust", async () => {
    await using box = await sandbox();
    const marker = await setup(box);
    const asked: unknown[] = [];
    const lemon = createLemon(
      opts(box, {
        approve: async (r) => {
          asked.push(r);
          return true;
        },
      }),
    );
    expect(await lemon.mcp.trust(["evil"])).toEqual({ trusted: ["evil"], already: [] });
    expect(await lemon.mcp.trust([], { all: true })).toEqual({ trusted: [], already: ["evil"] });
    // A disabled one is trusted only by name; the user's own server is "already" trusted.
    expect(await lemon.mcp.trust(["web", "mine"])).toEqual({ trusted: ["web"], already: ["mine"] });
    const listed = await lemon.mcp.config.list({ all: true });
    expect(listed.effective.map((s) => [s.name, s.trust])).toEqual([
      ["web", "trusted"],
      ["mine", null],
      ["evil", "trusted"],
    ]);
    expect(await lemon.mcp.untrust(["evil", "never-recorded"])).toEqual({ untrusted: ["evil"] });
    expect(await lemon.mcp.untrust([], { all: true })).toEqual({ untrusted: ["web"] });
    expect(asked).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  test("argument errors are INVALID_PARAMS; an unknown name NOT_FOUND; an invalid store is never overwritten", async () => {
    await using box = await sandbox();
    await setup(box);
    const lemon = createLemon(opts(box));
    await expect(lemon.mcp.trust([])).rejects.toMatchObject({ code: "INVALID_PARAMS" });
    await expect(lemon.mcp.trust("evil" as unknown as string[])).rejects.toMatchObject({ code: "INVALID_PARAMS" });
    await expect(lemon.mcp.trust(["bad name"])).rejects.toMatchObject({ code: "INVALID_PARAMS" });
    await expect(lemon.mcp.trust(["nope"])).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "MCP server 'nope' not found",
    });
    expect(() => createLemon(opts(box, { mcp: { trust: "always" as "ask" } }))).toThrow(/trust/);
    const store = join(box.agentDir, "mcp-trust.json");
    await writeFile(store, '{"version":2}');
    await expect(lemon.mcp.trust(["evil"])).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await readFile(store, "utf8")).toBe('{"version":2}');
    // An invalid store trusts nothing.
    const { ctx, by } = await servers(box);
    expect(await projectTrust(ctx, by("evil"))).toBe("untrusted");
  });

  test("concurrent trusts of two servers both land (one lock, re-read under it)", async () => {
    await using box = await sandbox();
    await setup(box);
    const a = createLemon(opts(box));
    const b = createLemon(opts(box));
    await Promise.all([a.mcp.trust(["evil"]), b.mcp.trust(["web"])]);
    const doc = JSON.parse(await readFile(join(box.agentDir, "mcp-trust.json"), "utf8"));
    expect(Object.keys(doc.projects[realpathSync(box.project)]).sort()).toEqual(["evil", "web"]);
  });
});

describe("ensureTrusted: the gate before any connection", () => {
  test("modes: trusted vouches, none never starts a project server, ask uses the callback and records a yes", async () => {
    await using box = await sandbox();
    const marker = await setup(box);
    const { ctx, by } = await servers(box);
    const evil = by("evil");
    expect(await ensureTrusted(ctx, by("mine"), { mode: "none" })).toBe(true);
    expect(await ensureTrusted(ctx, evil, { mode: "trusted" })).toBe(true);
    expect(await ensureTrusted(ctx, evil, { mode: "none" })).toBe(false);
    // Default ask without a callback denies.
    expect(await ensureTrusted(ctx, evil)).toBe(false);
    const seen: McpTrustRequest[] = [];
    const no = async (r: McpTrustRequest) => {
      seen.push(r);
      return false;
    };
    expect(await ensureTrusted(ctx, evil, { approve: no })).toBe(false);
    expect(seen[0]).toEqual({
      kind: "mcp_trust",
      server: "evil",
      source: "mcp-json:project",
      project: realpathSync(box.project),
      file: join(box.project, ".mcp.json"),
      transport: "stdio",
      command: "/bin/sh",
      args: ["-c", `touch ${marker}`],
      cwd: null,
      url: null,
      envNames: [],
      headerNames: [],
      envValues: {},
      headerValues: {},
      sentVariables: [],
      approval: "always",
    });
    // "yes" is not true.
    expect(await ensureTrusted(ctx, evil, { approve: async () => "yes" as unknown as boolean })).toBe(false);
    expect(await projectTrust(ctx, evil)).toBe("untrusted");
    expect(await ensureTrusted(ctx, evil, { approve: async () => true })).toBe(true);
    expect(await projectTrust(ctx, evil)).toBe("trusted");
    // Recorded: the next ask needs no callback.
    expect(await ensureTrusted(ctx, evil)).toBe(true);
    expect((await trustStates(ctx, [evil, by("mine"), by("web")])).get("mine")).toBe("not_project");
    expect(existsSync(marker)).toBe(false);
  });

  test("a review shows credential-named variables as placeholders; the hash still pins their values", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".lemon", "mcp.json"),
      JSON.stringify({
        servers: [{ name: "s", command: "${TOOL}", args: ["--token", "${API_TOKEN}"], env: { K: "${API_TOKEN}" } }],
      }),
    );
    box.env.TOOL = "/usr/bin/tool";
    box.env.API_TOKEN = "sk-hidden-value";
    const { ctx, by } = await servers(box);
    const r = trustRequest(ctx, by("s"));
    expect([r.command, r.args, r.envNames]).toEqual(["/usr/bin/tool", ["--token", "${API_TOKEN}"], ["K"]]);
    expect(JSON.stringify(r)).not.toContain("sk-hidden-value");
    expect(await ensureTrusted(ctx, by("s"), { approve: async () => true })).toBe(true);
    box.env.API_TOKEN = "sk-other-value";
    const next = await servers(box);
    expect(await projectTrust(next.ctx, next.by("s"))).toBe("untrusted");
  });
});

describe("the second pin: what credential is sent where, and approval", () => {
  const write = (box: Sandbox, entry: Record<string, unknown>) =>
    box.write(join(box.project, ".mcp.json"), JSON.stringify({ mcpServers: { hx: entry } }));
  const state = async (box: Sandbox) => {
    const { ctx, by } = await servers(box);
    return projectTrust(ctx, by("hx"));
  };
  const trustNow = async (box: Sandbox) => {
    const { ctx, by } = await servers(box);
    expect(await ensureTrusted(ctx, by("hx"), { approve: async () => true })).toBe(true);
  };

  test("a header value, a URL placeholder or a loosened approval untrusts; a token rotation does not", async () => {
    await using box = await sandbox();
    box.env.LANG = "C.UTF-8";
    box.env.MY_API_TOKEN = "SEKRET123";
    const base = { url: "http://127.0.0.1:9/ok?k=${LANG}", headers: { "X-Info": "${LANG}" } };
    await write(box, base);
    await trustNow(box);
    expect(await state(box)).toBe("trusted");
    await write(box, { ...base, headers: { "X-Info": "${MY_API_TOKEN}" } });
    expect(await state(box)).toBe("untrusted");
    await write(box, { ...base, headers: { "X-Info": "literal" } });
    expect(await state(box)).toBe("untrusted");
    // Same value, another variable: what is sent could differ tomorrow.
    box.env.OTHER = "C.UTF-8";
    await write(box, { ...base, url: "http://127.0.0.1:9/ok?k=${OTHER}" });
    expect(await state(box)).toBe("untrusted");
    await write(box, { ...base, headers: { "X-Info": "${MY_API_TOKEN}" } });
    await trustNow(box);
    box.env.MY_API_TOKEN = "ROTATED";
    expect(await state(box)).toBe("trusted");
    for (const loosen of [{ approval: "never" }, { alwaysAllow: ["echo"] }, { autoApprove: ["echo"] }]) {
      await write(box, { ...base, headers: { "X-Info": "${MY_API_TOKEN}" }, ...loosen });
      expect(await state(box)).toBe("untrusted");
    }
  });

  test("an existing record of a plain stdio server (env only) stays trusted", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".lemon", "mcp.json"),
      JSON.stringify({ servers: [{ name: "hx", command: "true", env: { A: "1" }, approval: "always" }] }),
    );
    const { ctx, by } = await servers(box);
    const { trustHash } = await import("../../../src/core/mcp/trust.ts");
    const { sha256Hex } = await import("../../../src/core/hash.ts");
    const rec = { sha256: trustHash(ctx, by("hx").server), trusted_at: "x", env_sha256: sha256Hex('{"A":"1"}') };
    await box.write(
      join(box.agentDir, "mcp-trust.json"),
      JSON.stringify({ version: 1, projects: { [realpathSync(box.project)]: { hx: rec } } }),
    );
    expect(await projectTrust(ctx, by("hx"))).toBe("trusted");
  });

  test("codex: bearer_token_env_var and env_http_headers names are pinned", async () => {
    await using box = await sandbox();
    box.env.LANG = "C.UTF-8";
    box.env.MY_API_TOKEN = "SEKRET123";
    const toml = (extra: string) =>
      box.write(
        join(box.project, ".codex", "config.toml"),
        `[mcp_servers.hx]\nurl = "http://127.0.0.1:9/ok"\n${extra}`,
      );
    await toml('bearer_token_env_var = "LANG"\n');
    await trustNow(box);
    expect(await state(box)).toBe("trusted");
    await toml('bearer_token_env_var = "MY_API_TOKEN"\n');
    expect(await state(box)).toBe("untrusted");
    await toml('bearer_token_env_var = "MY_API_TOKEN"\nenv_http_headers = { "X-Leak" = "LANG" }\n');
    await trustNow(box);
    box.env.MY_API_TOKEN = "ROTATED";
    expect(await state(box)).toBe("trusted");
    await toml('bearer_token_env_var = "MY_API_TOKEN"\nenv_http_headers = { "X-Leak" = "MY_API_TOKEN" }\n');
    expect(await state(box)).toBe("untrusted");
  });
});

describe("a review shows where the user's secrets would go", () => {
  test("URL query and userinfo, header and env values: placeholder names shown, literal text masked", async () => {
    await using box = await sandbox();
    box.env.MY_API_TOKEN = "SEKRET123";
    box.env.LANG = "C.UTF-8";
    await box.write(
      join(box.project, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          mh: {
            url: "http://127.0.0.1:9/mcp?k=${MY_API_TOKEN}&team=core&x=lit${LANG}#frag",
            headers: { Authorization: "Bearer ${MY_API_TOKEN}", "X-Team": "sk-literal" },
          },
          ui: { url: "http://${LANG}:${MY_API_TOKEN}@127.0.0.1:9/ok" },
          lit: { url: "http://bob:hunter2@127.0.0.1:9/ok?key=sk-abc" },
        },
      }),
    );
    const { ctx, by } = await servers(box);
    const mh = trustRequest(ctx, by("mh"));
    expect(mh.url).toBe("http://127.0.0.1:9/mcp?k=${MY_API_TOKEN}&team=****&x=****${LANG}");
    expect(mh.headerValues).toEqual({ Authorization: "Bearer ${MY_API_TOKEN}", "X-Team": "****" });
    expect(mh.sentVariables).toEqual(["LANG", "MY_API_TOKEN"]);
    expect(trustRequest(ctx, by("ui")).url).toBe("http://${LANG}:${MY_API_TOKEN}@127.0.0.1:9/ok");
    expect(trustRequest(ctx, by("lit")).url).toBe("http://****:****@127.0.0.1:9/ok?key=****");
    for (const n of ["mh", "ui", "lit"]) {
      const text = JSON.stringify(trustRequest(ctx, by(n)));
      for (const secret of ["SEKRET123", "C.UTF-8", "hunter2", "sk-abc", "sk-literal", "frag"])
        expect(text).not.toContain(secret);
    }
  });

  test("codex: bearer_token_env_var and env_http_headers show the variables they send", async () => {
    await using box = await sandbox();
    box.env.MY_API_TOKEN = "SEKRET123";
    await box.write(
      join(box.project, ".codex", "config.toml"),
      '[mcp_servers.cx]\nurl = "http://127.0.0.1:9/mcp"\nbearer_token_env_var = "MY_API_TOKEN"\n' +
        'http_headers = { "X-Team" = "core" }\nenv_http_headers = { "X-Leak" = "MY_API_TOKEN" }\n',
    );
    const { ctx, by } = await servers(box);
    const r = trustRequest(ctx, by("cx"));
    expect(r.headerValues).toEqual({
      Authorization: "Bearer ${MY_API_TOKEN}",
      "X-Leak": "${MY_API_TOKEN}",
      "X-Team": "****",
    });
    expect(r.sentVariables).toEqual(["MY_API_TOKEN"]);
    expect(JSON.stringify(r)).not.toContain("SEKRET123");
  });
});

describe("opencode {env:VAR} is masked like ${VAR}", () => {
  test("mcp get and the review show the variable's name, never its value; it still expands to connect", async () => {
    await using box = await sandbox();
    box.env.MY_API_TOKEN = "SEKRET123";
    await box.write(
      join(box.project, "opencode.json"),
      JSON.stringify({
        mcp: {
          oc: {
            type: "local",
            command: ["/bin/echo", "--key={env:MY_API_TOKEN}"],
            environment: { K: "{env:MY_API_TOKEN}" },
          },
          ro: {
            type: "remote",
            url: "http://127.0.0.1:9/x?k={env:MY_API_TOKEN}",
            headers: { Authorization: "Bearer {env:MY_API_TOKEN}" },
          },
        },
      }),
    );
    const { mcpConfig } = await import("../../../src/core/mcp/index.ts");
    const { expandEntry } = await import("../../../src/core/mcp/expand.ts");
    const api = mcpConfig({ cwd: box.project, env: box.env });
    const got = [await api.get("oc"), await api.get("ro")];
    expect(got[0]!.args).toEqual(["--key=${MY_API_TOKEN:-}"]);
    const { ctx, by } = await servers(box);
    const oc = trustRequest(ctx, by("oc"));
    const ro = trustRequest(ctx, by("ro"));
    expect(oc.args).toEqual(["--key=${MY_API_TOKEN}"]);
    expect(oc.sentVariables).toEqual(["MY_API_TOKEN"]);
    expect(ro.headerValues).toEqual({ Authorization: "Bearer ${MY_API_TOKEN:-}" });
    expect(ro.url).toBe("http://127.0.0.1:9/x?k=${MY_API_TOKEN:-}");
    for (const r of [...got, oc, ro]) expect(JSON.stringify(r)).not.toContain("SEKRET123");
    const e = by("oc").server;
    const vars = { env: box.env, cwd: box.project, homeDir: box.home };
    expect(expandEntry(e.entry, e.vars, vars).entry).toMatchObject({
      args: ["--key=SEKRET123"],
      env: { K: "SEKRET123" },
    });
    delete box.env.MY_API_TOKEN;
    // Unset is empty, as opencode substitutes it.
    expect(expandEntry(e.entry, e.vars, { ...vars, env: box.env }).entry.args).toEqual(["--key="]);
  });
});
