/**
 * @module skills/install/checks
 * Argument checks of `skills.install / listSource / update / updateMany / uninstall` (cli.md §7):
 * a JavaScript caller can pass anything, and a wrong type fails INVALID_PARAMS naming the
 * argument. Light on purpose: the public entry imports it at start-up.
 */
import { checkArg, checkOptions, type ArgKind } from "../../errors.ts";

const CWD = { cwd: "string" } as const satisfies Record<string, ArgKind>;
const PROGRESS = { onProgress: "function", onNotice: "function" } as const satisfies Record<string, ArgKind>;

const INSTALL_FIELDS = {
  ...CWD,
  ...PROGRESS,
  global: "boolean",
  force: "boolean",
  ref: "string",
  path: "string",
  skill: "string",
  as: "string",
  securityOverride: "string",
  agent: ["lemon", "agents", "claude", "codex", "omp"],
} as const satisfies Record<string, ArgKind>;

const UPDATE_FIELDS = {
  ...CWD,
  ...PROGRESS,
  global: "boolean",
  force: "boolean",
  check: "boolean",
  ref: "string",
  securityOverride: "string",
} as const satisfies Record<string, ArgKind>;

/** `approve` of an install, update or uninstall call: `true`/`false` or a callback. */
function checkApprove(o: unknown, what: string): void {
  const v = (o as { approve?: unknown } | undefined)?.approve;
  if (v !== undefined && typeof v !== "function") checkArg(v, "boolean", `${what}: option 'approve'`);
}

export const lifecycleChecks = {
  install(source: unknown, o?: unknown): void {
    checkArg(source, "string", "skills.install: source");
    checkOptions(o, INSTALL_FIELDS, "skills.install");
    checkApprove(o, "skills.install");
  },
  listSource(source: unknown, o?: unknown): void {
    checkArg(source, "string", "skills.listSource: source");
    checkOptions(o, { ...CWD, ref: "string", path: "string", onProgress: "function" }, "skills.listSource");
  },
  update(key: unknown, o?: unknown): void {
    checkArg(key, "string", "skills.update: key");
    checkOptions(o, UPDATE_FIELDS, "skills.update");
    checkApprove(o, "skills.update");
  },
  updateMany(keys: unknown, o?: unknown): void {
    if (keys !== "all") checkArg(keys, "string[]", "skills.updateMany: keys");
    checkOptions(o, UPDATE_FIELDS, "skills.updateMany");
    checkApprove(o, "skills.updateMany");
  },
  uninstall(key: unknown, o?: unknown): void {
    checkArg(key, "string", "skills.uninstall: key");
    checkOptions(o, { ...CWD, global: "boolean", force: "boolean" }, "skills.uninstall");
    checkApprove(o, "skills.uninstall");
  },
};
