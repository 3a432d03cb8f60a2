/**
 * @module skills/usage/events
 * The telemetry events of one lemon instance (skills.md §11, cli.md §9). Field names are the
 * contract's snake_case. An event never carries skill body text, file contents,
 * `content`/`file_content`/`old_string`/`new_string` values or env values: emitters pass only
 * the fields below (the JSONL sink, jsonl.ts, also clamps every string).
 *
 * Two kinds of subscriber: `persist` handlers (internal, async, awaited by `publish`: the usage
 * sidecar) run first, so public listeners run synchronously "after the operation's state is
 * persisted"; a throwing listener or a failing handler is isolated and never reaches the caller.
 * This module imports nothing heavy: createLemon builds a hub for every instance.
 */
import type { LemonContext, LogEntry } from "../../context.ts";
import { diagnostic, type Diagnostic } from "../../diagnostics.ts";
import type { Scope } from "../../paths.ts";

/** Session fields from the embedder's tool-call context (cli.md §7 `ToolCallContext`). */
export interface SessionFields {
  tool_call_id?: string;
  session_key?: string;
  run_id?: string;
  agent_id?: string;
}

/** `read_skill` / `skill://` loads. `scope` is null when the skill was not found or has no scope. */
export interface SkillLoadEvent extends SessionFields {
  ts: string;
  key: string;
  scope: Scope | null;
  view: string;
  section?: string;
  path?: string;
  result: "ok" | "not_found" | "error";
  error_code?: string;
  /** Characters of the text returned to the agent. */
  chars: number;
  duration_ms: number;
}

/** One `skill_manage` action (or a draft publish). */
export interface SkillWriteEvent extends SessionFields {
  ts: string;
  action: string;
  name: string;
  scope: Scope;
  file_path?: string;
  result: "ok" | "error";
  error_code?: string;
  audit_verdict?: "pass" | "warn" | "block";
  duration_ms: number;
}

export interface PromptRenderEvent {
  ts: string;
  kind: "listing" | "relevant";
  keys: string[];
  count: number;
  chars: number;
}

export interface SkillLifecycleEvent {
  ts: string;
  key: string;
  scope: Scope;
  source_kind: string | null;
  result: "ok" | "error";
  audit_verdict?: "pass" | "warn" | "block";
  error_code?: string;
}

export interface RefreshEvent {
  ts: string;
  scope: Scope;
  /** Effective skills of the scope after the refresh. */
  count: number;
  duration_ms: number;
}

export interface CuratorRunEvent {
  ts: string;
  scope: Scope;
  counts: { checked: number; marked_stale: number; archived: number; reactivated: number };
  review_required: boolean;
  report_path: string;
}

/** cli.md §9 `mcp.server_state`. */
export interface McpServerStateEvent {
  ts: string;
  server: string;
  state: string;
  lastError: string | null;
}

/** cli.md §9 `mcp.tool_call`. */
export interface McpToolCallEvent {
  ts: string;
  server: string;
  tool: string;
  name: string;
  result: "ok" | "error";
  errorCode?: string;
  durationMs: number;
  toolCallId?: string;
}

/** cli.md §9; the `mcp.*` events join when the MCP client exists. */
export interface LemonEventMap {
  "skill.load": SkillLoadEvent;
  "skill.write": SkillWriteEvent;
  "skill.prompt_render": PromptRenderEvent;
  "skill.install": SkillLifecycleEvent;
  "skill.update": SkillLifecycleEvent;
  "skill.uninstall": SkillLifecycleEvent;
  "skills.refresh": RefreshEvent;
  "curator.run": CuratorRunEvent;
  /** cli.md §9: a server's state changed (fixed redacted reasons only). */
  "mcp.server_state": McpServerStateEvent;
  /** cli.md §9: one MCP tool call; never its arguments or result. */
  "mcp.tool_call": McpToolCallEvent;
  /** cli.md §9, mcp.md §11.4: an approved authorization URL, for a host without `openUrl`. */
  "mcp.oauth_url": { ts: string; server: string; url: string };
  diagnostic: Diagnostic;
}

export type LemonEventType = keyof LemonEventMap;
export type Listener<T extends LemonEventType> = (event: LemonEventMap[T]) => void;

/** What `lemon.events` offers an embedder (cli.md §9). */
export interface LemonEvents {
  /** Subscribes; returns the unsubscribe function. */
  on<T extends LemonEventType>(type: T, listener: Listener<T>): () => void;
  /** Subscribes for the next event of `type` only; returns the unsubscribe function. */
  once<T extends LemonEventType>(type: T, listener: Listener<T>): () => void;
}

/**
 * An internal subscriber that persists state from an event (the usage sidecar). `ctx` is the
 * context of the call that produced the event (its cwd locates the project scope).
 */
export type PersistHandler<T extends LemonEventType> = (event: LemonEventMap[T], ctx: LemonContext) => Promise<void>;

/** Where the sink writes; `write` throws on failure. */
export interface EventSink {
  write(type: LemonEventType, event: LemonEventMap[LemonEventType]): void;
}

type AnyListener = (event: never) => void;
type AnyHandler = (event: never, ctx: LemonContext) => Promise<void>;

/** The session fields of a tool-call context, snake_cased, only those that are set. */
export function sessionFields(ctx?: {
  toolCallId?: string;
  sessionKey?: string;
  runId?: string;
  agentId?: string;
}): SessionFields {
  const out: SessionFields = {};
  if (typeof ctx?.toolCallId === "string") out.tool_call_id = ctx.toolCallId;
  if (typeof ctx?.sessionKey === "string") out.session_key = ctx.sessionKey;
  if (typeof ctx?.runId === "string") out.run_id = ctx.runId;
  if (typeof ctx?.agentId === "string") out.agent_id = ctx.agentId;
  return out;
}

/** An event timestamp: ISO-8601 UTC, seconds precision (skills.md §1.3 rule 5). */
export const eventTs = (ctx: Pick<LemonContext, "now">): string =>
  ctx
    .now()
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z");

/** One instance's events; no module state, so two instances never see each other's events. */
export class EventHub implements LemonEvents {
  readonly #listeners = new Map<LemonEventType, Set<AnyListener>>();
  readonly #handlers = new Map<LemonEventType, AnyHandler[]>();
  readonly #log: (entry: LogEntry) => void;
  readonly #pending = new Set<Promise<void>>();
  #sink: EventSink | null = null;
  #loader: (() => Promise<EventSink | null>) | null = null;
  /** Events emitted while the sink's settings are still being read, written once they are. */
  #queued: [LemonEventType, LemonEventMap[LemonEventType]][] | null = null;

  constructor(opts: { log?: (entry: LogEntry) => void } = {}) {
    this.#log = opts.log ?? (() => {});
  }

  on<T extends LemonEventType>(type: T, listener: Listener<T>): () => void {
    if (typeof listener !== "function") throw new TypeError("events.on: listener must be a function");
    let set = this.#listeners.get(type);
    if (set === undefined) this.#listeners.set(type, (set = new Set()));
    // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
    const entry: AnyListener = (e: never) => listener(e);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  once<T extends LemonEventType>(type: T, listener: Listener<T>): () => void {
    if (typeof listener !== "function") throw new TypeError("events.once: listener must be a function");
    const off = this.on(type, (e) => {
      off();
      listener(e);
    });
    return off;
  }

  /** True when something would receive an event of `type`: emitters skip costly fields otherwise. */
  wants(type: LemonEventType): boolean {
    return (
      (this.#listeners.get(type)?.size ?? 0) > 0 ||
      (this.#handlers.get(type)?.length ?? 0) > 0 ||
      this.#sink !== null ||
      this.#queued !== null ||
      this.#loader !== null
    );
  }

  /** Registers an internal persisting subscriber (see {@link PersistHandler}). */
  persist<T extends LemonEventType>(type: T, handler: PersistHandler<T>): void {
    const list = this.#handlers.get(type) ?? [];
    list.push(handler as AnyHandler);
    this.#handlers.set(type, list);
  }

  /**
   * Runs the persisting handlers of `type` (a failure becomes a `diagnostic` event, never a
   * rejection), then the listeners. What a tool awaits before returning its result.
   */
  async publish<T extends LemonEventType>(type: T, event: LemonEventMap[T], ctx: LemonContext): Promise<void> {
    // The sink's settings load meanwhile, so the line is written before publish returns: a CLI
    // that exits without close() loses nothing.
    if (this.#loader !== null) this.#startSink(this.#loader);
    for (const handler of this.#handlers.get(type) ?? []) {
      try {
        await handler(event as never, ctx);
      } catch (err) {
        const reason = err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
        const message = `usage not recorded: ${reason}`;
        this.#log({ level: "warn", message });
        this.emit("diagnostic", diagnostic("warn", "usage_update_failed", message));
      }
    }
    await this.drain();
    this.emit(type, event);
  }

  /** Delivers to the sink and every listener, synchronously; a throwing listener is logged and skipped. */
  emit<T extends LemonEventType>(type: T, event: LemonEventMap[T]): void {
    this.#toSink(type, event);
    const set = this.#listeners.get(type);
    if (set === undefined || set.size === 0) return;
    // A copy: a listener that unsubscribes (once) or subscribes must not change this delivery.
    for (const listener of [...set]) {
      try {
        listener(event as never);
      } catch (err) {
        this.#log({
          level: "warn",
          message: `event listener for ${type} threw: ${err instanceof Error ? err.message : String(err)}`,
        });
      }
    }
  }

  /**
   * The sink comes from `load` (null: none), called on the first event so an instance that
   * emits nothing never reads its settings. Events emitted while it loads are queued and
   * written once it is there, in order; `drain()` waits for that.
   */
  setSinkLoader(load: () => Promise<EventSink | null>): void {
    this.#loader = load;
  }

  #startSink(load: () => Promise<EventSink | null>): void {
    this.#loader = null;
    this.#queued = [];
    const done = load().then(
      (s) => {
        const queued = this.#queued ?? [];
        this.#queued = null;
        this.#sink = s;
        for (const [type, event] of queued) this.#toSink(type, event);
      },
      (err) => {
        this.#queued = null;
        this.#log({ level: "warn", message: `event log unavailable: ${err instanceof Error ? err.message : err}` });
      },
    );
    this.#track(done);
  }

  /**
   * Settles whether a sink exists (starting its loader if it has not run), so `wants` is exact:
   * for an emitter whose event costs work to build.
   */
  async ready(): Promise<void> {
    if (this.#loader !== null) this.#startSink(this.#loader);
    await this.drain();
  }

  /** Waits until the sink is attached and the events queued for it are written. */
  async drain(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  #track(p: Promise<void>): void {
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
  }

  #toSink(type: LemonEventType, event: LemonEventMap[LemonEventType]): void {
    if (this.#loader !== null) this.#startSink(this.#loader);
    if (this.#queued !== null) {
      this.#queued.push([type, event]);
      return;
    }
    if (this.#sink === null) return;
    try {
      this.#sink.write(type, event);
    } catch (err) {
      // One warning, then no more attempts: a full disk must not add a warning per event.
      this.#sink = null;
      this.#log({ level: "warn", message: `event log disabled: ${err instanceof Error ? err.message : err}` });
    }
  }
}
