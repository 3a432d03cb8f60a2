// Root ignores file modes, and the tests run as root: a test of an unreadable file or directory
// runs the CLI from source as the unprivileged user `nobody` (uid/gid 65534) through setpriv.
import { join } from "node:path";

const MAIN = join(import.meta.dir, "../../src/cli/main.ts");

/** `lemon <argv>` as nobody, synchronously; the caller makes the paths it needs reachable. */
export function lemonAsNobody(argv: string[], opts: { cwd: string; env: Record<string, string | undefined> }) {
  return Bun.spawnSync(
    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, MAIN, ...argv],
    { cwd: opts.cwd, env: opts.env },
  );
}
