// The browser opener (mcp.md §11.4): BROWSER honoured (%s or appended, ':'-separated fallbacks),
// else the platform's opener; the URL stays one argument, never shell text.
import { describe, expect, test } from "bun:test";
import { openerCommands } from "../../src/cli/browser.ts";

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
