/**
 * @module skills/search/synonyms
 * English software shorthand and the words skill descriptions spell out instead (issue 16 item 1):
 * "k8s" for Kubernetes, "e2e" for end-to-end, a test runner's name for the kind of test it runs.
 * Written from general software vocabulary, never from the labelled requests; a query word's
 * synonyms count toward that word's coverage slot at a reduced weight (score.ts).
 */

/** Folded query word (or space-separated phrase) -> English words to add. */
export const SYNONYMS: Readonly<Record<string, string>> = {
  e2e: "end to end",
  "end to end": "e2e",
  k8s: "kubernetes",
  kube: "kubernetes",
  kubernetes: "k8s",
  js: "javascript",
  ts: "typescript",
  py: "python",
  golang: "go",
  db: "database",
  dbs: "databases",
  repo: "repository",
  repos: "repositories",
  pr: "pull request",
  prs: "pull requests",
  mr: "merge request",
  ci: "continuous integration pipeline",
  auth: "authentication",
  authn: "authentication",
  authz: "authorization",
  config: "configuration",
  cfg: "configuration",
  env: "environment",
  deps: "dependencies",
  perf: "performance",
  docs: "documentation",
  i18n: "internationalization translation",
  l10n: "localization translation",
  a11y: "accessibility",
  regex: "regular expression",
  regexp: "regular expression",
  postgres: "postgresql",
  mongo: "mongodb",
  gh: "github",
  tf: "terraform",
  llm: "language model",
  gql: "graphql",
  cli: "command line",
  ui: "interface frontend",
  ux: "user experience",
  img: "image",
  imgs: "images",
  pic: "image",
  pics: "images",
  vid: "video",
  msg: "message",
  cypress: "e2e end to end browser test",
  playwright: "e2e end to end browser test",
  selenium: "e2e browser test",
  puppeteer: "browser automation",
  jest: "javascript test",
  vitest: "test",
  mocha: "javascript test",
  pytest: "python test",
  junit: "java test",
  flaky: "intermittent unstable test",
  flake: "flaky intermittent test",
  dockerfile: "docker container",
  containerize: "docker container",
  helm: "kubernetes chart",
  xlsx: "excel spreadsheet",
  spreadsheet: "excel xlsx",
  docx: "word document",
  pptx: "powerpoint presentation",
  slides: "presentation",
  deck: "presentation slides",
  changelog: "release notes",
  webhook: "http callback",
  ado: "azure devops",
  ef: "entity framework",
  gcp: "google cloud",
  sso: "single sign on",
  jwt: "token authentication",
  cert: "certificate",
  certs: "certificates",
  tls: "ssl certificate",
  vm: "virtual machine",
  vms: "virtual machines",
  md: "markdown",
  yml: "yaml",
  ml: "machine learning",
};

const PHRASES = Object.keys(SYNONYMS).filter((k) => k.includes(" "));

/** [word or phrase, English to add] for every synonym key met in a folded query's words. */
export function synonymsOf(folded: string, words: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (const w of words) {
    const v = Object.hasOwn(SYNONYMS, w) ? SYNONYMS[w] : undefined;
    if (v !== undefined) out.push([w, v]);
  }
  if (PHRASES.length > 0) {
    const joined = ` ${words.join(" ")} `;
    for (const p of PHRASES) if (joined.includes(` ${p} `) && folded.length > 0) out.push([p, SYNONYMS[p]!]);
  }
  return out;
}
