/**
 * @module hash
 * The one sha256 of lemon's core: content hashes, bundle hashes, audit fingerprints, scope ids.
 * Bun's hasher, because loading node:crypto costs milliseconds at the start of every command.
 */

/** sha256 of bytes or UTF-8 text, lower-case hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}
