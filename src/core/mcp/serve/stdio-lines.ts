/**
 * @module mcp/serve/stdio-lines
 * Line framing in front of the SDK's stdio transport. The SDK's ReadBuffer closes the whole
 * transport when one line passes its bound, which ends the session for every later request; here
 * a line over the bound is dropped up to its newline instead, with only a few bytes of state kept
 * while it streams past (its top-level `id` and whether it has a `method`), so the caller can
 * answer it with a JSON-RPC error and the session goes on. Only complete lines reach the transport.
 */
import { PassThrough, type Readable } from "node:stream";

/** A line dropped for its size: the id it carried (null when none could be read) and its length. */
export interface Oversized {
  id: string | number | null;
  /** The line has a top-level `method`: a request or notification, not a client's answer. */
  request: boolean;
  bytes: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
/** Bytes of a top-level key kept: longer keys are neither "id" nor "method". */
const KEY_BYTES = 8;
/** Bytes of the id's raw JSON kept: a longer one is not read at all. */
const ID_BYTES = 256;

/**
 * Reads the top-level `id` and `method` key of a JSON object streamed through `feed` in pieces,
 * in constant memory: the depth, the string state, and at most KEY_BYTES / ID_BYTES of text.
 */
class TopLevelScan {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Where the next depth-1 token stands: a key, or the value of `#key`. */
  #atKey = false;
  #key: number[] = [];
  #lastKey = "";
  #raw: number[] = [];
  #overflow = false;
  id: string | number | null = null;
  request = false;

  #keep(b: number): void {
    if (this.#depth !== 1) return;
    if (this.#atKey) {
      if (this.#key.length < KEY_BYTES) this.#key.push(b);
      else this.#overflow = true;
    } else if (this.#lastKey === "id") {
      if (this.#raw.length < ID_BYTES) this.#raw.push(b);
      else this.#overflow = true;
    }
  }

  #endValue(): void {
    if (this.#lastKey === "id" && !this.#overflow && this.#raw.length > 0) {
      try {
        const v: unknown = JSON.parse(Buffer.from(this.#raw).toString("utf8"));
        this.id = typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) ? v : null;
      } catch {
        this.id = null;
      }
    }
    this.#raw = [];
    this.#overflow = false;
    this.#lastKey = "";
  }

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (b === BACKSLASH) this.#escaped = true;
        else if (b === QUOTE) {
          this.#inString = false;
          if (this.#depth === 1 && this.#atKey) {
            this.#lastKey = this.#overflow ? "" : Buffer.from(this.#key).toString("latin1");
            if (this.#lastKey === "method") this.request = true;
            this.#key = [];
            this.#overflow = false;
          }
          if (this.#depth === 1 && !this.#atKey) this.#keep(b);
          continue;
        }
        this.#keep(b);
        continue;
      }
      switch (b) {
        case QUOTE:
          this.#inString = true;
          if (!this.#atKey) this.#keep(b);
          break;
        case 0x7b: // {
        case 0x5b: // [
          // A nested value under "id" is no id a JSON-RPC message can carry.
          if (this.#depth === 1 && this.#lastKey === "id") this.#overflow = true;
          this.#depth++;
          if (this.#depth === 1) this.#atKey = b === 0x7b;
          break;
        case 0x7d: // }
        case 0x5d: // ]
          if (this.#depth === 1) this.#endValue();
          this.#depth--;
          break;
        case 0x3a: // :
          if (this.#depth === 1) this.#atKey = false;
          break;
        case 0x2c: // ,
          if (this.#depth === 1) {
            this.#endValue();
            this.#atKey = true;
          }
          break;
        case 0x20:
        case 0x09:
        case 0x0d:
          break;
        default:
          if (!this.#atKey) this.#keep(b);
      }
    }
  }
}

export interface FramedInput {
  /** Complete lines only, each at most `max` bytes before its newline: what the SDK transport reads. */
  readonly lines: PassThrough;
  /** Bytes of an unfinished line held (at most `max`; tests). */
  held(): number;
  /** Starts reading `input` (once the transport reads `lines`). */
  start(): void;
  /** Stops reading `input`. */
  stop(): void;
}

/**
 * Reads `input` as JSON-RPC lines: lines of at most `max` bytes pass on whole, a longer one is
 * dropped as it streams past and reported to `onOversized` once its newline arrives. A pause of
 * `input` (backpressure) holds everything, since nothing is read from it meanwhile.
 */
export function frameLines(input: Readable, max: number, onOversized: (o: Oversized) => void): FramedInput {
  const lines = new PassThrough();
  let parts: Buffer[] = [];
  let held = 0;
  let scan: TopLevelScan | null = null;
  let dropped = 0;
  const onData = (data: Buffer | string) => {
    const chunk = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (scan === null && held + piece.length > max) {
        scan = new TopLevelScan();
        for (const p of parts) scan.feed(p);
        dropped = held;
        parts = [];
        held = 0;
      }
      if (scan !== null) {
        scan.feed(piece);
        dropped += piece.length;
      } else if (nl === -1) {
        parts.push(piece);
        held += piece.length;
      }
      if (nl === -1) break;
      if (scan !== null) {
        const s: TopLevelScan = scan;
        scan = null;
        onOversized({ id: s.id, request: s.request, bytes: dropped });
      } else {
        const line = chunk.subarray(start, nl + 1);
        lines.write(parts.length === 0 ? line : Buffer.concat([...parts, line]));
        parts = [];
        held = 0;
      }
      start = nl + 1;
    }
  };
  return {
    lines,
    held: () => held,
    start: () => void input.on("data", onData),
    stop() {
      input.off("data", onData);
      // As the SDK's own transport does: a stream nobody reads any more stops flowing.
      if (input.listenerCount("data") === 0) input.pause();
    },
  };
}
