/**
 * @module schema/checks-gen
 * Build-time only, never imported by lemon: what the two check generators (mcp-json.gen.ts,
 * skills.gen.ts) share. TypeBox compiles a schema to JavaScript source; the generators write that
 * source into a module so a cold listing validates with plain functions instead of loading TypeBox.
 * Each top-level statement of a generated module is written on one line, whitespace-minified by
 * Bun's transpiler: the file is data derived from the schemas, read by machines, and its repeated
 * check shapes are not code anyone maintains.
 */
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

/**
 * TypeBox's check for a schema as one expression. `free` names the identifiers the code may use
 * and the values to try it with (the manifest's `format`); anything else it needs at run time
 * (TypeBox's kind or hash registries) is refused.
 */
export function checkExpression(schema: TSchema, free: Record<string, unknown> = {}): string {
  const code = TypeCompiler.Code(schema, [], { language: "javascript" });
  if (/\b(?:kind|hash)\(/.test(code)) throw new Error("a schema needs TypeBox's kind or hash registry at run time");
  // It must run as written, with only the free identifiers passed in.
  const make = new Function(...Object.keys(free), code) as (...args: unknown[]) => (v: unknown) => boolean;
  make(...Object.values(free))({});
  return `(() => {\n${code}\n})()`;
}

const transpiler = new Bun.Transpiler({ loader: "js", minifyWhitespace: true });

/** A generated module: the header comment, then each statement (with its doc comment) minified to one line. */
export function generatedModule(header: string, statements: { doc: string; code: string }[]): string {
  const lines = [header, ""];
  for (const s of statements) lines.push(`/** ${s.doc} */`, transpiler.transformSync(s.code).trim());
  return `${lines.join("\n")}\n`;
}

/** Writes a generated module and its declarations (the generators' script mode). */
export async function writeGenerated(out: { js: string; dts: string }, jsPath: string, dtsPath: string): Promise<void> {
  await Bun.write(jsPath, out.js);
  await Bun.write(dtsPath, out.dts);
  console.log(`wrote ${jsPath} and ${dtsPath}`);
}
