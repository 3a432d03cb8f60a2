/**
 * @module mcp/jsonc
 * JSON with comments and trailing commas (OpenCode, VS Code). A small scanner turns JSONC into
 * JSON and JSON.parse does the rest, so no parser library loads on the `mcp list` hot path.
 * Read-only: lemon never writes these files.
 */

/** Removes `//` and `/* *\/` comments and trailing commas outside strings. */
export function jsoncToJson(text: string): string {
  let out = "";
  let i = 0;
  const n = text.length;
  // Index in `out` of a comma that may turn out to be trailing.
  let pendingComma = -1;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      pendingComma = -1;
      i = j + 1;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
      out += " ";
      continue;
    }
    if (c === ",") {
      pendingComma = out.length;
      out += c;
      i++;
      continue;
    }
    if ((c === "}" || c === "]") && pendingComma >= 0) {
      out = out.slice(0, pendingComma) + " " + out.slice(pendingComma + 1);
    }
    if (!/\s/.test(c)) pendingComma = -1;
    out += c;
    i++;
  }
  return out;
}

export function parseJsonc(text: string): unknown {
  return JSON.parse(jsoncToJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
}
