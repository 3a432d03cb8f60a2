/**
 * @module skills/tools/api
 * The agent-tool methods of a Lemon instance (cli.md §7): `readSkill`, `resolveSkillUri` and
 * `agentTools`. Light on purpose: the module entry imports it, so the tools themselves load on
 * first call. `readSkill` never rejects: a bad argument is an `isError` result like any other
 * failure; `resolveSkillUri` and `agentTools` are plain APIs and throw LemonError.
 */
import { withCwd, type LemonContext } from "../../context.ts";
import { checkArg, checkOptions, toLemonError } from "../../errors.ts";
import type { RecordCache } from "../catalog.ts";
import type { SkillRegistry } from "../registry.ts";
import { toolDefinitions, type ToolCallWithCwd, type ToolExecutor } from "./agent-tools.ts";
import type { ReadSkillDetails, SkillLoadEvent } from "./read-skill.ts";
import { errorResult, type ToolCallContext, type ToolDefinition, type ToolResult } from "./result.ts";
import type { ResolvedSkillUri } from "./skill-uri.ts";

/** What the tool methods need from their instance. */
export interface ToolApiHost {
  context: LemonContext;
  registry: () => Promise<SkillRegistry>;
  /**
   * Where `skill.load` events go (the instance's event hub), awaited; default nowhere. `cwd` is
   * the project the call ran for (undefined: the instance's), whose usage sidecar records it.
   */
  emitLoad?: (e: SkillLoadEvent, cwd?: string) => void | Promise<void>;
  /** The instance's `skillManage`, for the `skill_manage` tool definition. */
  skillManage: ToolExecutor;
}

/** The three methods, as the instance exposes them. */
export interface ToolApi {
  readSkill(params: unknown, ctx?: ToolCallWithCwd): Promise<ToolResult<ReadSkillDetails>>;
  resolveSkillUri(uri: string, opts?: { cwd?: string }, ctx?: ToolCallContext): Promise<ResolvedSkillUri>;
  agentTools(opts?: { cwd?: string }): ToolDefinition[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The project directory a call asks for: checked (an existing directory), or the instance's. */
function cwdOf(context: LemonContext, cwd: unknown, what: string): string | undefined {
  if (cwd === undefined) return undefined;
  checkArg(cwd, "string", `${what}: option 'cwd'`);
  return withCwd(context, cwd as string).cwd;
}

export function toolApi(host: ToolApiHost): ToolApi {
  const emitLoad = host.emitLoad;
  // Parsed SKILL.md files of this instance's one-key lookups (lookup.ts), kept per fingerprint.
  const fast = { context: host.context, cache: new Map() as RecordCache };
  const readSkill = async (params: unknown, ctx?: ToolCallWithCwd): Promise<ToolResult<ReadSkillDetails>> => {
    let key = "";
    try {
      if (isRecord(params) && typeof params.key === "string") key = params.key;
    } catch {
      // A getter that throws: the tool itself reports the parameters (read-skill.ts plainParams).
    }
    let cwd: string | undefined;
    let refused: string | undefined;
    try {
      if (ctx !== undefined && !isRecord(ctx)) checkArg(ctx, "object", "readSkill: ctx");
      cwd = cwdOf(host.context, ctx?.cwd, "readSkill");
    } catch (err) {
      refused = toLemonError(err).message;
    }
    try {
      const [{ readSkill: run }, registry] = await Promise.all([import("./read-skill.ts"), host.registry()]);
      const call = isRecord(ctx) ? ctx : undefined;
      const toolHost = {
        registry,
        fast,
        ...(cwd !== undefined ? { cwd } : {}),
        now: () => host.context.now(),
        ...(emitLoad ? { emit: (e: SkillLoadEvent) => emitLoad(e, cwd) } : {}),
      };
      return await run(toolHost, params, call, refused);
    } catch (err) {
      return errorResult(`Could not read skill: ${toLemonError(err).message}`, { error: "read_failed", key });
    }
  };
  const resolveSkillUri = async (
    uri: string,
    opts?: { cwd?: string },
    ctx?: ToolCallContext,
  ): Promise<ResolvedSkillUri> => {
    try {
      checkArg(uri, "string", "resolveSkillUri: uri");
      checkOptions(opts, { cwd: "string" }, "resolveSkillUri");
      const cwd = cwdOf(host.context, opts?.cwd, "resolveSkillUri");
      const [{ resolveSkillUri: run }, registry] = await Promise.all([import("./skill-uri.ts"), host.registry()]);
      const toolHost = {
        registry,
        fast,
        ...(cwd !== undefined ? { cwd } : {}),
        now: () => host.context.now(),
        ...(emitLoad ? { emit: (e: SkillLoadEvent) => emitLoad(e, cwd) } : {}),
      };
      return await run(toolHost, uri, isRecord(ctx) ? ctx : undefined);
    } catch (err) {
      throw toLemonError(err);
    }
  };
  const agentTools = (opts?: { cwd?: string }): ToolDefinition[] => {
    try {
      checkOptions(opts, { cwd: "string" }, "agentTools");
      const cwd = cwdOf(host.context, opts?.cwd, "agentTools");
      return toolDefinitions({
        ...(cwd !== undefined ? { cwd } : {}),
        readSkill,
        skillManage: host.skillManage,
      });
    } catch (err) {
      throw toLemonError(err);
    }
  };
  return { readSkill, resolveSkillUri, agentTools };
}
