/**
 * @module cli/commands/skill/inspect
 * `lemon skill inspect <key>` (alias `info`, cli.md §2.3): identity, provenance, hashes,
 * requirements and references of one effective skill.
 */
import { defineCommand } from "../../command.ts";
import { toolsFlag } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { printJson } from "../../output.ts";
import { cell } from "../../../core/index.ts";

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
    io.out("Provenance\n");
    line("source", "no install record");
    line("trust", e.trust_level ?? "untrusted");
    io.out("Hashes\n");
    line("content", e.content_hash);
    line("bundle", "no install record");
    line("current", e.current_bundle_hash);
    line("drift", "no install record");
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
