// The browser opener (mcp.md §11.4): BROWSER honoured (%s or appended, ':'-separated fallbacks),
// else the platform's opener; the URL stays one argument, never shell text.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openBrowser, openerCommands } from "../../src/cli/browser.ts";
import { type SdkDemo, startSdkDemo } from "../support/oauth-peers.ts";
import { sandbox } from "../support/sandbox.ts";

const url = "https://auth.example.com/authorize?a=1&b='x'&c=$(id)";

describe("openerCommands", () => {
  test("platform openers take the URL as one argument", () => {
    expect(openerCommands(url, {}, "linux")).toEqual([["xdg-open", url]]);
    expect(openerCommands(url, {}, "darwin")).toEqual([["open", url]]);
    expect(openerCommands(url, {}, "win32")).toEqual([["rundll32", "url.dll,FileProtocolHandler", url]]);
  });

  test("BROWSER: words, %s, fallbacks", () => {
    expect(openerCommands(url, { BROWSER: "firefox --new-window" }, "linux")).toEqual([
      ["firefox", "--new-window", url],
    ]);
    expect(openerCommands(url, { BROWSER: "w3m %s:lynx" }, "linux")).toEqual([
      ["w3m", url],
      ["lynx", url],
    ]);
    expect(openerCommands(url, { BROWSER: "  " }, "darwin")).toEqual([["open", url]]);
  });
});

describe("openBrowser", () => {
  test("a command that cannot start, or exits non-zero at once, is a failure; the next one is tried", async () => {
    expect(await openBrowser("http://127.0.0.1:9/x", { BROWSER: "/nonexistent/browser %s" })).toBe(false);
    expect(await openBrowser("http://127.0.0.1:9/x", { BROWSER: "false" })).toBe(false);
    expect(await openBrowser("http://127.0.0.1:9/x", { BROWSER: "false:true" })).toBe(true);
    expect(await openBrowser("http://127.0.0.1:9/x", { BROWSER: "true" })).toBe(true);
  });
});

// A login whose opener fails says so on one stderr line and keeps waiting (issue #14 P-C).
describe("login with a browser that fails to start", () => {
  let demo: SdkDemo;
  beforeAll(async () => {
    demo = await startSdkDemo();
  });
  afterAll(async () => {
    await demo?.stop();
  });

  test("one warning line, then the wait until authorization_timeout_ms", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.agentDir, "mcp.json"),
      JSON.stringify({
        servers: [{ name: "demo", type: "http", url: demo.mcpUrl, oauth: { authorization_timeout_ms: 1500 } }],
      }),
    );
    for (const BROWSER of ["/nonexistent/browser %s", "false"]) {
      const login = await box.cli(["mcp", "login", "demo", "--global", "--approve"], { env: { BROWSER } });
      expect(login.code).toBe(1);
      const lines = login.stderr.split("\n");
      expect(lines.filter((l) => l === "warning: could not open a browser; open the URL above").length).toBe(1);
      expect(login.stderr).toContain("Open this URL to authorize lemon:\n  http://localhost:");
      expect(login.stderr).toContain("error [UNAUTHORIZED]: authorization timed out\n");
    }
  }, 30_000);
});
