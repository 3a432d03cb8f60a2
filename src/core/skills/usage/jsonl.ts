/**
 * @module skills/usage/jsonl
 * The optional JSONL event log `A/logs/skill-events.jsonl` (skills.md §11, `[skills] event_log`).
 * Loaded only when the setting is on.
 */
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { makeDir } from "../../fsx/atomic.ts";
import { clampChars, utf8Bytes } from "../../text.ts";
import type { EventSink, LemonEventMap, LemonEventType } from "./events.ts";

/** The JSONL record type of an event (skills.md §11: loads and writes are `*_observed`). */
export function recordType(type: LemonEventType): string {
  if (type === "skill.load") return "skill_load_observed";
  if (type === "skill.write") return "skill_write_observed";
  return type;
}

/** A log line never exceeds this many bytes (newline included): one write(2), never torn. */
export const MAX_LINE_BYTES = 8192;
/** Any string field is clamped to this many characters before the line is built. */
const MAX_FIELD_CHARS = 512;

function clampValue(v: unknown): unknown {
  if (typeof v === "string") return clampChars(v, MAX_FIELD_CHARS);
  if (Array.isArray(v)) return v.map(clampValue);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = clampValue(x);
    return out;
  }
  return v;
}

/**
 * One JSONL line of at most MAX_LINE_BYTES: strings clamped; a `keys` list that still does not
 * fit is cut and marked `keys_truncated` (its `count` stays the true number).
 */
export function eventLine(type: LemonEventType, event: LemonEventMap[LemonEventType]): string {
  const record: Record<string, unknown> = { type: recordType(type), ...(clampValue(event) as Record<string, unknown>) };
  let line = `${JSON.stringify(record)}\n`;
  if (utf8Bytes(line) <= MAX_LINE_BYTES) return line;
  const keys = Array.isArray(record.keys) ? (record.keys as unknown[]) : [];
  let keep = keys.length;
  while (keep > 0) {
    keep = Math.floor(keep / 2);
    line = `${JSON.stringify({ ...record, keys: keys.slice(0, keep), keys_truncated: true })}\n`;
    if (utf8Bytes(line) <= MAX_LINE_BYTES) return line;
  }
  // Nothing left to cut (every field is already clamped): the type and time still say it happened.
  return `${JSON.stringify({ type: record.type, ts: record.ts, truncated: true })}\n`;
}

/**
 * Appends each event as one line to `file` (`A/logs/skill-events.jsonl`). Each line is a single
 * write(2) on an O_APPEND descriptor: the kernel moves to the end and writes in one step, so
 * concurrent lemon processes interleave whole lines without a lock (a lock cycle would cost a
 * mkdir, a rename and two removes per event). Lines are bounded, so a write is never split.
 * The file is opened per line: a log rotated or removed meanwhile is simply recreated.
 */
export async function jsonlSink(file: string): Promise<EventSink> {
  await makeDir(dirname(file), 0o755);
  return {
    write(type, event) {
      const bytes = Buffer.from(eventLine(type, event), "utf8");
      const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
      try {
        const n = writeSync(fd, bytes);
        if (n !== bytes.length) throw new Error(`short write to ${file}`);
      } finally {
        closeSync(fd);
      }
    },
  };
}
