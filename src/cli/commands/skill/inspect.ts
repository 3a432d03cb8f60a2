/**
 * @module cli/commands/skill/inspect
 * `lemon skill inspect <key>` (alias `info`, cli.md §2.3): identity, provenance, hashes,
 * requirements and references of one effective skill.
 */
import { defineCommand } from "../../command.ts";
import { toolsFlag } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { printJson } from "../../output.ts";
import { cell, type SkillInspection } from "../../../core/index.ts";

/** The drift line of cli.md §2.3. */
function driftLine(e: SkillInspection): string {
  if (e.lock === null) return "no install record";
  const parts: string[] = [];
  if (e.locally_modified === true) parts.push("locally modified since install");
  if (e.update_available === true) parts.push("update available");
  if (parts.length > 0) return parts.join("; ");
  if (e.locally_modified === null) return "unknown (the install record has no bundle hash)";
  return e.update_available === null ? "matches install (updates never checked)" : "matches install";
}

export default defineCommand({
  name: "inspect",
  description: "Show everything lemon knows about one skill",
  args: [{ name: "key", description: "Skill key", required: true }],
  flags: toolsFlag,
  async run({ flags, args, io }) {
    const lemon = cliLemon(io, flags);
    const e = await lemon.skills.inspect(args.key);
    const m = e.manifest;
    if (flags.json) return printJson(io, { ok: true, skill: e });
    const line = (label: string, value: string) => io.out(`  ${label.padEnd(12)} ${cell(value)}\n`);
    io.out(`${cell(e.key)}\n`);
    line("name", e.name);
    line("description", e.description === "" ? "(no description)" : e.description);
    line("path", e.path);
    line("scope", `${e.scope} (${e.root_label})`);
    line("activation", e.hidden ? `${e.activation_state}, hidden` : e.activation_state);
    line("platforms", e.platforms.join(", "));
    const lock = e.lock;
    io.out("Provenance\n");
    if (lock === null) line("source", "no install record");
    else {
      line("source", `${lock.source_kind ?? "unknown"} ${lock.source_id ?? "(no source id)"}`);
      if (lock.source_ref !== null) line("ref", lock.source_ref);
      if (lock.subdir !== null) line("subdir", lock.subdir);
      line("agent", lock.agent);
    }
    line("trust", e.trust_level ?? "untrusted");
    if (lock !== null) {
      line("installed", lock.installed_at ?? "unknown");
      line("updated", lock.updated_at ?? "never");
      line("audit", lock.audit_status ?? "unknown");
      for (const f of lock.audit_findings) line("finding", f);
      const o = lock.security_override;
      line(
        "override",
        o === null
          ? "none"
          : `sha256 ${o.bundle_hash} approved ${o.approved_at} (${e.override_valid ? "valid" : "void: the files changed since"})`,
      );
    }
    io.out("Hashes\n");
    line("content", e.content_hash);
    line("bundle", lock === null ? "no install record" : (lock.bundle_hash ?? "unknown"));
    if (lock !== null) {
      line("upstream", lock.upstream_hash ?? "unknown");
      if (lock.resolved_commit !== null) line("commit", lock.resolved_commit);
    }
    line("current", e.current_bundle_hash);
    line("drift", driftLine(e));
    io.out("Requirements\n");
    const mark = (missing: string[], x: string) => (missing.includes(x) ? "✗" : "✓");
    for (const b of m.requires.bins) line("bin", `${mark(e.missing.bins, b)} ${b}`);
    for (const v of [...new Set([...m.requires.config, ...m.required_environment_variables])])
      line("env", `${mark(e.missing.env, v)} ${v}`);
    for (const t of m.requires_tools)
      line("tool", e.unchecked_tools.includes(t) ? `? ${t} (no tool list given)` : `${mark(e.missing.tools, t)} ${t}`);
    if (
      m.requires.bins.length +
        m.requires.config.length +
        m.required_environment_variables.length +
        m.requires_tools.length ===
      0
    )
      line("", "none");
    io.out("References\n");
    if (m.references.length === 0) line("", "none");
    for (const r of m.references) {
      const target = typeof r === "string" ? r : "path" in r ? r.path : r.url;
      const desc = typeof r === "string" ? "" : r.description ? ` — ${r.description}` : "";
      line("", `${target}${desc}`);
    }
  },
});
