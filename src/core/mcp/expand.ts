/**
 * @module mcp/expand
 * `${…}` placeholders (mcp.md §3.2, §4.2), expanded at connect time and never written back.
 * lemon sources know `${VAR}` and `${VAR:-default}`; the editors' JSON formats add `${env:VAR}`,
 * `${workspaceFolder}`, `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}` and `${/}`;
 * Codex does no expansion. Unresolved placeholders stay literal and are reported by name only.
 */
import { basename, sep } from "node:path";
import type { McpServerConfig, VariableSyntax } from "./types.ts";

export interface ExpandVars {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  homeDir: string;
}

const PLACEHOLDER = /\$\{([^}]*)\}/g;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function expandString(s: string, syntax: VariableSyntax, vars: ExpandVars, unresolved: Set<string>): string {
  if (syntax === "none" || !s.includes("${")) return s;
  return s.replace(PLACEHOLDER, (whole, body: string) => {
    if (syntax === "editor") {
      if (body === "workspaceFolder") return vars.cwd;
      if (body === "workspaceFolderBasename") return basename(vars.cwd);
      if (body === "userHome") return vars.homeDir;
      if (body === "pathSeparator" || body === "/") return sep;
      if (body.startsWith("env:")) {
        const name = body.slice(4);
        const v = vars.env[name];
        if (v !== undefined) return v;
        unresolved.add(name);
        return whole;
      }
    }
    const dflt = body.indexOf(":-");
    const name = dflt >= 0 ? body.slice(0, dflt) : body;
    if (!VAR_NAME.test(name)) {
      unresolved.add(name);
      return whole;
    }
    const v = vars.env[name];
    if (v !== undefined && (dflt < 0 || v !== "")) return v;
    if (dflt >= 0) return body.slice(dflt + 2);
    unresolved.add(name);
    return whole;
  });
}

/** The entry as it will connect, plus `unresolved variable <VAR>` warnings. */
export function expandEntry(
  entry: McpServerConfig,
  syntax: VariableSyntax,
  vars: ExpandVars,
): { entry: McpServerConfig; warnings: string[] } {
  const unresolved = new Set<string>();
  const x = (s: string) => expandString(s, syntax, vars, unresolved);
  const mapValues = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, x(v)]));
  const out: McpServerConfig = { ...entry };
  if (typeof entry.command === "string") out.command = x(entry.command);
  if (entry.args) out.args = entry.args.map(x);
  if (entry.env) out.env = mapValues(entry.env);
  if (typeof entry.cwd === "string") out.cwd = x(entry.cwd);
  if (typeof entry.url === "string") out.url = x(entry.url);
  if (entry.headers) out.headers = mapValues(entry.headers);
  return { entry: out, warnings: [...unresolved].map((n) => `unresolved variable ${n}`) };
}
