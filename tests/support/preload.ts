// Safety net for every test run: HOME goes to a throwaway directory and every remote base URL to a
// closed loopback port, so a test that forgets its sandbox can neither touch ~ nor reach a network.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const home = mkdtempSync(join(tmpdir(), "lemon-test-home-"));
process.env.HOME = home;
process.env.USERPROFILE = home;
process.env.XDG_CONFIG_HOME = join(home, ".config");
delete process.env.LEMON_HOME;
delete process.env.LEMON_AGENT_DIR;
for (const v of ["LEMON_GITHUB_API_URL", "LEMON_GITHUB_RAW_URL", "LEMON_SKILLS_REGISTRY_URL", "LEMON_GITHUB_GIT_URL"])
  process.env[v] = "http://127.0.0.1:9";
process.env.NO_COLOR = "1";
