/**
 * @module mcp/client/transport/ring
 * A byte-bounded text ring for server stderr and log notifications (mcp.md §5.1: 64 KiB, shown
 * only by `lemon mcp test --verbose`, never in errors or status). Old text falls off the front.
 */
export const STDERR_RING_BYTES = 64 * 1024;

export class TextRing {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(readonly capacity = STDERR_RING_BYTES) {}

  push(data: string | Uint8Array): void {
    let b = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
    if (b.length === 0) return;
    if (b.length > this.capacity) b = b.subarray(b.length - this.capacity);
    this.chunks.push(b);
    this.size += b.length;
    while (this.size > this.capacity) {
      const head = this.chunks[0]!;
      const over = this.size - this.capacity;
      if (head.length <= over) {
        this.chunks.shift();
        this.size -= head.length;
      } else {
        this.chunks[0] = head.subarray(over);
        this.size -= over;
      }
    }
  }

  /** The last `bytes` bytes as text; a character cut at the front decodes as U+FFFD. */
  tail(bytes = this.capacity): string {
    const all = Buffer.concat(this.chunks);
    const n = Math.max(0, Math.min(bytes, all.length));
    return all.subarray(all.length - n).toString("utf8");
  }
}
