/**
 * @module cli/browser
 * Opens an authorization URL in the user's browser (mcp.md §11.4): `BROWSER` when set (a command
 * line split on whitespace; `%s` stands for the URL, else it is the last argument; several
 * commands separated by `:` are tried in order), else the platform opener. Never through a
 * shell: the URL is one argument vector element, so `&` and quotes in it stay data. The child is
 * detached and its output ignored; a missing or failing opener is not an error (the URL is on
 * stderr): the caller warns once and keeps waiting.
 */
import { spawn } from "node:child_process";

/** The argument vectors to try for `url`, in order. */
export function openerCommands(
  url: string,
  env: Record<string, string | undefined>,
  platform: string = process.platform,
): string[][] {
  const browser = env.BROWSER?.trim();
  if (browser) {
    const out: string[][] = [];
    for (const cmd of browser.split(":")) {
      const words = cmd.trim().split(/\s+/).filter(Boolean);
      if (words.length === 0) continue;
      const hasSlot = words.some((w) => w.includes("%s"));
      out.push(hasSlot ? words.map((w) => w.replaceAll("%s", url)) : [...words, url]);
    }
    if (out.length > 0) return out;
  }
  if (platform === "darwin") return [["open", url]];
  // `cmd /c start` would parse the URL's `&` as a command separator: the URL handler takes it whole.
  if (platform === "win32") return [["rundll32", "url.dll,FileProtocolHandler", url]];
  return [["xdg-open", url]];
}

/** An opener that exits non-zero within this long failed (a wrong BROWSER, no display). */
const QUICK_EXIT_MS = 1500;

function tryOne(argv: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv;
    if (cmd === undefined) return resolve(false);
    try {
      const child = spawn(cmd, args, { detached: true, stdio: "ignore", shell: false });
      child.once("error", () => resolve(false));
      child.once("spawn", () => {
        // Still running after the window, or exited 0: the browser has the URL.
        const timer = setTimeout(() => resolve(true), QUICK_EXIT_MS);
        timer.unref();
        child.once("exit", (code) => {
          clearTimeout(timer);
          resolve(code === 0);
        });
        child.unref();
      });
    } catch {
      resolve(false);
    }
  });
}

/**
 * Starts the first opener that runs; resolves false when none could start or each exited
 * non-zero at once. May take QUICK_EXIT_MS: callers need not wait for it before the callback.
 */
export async function openBrowser(url: string, env: Record<string, string | undefined>): Promise<boolean> {
  for (const argv of openerCommands(url, env)) if (await tryOne(argv)) return true;
  return false;
}
