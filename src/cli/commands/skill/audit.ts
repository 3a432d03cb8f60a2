/**
 * @module cli/commands/skill/audit
 * `lemon skill audit <key|PATH> [--force] [--json]` (cli.md §2.6, install.md §7.5), check-style:
 * the report is printed even for `block`, which exits 1.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { defineLemonCommand } from "../../command.ts";
import { cliLemon } from "../../context.ts";
import { printJson } from "../../output.ts";
import { notFound } from "../../../core/errors.ts";
import { cell } from "../../../core/text.ts";
import { expandUserPath } from "../../../core/context.ts";
import { resolvePaths } from "../../../core/paths.ts";
import { lintSkillDir } from "../../../core/skills/lint.ts";
import { auditBundle, auditJson, formatFinding, type LintHook } from "../../../core/skills/audit/index.ts";

/** The full linter, without its audit step, as the audit's `lint` rule input. */
const fullLint: LintHook = async (dir) => {
  const r = await lintSkillDir(dir);
  return { valid: r.valid, issues: r.issues.filter((i) => i.code !== "audit_warn" && i.code !== "audit_block") };
};
/** Bump with changes to the linter's codes so cached audits are redone. */
const FULL_LINT_VERSION = 2;

const looksLikePath = (s: string) => s.includes("/") || s.includes("\\") || s.startsWith(".") || s.startsWith("~");
const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

export default defineLemonCommand({
  meta: { name: "audit", description: "Run the security audit on an installed skill or a skill directory" },
  args: {
    target: { type: "positional", description: "Skill key or path to a skill directory", required: true },
    force: { type: "boolean", description: "Ignore the audit cache" },
  },
  async run({ args, io }) {
    const lemon = cliLemon(io, args);
    const ctx = lemon.context;
    const target = String(args.target);
    const paths = resolvePaths(ctx);
    let dir: string | null = null;
    let key: string | undefined;
    let cacheFile: string | undefined;
    const entry = looksLikePath(target) ? null : await lemon.skills.get(target);
    if (entry) {
      dir = entry.path;
      key = entry.key;
      cacheFile = entry.scope === "global" ? paths.global.auditCache : paths.project.auditCache;
    } else {
      const p = expandUserPath(ctx, target);
      if (isDir(p)) dir = resolve(p);
      else if (looksLikePath(target) || existsSync(p)) throw notFound(`skill directory not found: ${target}`);
      else throw notFound(`Skill '${target}' not found`, { hint: "pass a skill key from 'lemon skill list' or a path to a skill directory" });
      // A path that is an effective skill shares that skill's cache record.
      const same = (await lemon.skills.list()).skills.find((e) => real(e.path) === real(dir!));
      if (same) {
        key = same.key;
        cacheFile = same.scope === "global" ? paths.global.auditCache : paths.project.auditCache;
      }
    }
    const report = await auditBundle(dir, {
      force: Boolean(args.force),
      lint: fullLint,
      lintVersion: FULL_LINT_VERSION,
      now: () => ctx.now(),
      ...(key !== undefined ? { key } : {}),
      ...(cacheFile !== undefined ? { cacheFile } : {}),
    });
    if (args.json) printJson(io, auditJson(report));
    else {
      io.out(`${cell(report.key)}: ${report.verdict} (sha256 ${report.bundleHash})\n`);
      for (const f of report.findings) io.out(`${cell(formatFinding(f))}\n`);
    }
    return report.verdict === "block" ? 1 : 0;
  },
});
