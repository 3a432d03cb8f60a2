/**
 * @module cli/commands/skill/hermes
 * `lemon skill hermes [QUERY] [--category C] [--collection bundled|optional|all] [--details]
 * [--install ID …] [--local] [--approve]` (cli.md §2.11, install.md §4.5): the Hermes catalog,
 * remote or from `LEMON_HERMES_REPO`, and with `--install` (repeatable, or comma separated) an
 * install of each id through the normal sequence. Installs stop at the first failure; those done
 * before it stay installed and are listed.
 */
import { cell, type InstallResult } from "../../../core/index.ts";
import { usageError } from "../../args.ts";
import { abortedOr, cliApprover } from "../../approve.ts";
import { defineCommand } from "../../command.ts";
import { cliLemon } from "../../context.ts";
import { formatTable, info, printJson, truncate } from "../../output.ts";
import { progress } from "../../progress.ts";

const COLLECTIONS = ["bundled", "optional", "all"] as const;

/** An id as typed: `hermes:` may be left out (`optional/research/arxiv`). */
const hermesId = (id: string) => (id.startsWith("hermes:") ? id : `hermes:${id}`);

export default defineCommand({
  name: "hermes",
  description: "Browse the official Hermes skill catalog and install from it",
  args: [
    {
      name: "query",
      description: "Filter by key, category or path (name and description with --details)",
      variadic: true,
    },
  ],
  flags: {
    category: { type: "string", value: "c", description: "Only this category (exact)" },
    collection: {
      type: "string",
      value: "name",
      choices: COLLECTIONS,
      description: "bundled, optional or all (default all)",
    },
    details: { type: "boolean", description: "Fetch each skill's name and description" },
    install: { type: "list", value: "id", description: "Install this id (repeatable, or comma separated)" },
    local: { type: "boolean", aliases: ["project"], description: "Install into the project scope (default: global)" },
    verbose: { type: "boolean", description: "Print progress even when stderr is not a terminal" },
  },
  async run({ flags, words, io }) {
    const query = words.join(" ").trim();
    const ids = flags.install
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter((v) => v !== "");
    if (flags.install.length > 0 && ids.length === 0) throw usageError("--install needs a Hermes id");
    const lemon = cliLemon(io, flags);
    const bar = progress(io, flags);
    try {
      const cat = await lemon.skills
        .hermesCatalog({
          ...(query !== "" ? { query } : {}),
          ...(flags.category !== undefined ? { category: flags.category } : {}),
          collection: (flags.collection ?? "all") as (typeof COLLECTIONS)[number],
          details: flags.details,
          ...(bar.onProgress ? { onProgress: bar.onProgress } : {}),
        })
        .finally(() => bar.done());
      for (const w of cat.warnings) info(io, flags.quiet, `warn: ${w}`);
      const installed: InstallResult[] = [];
      if (ids.length > 0) {
        const approver = cliApprover(io, flags);
        for (const id of ids) {
          const r = await lemon.skills
            .install(hermesId(id), {
              global: !flags.local,
              approve: approver.approve,
              ...(bar.onProgress ? { onProgress: bar.onProgress } : {}),
              onNotice: (line) => info(io, flags.quiet, `notice: ${line}`),
            })
            .catch((err: unknown) => {
              bar.done();
              return abortedOr(io, flags.json, approver, err);
            });
          bar.done();
          if (typeof r === "number") return r;
          installed.push(r);
          if (!flags.json)
            io.out(
              `Installed '${cell(r.skill.key)}' (${r.lock.trust_level ?? "official"}, audit ${r.audit.verdict}) at ${cell(r.skill.path)}\n`,
            );
        }
      }
      if (flags.json)
        return printJson(io, {
          ok: true,
          source: cat.source,
          commit: cat.commit,
          truncated: cat.truncated,
          skills: cat.skills,
          installed,
        });
      if (ids.length > 0) return;
      if (cat.skills.length === 0) return io.out("No Hermes skills found.\n");
      const headers = flags.details ? ["ID", "CATEGORY", "DESCRIPTION"] : ["ID", "CATEGORY"];
      io.out(
        formatTable(
          headers,
          cat.skills.map((s) => (flags.details ? [s.id, s.category, truncate(s.description, 70)] : [s.id, s.category])),
        ),
      );
    } finally {
      await lemon.close();
    }
  },
});
