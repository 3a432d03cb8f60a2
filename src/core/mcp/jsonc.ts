/**
 * @module mcp/jsonc
 * JSON with comments and trailing commas (OpenCode, VS Code), read with Bun's native JSONC
 * parser: no parser library, and no cold JavaScript scanner on the `mcp list` hot path.
 * Read-only: lemon never writes these files.
 */

/** Parses JSONC (a leading BOM is dropped); throws on invalid input like JSON.parse. */
export function parseJsonc(text: string): unknown {
  return Bun.JSONC.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
}
