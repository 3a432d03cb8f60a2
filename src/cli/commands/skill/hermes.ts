/**
 * @module cli/commands/skill/hermes
 * `lemon skill hermes [QUERY] [--category C] [--collection bundled|optional|all] [--details]
 * [--install ID …] [--local] [--approve]` (cli.md §2.11, install.md §4.5): the Hermes catalog,
 * remote or from `LEMON_HERMES_REPO`, and with `--install` (repeatable, or comma separated) an
 * install of each id through the normal sequence. On a terminal without `--install` the listing
 * ends with a multi-select prompt (row numbers or ids) whose picks are installed the same way.
 * Installs stop at the first failure; those done before it stay installed and are listed: with
 * `--json` and several ids the report still goes to stdout, `ok: false`, its `installed` list
 * plus `failed: {id, error}`, exit 1 (one id alone fails with the error envelope).
 */
import { cell, type HermesEntry, type InstallResult, sanitizeMessage, toLemonError } from "../../../core/index.ts";
import { usageError } from "../../args.ts";
import { abortedOr, cliApprover } from "../../approve.ts";
import { defineCommand } from "../../command.ts";
import { cliLemon } from "../../context.ts";
import type { CliIo } from "../../io.ts";
import { formatTable, info, printJson, truncate } from "../../output.ts";
import { progress } from "../../progress.ts";

const COLLECTIONS = ["bundled", "optional", "all"] as const;

/** A failed install as the report carries it: the error envelope's fields, sanitised the same way. */
function errorOf(err: unknown): Record<string, unknown> {
  const e = toLemonError(err);
  return {
    code: e.code,
    message: sanitizeMessage(e.message),
    ...(e.hint !== undefined ? { hint: sanitizeMessage(e.hint) } : {}),
    ...(e.details !== undefined ? { details: e.details } : {}),
  };
}

/** An id as typed: `hermes:` may be left out (`optional/research/arxiv`). */
const hermesId = (id: string) => (id.startsWith("hermes:") ? id : `hermes:${id}`);

function printTable(io: CliIo, skills: readonly HermesEntry[], details: boolean): void {
  const headers = details ? ["ID", "CATEGORY", "DESCRIPTION"] : ["ID", "CATEGORY"];
  io.out(
    formatTable(
      headers,
      skills.map((s) => (details ? [s.id, s.category, truncate(s.description, 70)] : [s.id, s.category])),
    ),
  );
}

/**
 * The terminal's multi-select: ids or 1-based row numbers of the table just printed, comma or
 * space separated; an empty answer installs nothing. Anything else is asked again, at most 3 times.
 */
async function pick(io: CliIo, skills: readonly HermesEntry[]): Promise<string[]> {
  for (let attempt = 0; attempt < 3; attempt++) {
    io.err(`Install which? Row numbers (1-${skills.length}) or ids, comma separated; empty for none: `);
    const answer = (await io.readLine?.())?.trim() ?? "";
    if (answer === "") return [];
    const chosen: string[] = [];
    let bad: string | null = null;
    for (const word of answer.split(/[\s,]+/).filter((w) => w !== "")) {
      const row = /^\d+$/.test(word) ? skills[Number(word) - 1] : skills.find((s) => s.id === hermesId(word));
      if (row === undefined) bad = word;
      else if (!chosen.includes(row.id)) chosen.push(row.id);
    }
    if (bad === null) return chosen;
    io.err(`not in the list: ${cell(bad)}\n`);
  }
  return [];
}

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
      const picking = ids.length === 0 && !flags.json && io.interactive === true && cat.skills.length > 0;
      if (picking) {
        printTable(io, cat.skills, flags.details);
        ids.push(...(await pick(io, cat.skills)));
        if (ids.length === 0) return;
      }
      const report = { source: cat.source, commit: cat.commit, truncated: cat.truncated, skills: cat.skills };
      if (ids.length > 0) {
        const approver = cliApprover(io, flags);
        for (const id of ids) {
          let r: InstallResult;
          try {
            r = await lemon.skills.install(hermesId(id), {
              global: !flags.local,
              approve: approver.approve,
              ...(bar.onProgress ? { onProgress: bar.onProgress } : {}),
              onNotice: (line) => info(io, flags.quiet, `notice: ${line}`),
            });
          } catch (err) {
            bar.done();
            // Several ids (cli.md §2.13's pattern): the report says which were installed and why
            // the failed one was not, so a JSON caller never loses the installs before it.
            if (!flags.json || ids.length === 1) return abortedOr(io, flags.json, approver, err);
            printJson(io, { ok: false, ...report, installed, failed: { id: hermesId(id), error: errorOf(err) } });
            return 1;
          }
          bar.done();
          installed.push(r);
          if (!flags.json)
            io.out(
              `Installed '${cell(r.skill.key)}' (${r.lock.trust_level ?? "official"}, audit ${r.audit.verdict}) at ${cell(r.skill.path)}\n`,
            );
        }
      }
      if (flags.json) return printJson(io, { ok: true, ...report, installed });
      if (ids.length > 0) return;
      if (cat.skills.length === 0) return io.out("No Hermes skills found.\n");
      printTable(io, cat.skills, flags.details);
    } finally {
      await lemon.close();
    }
  },
});
