/**
 * @module cli/commands/mcp/call
 * `lemon mcp call NAME TOOL ['<json>'] [--approve] [--timeout-ms N]` (cli.md §3.6b): one call of a
 * raw tool name (or a utility method such as `resources/read`) on one effective, enabled, trusted
 * server, for scripts and CI. An `always` requirement asks on a terminal; `--approve` grants it;
 * otherwise FORBIDDEN. A result with `isError: true` is printed and exits 1.
 */
import { cell, LemonError, terminalText } from "../../../core/index.ts";
import type { ContentBlock } from "../../../core/index.ts";
import { defineCommand } from "../../command.ts";
import { printJson } from "../../output.ts";
import { callApprover, cliMcpClient } from "./client.ts";
import { withRequestHint } from "./login.ts";

/**
 * Remote text for a terminal: escape sequences, and the controls and bidi/invisible characters
 * that survive them (U+202E reorders what follows), removed; newlines and tabs kept.
 */

const base64Bytes = (b64: string) => {
  const clean = b64.replace(/[^A-Za-z0-9+/]/g, "");
  return Math.floor((clean.length * 3) / 4);
};

/** One line per non-text block; text blocks as they are. */
function human(content: readonly ContentBlock[]): string {
  const out: string[] = [];
  for (const b of content) {
    if (b.type === "text") out.push(`${terminalText(b.text).replace(/\n$/, "")}\n`);
    else if (b.type === "image" || b.type === "audio")
      out.push(`[${b.type} ${cell(b.mimeType)} ${base64Bytes(b.data)} bytes]\n`);
    else if (b.type === "resource_link") out.push(`[resource ${cell(b.uri)}]\n`);
    else out.push(`[resource ${cell(b.resource.uri)}]\n`);
  }
  return out.join("");
}

export default defineCommand({
  name: "call",
  description: "Call one tool of a server",
  args: [
    { name: "name", description: "Server name", required: true },
    { name: "tool", description: "Raw tool name or utility method (resources/read, prompts/get, …)", required: true },
    { name: "arguments", description: "Arguments as one JSON object (default {})" },
  ],
  flags: {
    global: { type: "boolean", description: "Only the user's servers (agent dir and environment), not the project's" },
    "timeout-ms": { type: "integer", description: "Tool call timeout in ms (at most 300000)", value: "N" },
  },
  async run({ flags, args, io }) {
    let parsed: unknown = {};
    if (args.arguments !== undefined) {
      try {
        parsed = JSON.parse(args.arguments);
      } catch {
        throw new LemonError("INVALID_PARAMS", "arguments must be one JSON object");
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
        throw new LemonError("INVALID_PARAMS", "arguments must be one JSON object");
    }
    const timeout = flags["timeout-ms"];
    if (timeout !== undefined && (timeout <= 0 || timeout > 300_000))
      throw new LemonError("INVALID_PARAMS", "--timeout-ms must be between 1 and 300000");
    const approver = callApprover(io, flags.approve);
    const client = await cliMcpClient(io, flags);
    const started = performance.now();
    try {
      const r = await client
        .callServerTool(args.name, args.tool, parsed, {
          approve: (req) =>
            approver.approve(req).catch((err: unknown) => {
              // The arguments stay out of the hint: a CI log keeps it.
              throw withRequestHint(
                err,
                `Call MCP tool '${cell(req.tool)}' of server '${cell(req.server)}' (${req.transport})? [y/N] `,
              );
            }),
          global: flags.global,
          ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
        })
        .catch((err: unknown) => {
          if (!flags.json && approver.declined() && LemonError.is(err) && err.code === "FORBIDDEN") return null;
          throw err;
        });
      if (r === null) {
        io.err("Aborted.\n");
        return 1;
      }
      const total = Math.round(performance.now() - started);
      if (flags.json)
        printJson(io, {
          ok: !r.isError,
          name: args.name,
          tool: args.tool,
          is_error: r.isError,
          content: r.content,
          structured_content: r.details.structuredContent ?? null,
          timing_ms: { total },
        });
      else io.out(human(r.content));
      return r.isError ? 1 : 0;
    } finally {
      await client.close();
    }
  },
});
