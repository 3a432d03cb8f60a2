/**
 * @module cli/commands/mcp/serve
 * `lemon mcp serve [--http [HOST:]PORT] [--global-only] [--allow-writes] [--tools a,b]`
 * (cli.md §3.8): the skills of `--cwd`'s project and the global scope to any MCP client. stdio by
 * default — stdout then carries the protocol and nothing else, every message goes to stderr —
 * or Streamable HTTP on 127.0.0.1 (unless HOST) behind a bearer token: LEMON_SERVE_TOKEN, else
 * a fresh one printed on stderr. Ends with exit 0 on stdin EOF (stdio), SIGINT or SIGTERM, and
 * with exit 1 when its input fails.
 */
import { randomBytes } from "node:crypto";
import { createLemon, type ApprovalRequest } from "../../../core/index.ts";
import { serveSkills, type ServeOptions } from "../../../core/mcp/index.ts";
import { parseToolsFlag, toolsFlag, usageError } from "../../args.ts";
import { defineCommand } from "../../command.ts";
import { projectDir } from "../../project-dir.ts";

/** `PORT`, `HOST:PORT` or `[V6]:PORT`; INVALID_PARAMS for anything else. */
export function parseListen(raw: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(raw.trim());
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || !(port >= 0 && port <= 65535))
    throw usageError(`--http: expected [HOST:]PORT with a port from 0 to 65535 (got '${raw}')`);
  const host = m[1] === undefined ? "127.0.0.1" : m[1].replace(/^\[(.*)\]$/, "$1");
  return { host, port };
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** A token worth guessing for nobody: 256 random bits. */
const freshToken = () => randomBytes(32).toString("base64url");

export default defineCommand({
  name: "serve",
  description: "Serve lemon's skills to MCP clients (stdio, or Streamable HTTP with --http)",
  flags: {
    http: {
      type: "string",
      description: "Streamable HTTP on [HOST:]PORT (HOST default 127.0.0.1)",
      value: "host:port",
    },
    "global-only": { type: "boolean", description: "Serve global skills only, not the project's" },
    "allow-writes": { type: "boolean", description: "Offer skill_manage (every write audited)" },
    ...toolsFlag,
  },
  async run({ flags, io }) {
    const listen = typeof flags.http === "string" ? parseListen(flags.http) : null;
    const tools = parseToolsFlag(flags.tools);
    const quiet = flags.quiet === true;
    const say = (line: string) => {
      if (!quiet) io.err(`lemon mcp serve: ${line}\n`);
    };
    // Nobody can answer a prompt here (stdin may be the protocol): --approve is the only yes.
    const approve = async (_request: ApprovalRequest) => flags.approve === true;
    const lemon = createLemon({
      cwd: projectDir(io, flags),
      env: io.env,
      curator: false,
      approve,
      // The core's warnings (a watcher that fell back to polling, a failed check) are the operator's.
      log: (e) => {
        if (e.level !== "info" && e.level !== "debug" && !quiet) io.err(`lemon mcp serve: ${e.level}: ${e.message}\n`);
      },
      ...(tools ? { availableTools: tools } : {}),
    });
    const common = {
      globalOnly: flags["global-only"] === true,
      allowWrites: flags["allow-writes"] === true,
      log: (line: string) => io.err(`lemon mcp serve: ${line}\n`),
    };
    const fromEnv = io.env.LEMON_SERVE_TOKEN?.trim();
    const envToken = fromEnv !== undefined && fromEnv !== "" ? fromEnv : null;
    const token = envToken ?? freshToken();
    const opts: ServeOptions =
      listen === null
        ? { transport: "stdio", stdin: process.stdin, stdout: process.stdout, ...common }
        : { transport: "http", host: listen.host, port: listen.port, token, ...common };
    // stdout is the protocol on stdio: a stray console.log anywhere would corrupt it.
    const consoleLog = console.log;
    const consoleInfo = console.info;
    if (listen === null) console.log = console.info = console.error;
    const signals = ["SIGINT", "SIGTERM"] as const;
    let stop = () => {};
    const onSignal = () => stop();
    try {
      const server = await serveSkills(lemon, opts);
      stop = () => void server.close();
      for (const s of signals) process.on(s, onSignal);
      // A client that closed its end of stdout: stop instead of dying on EPIPE.
      process.stdout.on("error", onSignal);
      if (server.url !== undefined) {
        say(`listening on ${server.url}`);
        if (!LOOPBACK.has(listen?.host ?? ""))
          say("warning: not loopback only; anyone who reaches this address with the token can read the skills");
        // Printed even with --quiet: a fresh token is the only way in.
        if (envToken !== null) say("bearer token: from LEMON_SERVE_TOKEN");
        else io.err(`lemon mcp serve: bearer token: ${token}\n`);
      } else say("serving over stdio");
      await server.closed;
      // Already said on stderr by the server's log; the exit status is what a supervisor reads.
      if (server.failure !== null) return 1;
    } finally {
      for (const s of signals) process.off(s, onSignal);
      process.stdout.off("error", onSignal);
      console.log = consoleLog;
      console.info = consoleInfo;
      await lemon.close();
    }
    return 0;
  },
});
