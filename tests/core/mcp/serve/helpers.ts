// One in-process `lemon mcp serve` over Streamable HTTP with the SDK's own client, shared by the
// serve tests so each file only says what catalog it serves and which token it speaks with.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLemon, type Lemon } from "../../../../src/core/index.ts";
import { serveSkills, type SkillServer } from "../../../../src/core/mcp/index.ts";
import type { Sandbox } from "../../../support/sandbox.ts";

export interface Served {
  lemon: Lemon;
  server: SkillServer;
  client: Client;
}

type TextResult = { content: { type: string; text?: string }[] };
/** The first content block's text of a tool result ("" when there is none). */
export const textOf = (r: unknown): string => (r as TextResult).content[0]?.text ?? "";

/** An SDK client connected to `url` with a bearer token; `name` is what it announces. */
export async function connectClient(url: string, token: string, name: string, version = "1.0.0"): Promise<Client> {
  const client = new Client({ name, version });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A lemon over the sandbox, serving on an ephemeral port, and one client connected to it. */
export async function serveOverHttp(box: Sandbox, token: string, name: string, version?: string): Promise<Served> {
  const lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
  const server = await serveSkills(lemon, { transport: "http", port: 0, token });
  const client = await connectClient(server.url!, token, name, version);
  return { lemon, server, client };
}

/** Client first, then the server, then lemon: each may still be talking to the next. */
export async function closeServed(served: Partial<Served> | undefined): Promise<void> {
  await served?.client?.close();
  await served?.server?.close();
  await served?.lemon?.close();
}
