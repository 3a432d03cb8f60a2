/**
 * @module mcp/trust-review
 * How a trust review (mcp.md §4.4) shows where the user's secrets would go without showing them:
 * the URL's userinfo and query, header and env values keep their `${NAME}` placeholders while
 * literal text shows as `****`, and the variables whose values would leave are listed by name.
 */

const PLACEHOLDER = /\$\{[^}]*\}/g;
/** Editor placeholders that name no environment variable (mcp.md §4.2). */
const BUILTIN = new Set(["workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/"]);
const MASK = "****";

/** A placeholder as shown: its name, a default's literal text masked. */
function shownPlaceholder(p: string): string {
  const body = p.slice(2, -1);
  const dflt = body.indexOf(":-");
  return dflt < 0 ? p : `\${${body.slice(0, dflt)}:-${body.length > dflt + 2 ? MASK : ""}}`;
}

/**
 * A value with its placeholders kept and every run of literal text as `****`; a leading
 * `Bearer `/`Basic `/`Token ` scheme word stays, since it says what kind of credential follows.
 */
export function maskLiterals(v: string): string {
  const scheme = /^(Bearer|Basic|Token) /i.exec(v)?.[0] ?? "";
  const rest = v.slice(scheme.length);
  let out = "";
  let last = 0;
  for (const m of rest.matchAll(PLACEHOLDER)) {
    if ((m.index ?? 0) > last) out += MASK;
    out += shownPlaceholder(m[0]);
    last = (m.index ?? 0) + m[0].length;
  }
  if (last < rest.length) out += MASK;
  return scheme + out;
}

/**
 * The URL as a review shows it: `where` (scheme, host, path) from `expand`, userinfo and query
 * values masked by `maskLiterals` from the text as written; the fragment is never sent.
 */
export function reviewUrl(written: string, expand: (s: string) => string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*@)?([^?#]*)(\?[^#]*)?/i.exec(written);
  if (!m) return maskLiterals(written);
  const userinfo = m[2] ? `${m[2].slice(0, -1).split(":").map(maskLiterals).join(":")}@` : "";
  const query = m[4]
    ? `?${m[4]
        .slice(1)
        .split("&")
        .map((p) => {
          const eq = p.indexOf("=");
          return eq < 0
            ? maskLiterals(p)
            : `${p.slice(0, eq + 1)}${p.length > eq + 1 ? maskLiterals(p.slice(eq + 1)) : ""}`;
        })
        .join("&")}`
    : "";
  return `${m[1]}${userinfo}${expand(m[3] ?? "")}${query}`;
}

/** The environment variables a text's placeholders read (`${VAR}`, `${VAR:-x}`, `${env:VAR}`). */
export function referencedVars(texts: Iterable<string>, editor: boolean): string[] {
  const out = new Set<string>();
  for (const t of texts)
    for (const m of t.matchAll(PLACEHOLDER)) {
      let body = m[0].slice(2, -1);
      if (editor && BUILTIN.has(body)) continue;
      if (editor && body.startsWith("env:")) body = body.slice(4);
      const dflt = body.indexOf(":-");
      const name = dflt < 0 ? body : body.slice(0, dflt);
      if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) out.add(name);
    }
  return [...out].sort();
}
