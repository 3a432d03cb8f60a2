/**
 * @module skills/audit/rules/secrets
 * `hardcoded_secret` (install.md §7.3): live-looking tokens of well-known formats, AWS secret keys
 * beside their key id, and private keys committed in the bundle, in any text file. Documentation
 * placeholders are ignored; `maskSecrets` keeps every secret-shaped value out of excerpts.
 */
import type { LineRule } from "./types.ts";

/** Token formats with a fixed prefix, so a match is a credential unless it is a placeholder. */
const TOKEN_SRC = [
  String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{36,}\b`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{22,}\b`,
  String.raw`\bglpat-[A-Za-z0-9_-]{20,}\b`,
  String.raw`\bxox[abposre]-[A-Za-z0-9-]{10,}\b`,
  String.raw`\bxapp-\d-[A-Za-z0-9-]{20,}\b`,
  String.raw`\bsk-(?:proj-|live-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?[A-Za-z0-9_-]{20,}\b`,
  String.raw`\b[sr]k_live_[A-Za-z0-9]{20,}\b`,
  String.raw`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b`,
  String.raw`\bAIza[0-9A-Za-z_-]{35}\b`,
  String.raw`\bnpm_[A-Za-z0-9]{36}\b`,
  String.raw`\bhf_[A-Za-z0-9]{34,}\b`,
  String.raw`\bpypi-AgE[A-Za-z0-9_-]{50,}`,
  String.raw`\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`,
  String.raw`\bdop_v1_[a-f0-9]{64}\b`,
  String.raw`https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}`,
];
const TOKEN_G = new RegExp(TOKEN_SRC.join("|"), "g");
const PREFIX =
  /^(?:AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox[abposre]-|xapp-|sk-(?:proj-|live-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?|[sr]k_live_|eyJ|AIza|npm_|hf_|pypi-|SG\.|dop_v1_|https:\/\/hooks\.slack\.com\/services\/)/;

/** An AWS secret access key: 40 characters of base64 with both cases and a digit. */
const AWS_SECRET_G = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const AWS_SECRET_NAME = /aws_?secret_?(?:access_?)?key|secret_?access_?key|SecretAccessKey/i;
const AWS_KEY_ID = /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/;
/** A literal value assigned to a secret-named key (`API_KEY=…`, `"password": "…"`, `token: …`). */
const NAMED_VALUE_G =
  /\b([A-Za-z0-9_.-]*(?:secret|token|passw(?:or)?d|api_?key|apikey|access_?key|private_?key|client_?secret|auth)[A-Za-z0-9_]*)(["']?\s*[:=]\s*["']?)(?!(?:Bearer|Basic|Token|token)\s)([^\s"'`$<>{}(),;]{4,})/gi;
const BEARER_G = /\b(Bearer|Basic|token)(\s+)([A-Za-z0-9._~+/=-]{16,})/g;
/** Any long random-looking token (both cases and a digit): key bodies, generic API keys. */
const LONG_TOKEN_G = /(?<![A-Za-z0-9/+=_-])[A-Za-z0-9/+=_-]{32,}(?![A-Za-z0-9/+=_-])/g;
const USERINFO_G = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)([^\s/@]+)(@)/gi;

const PLACEHOLDER =
  /example|sample|placeholder|dummy|fake|redacted|your|xxxx|\.\.\.|\*\*\*|<|>|0000000|1234567|abcdef|test|changeme/i;
/** jwt.io's famous sample token and friends decode to these. */
const SAMPLE_JWT = /"sub"\s*:\s*"1234567890"|John Doe|"name"\s*:\s*"test/;

const mixed = (s: string) => /[a-z]/.test(s) && /[A-Z]/.test(s) && /[0-9]/.test(s);

function isPlaceholder(tok: string): boolean {
  if (PLACEHOLDER.test(tok)) return true;
  const body = tok.replace(PREFIX, "");
  if (new Set(body).size < 8) return true; // sk-aaaaaaaa…, ghp_000…
  if (tok.startsWith("eyJ")) {
    try {
      const payload = Buffer.from(tok.split(".")[1] ?? "", "base64url").toString("utf8");
      if (SAMPLE_JWT.test(payload)) return true;
    } catch {
      return false;
    }
  }
  // Hyphenated words (sk-my-secret-key-name) are descriptions, not keys.
  if (tok.startsWith("sk-") && /^[a-z]+(?:-[a-z]+){2,}$/.test(body)) return true;
  return false;
}

/** A 40-character AWS secret on this line, judged real only beside its name or a key id. */
function awsSecret(line: string, nearKeyId: boolean): string | null {
  if (!nearKeyId && !AWS_SECRET_NAME.test(line)) return null;
  for (const m of line.matchAll(AWS_SECRET_G)) if (mixed(m[0]) && !isPlaceholder(m[0])) return m[0];
  return null;
}

/**
 * Masks every secret-shaped value in a line as `****`: tokens keep their prefix (so the reader
 * knows the kind); values of secret-named keys, bearer tokens, URL passwords and long random-looking
 * tokens (AWS secrets, key bodies) go whole.
 */
export function maskSecrets(line: string): string {
  let s = line.replace(TOKEN_G, (tok) => (PREFIX.exec(tok)?.[0] ?? "") + "****");
  s = s.replace(NAMED_VALUE_G, (all, name: string, sep: string, value: string) =>
    value.endsWith("****") ? all : `${name}${sep}****`,
  );
  s = s.replace(BEARER_G, (_all, kind: string, sp: string) => `${kind}${sp}****`);
  s = s.replace(USERINFO_G, "$1****$3");
  return s.replace(LONG_TOKEN_G, (tok) => (mixed(tok) ? "****" : tok));
}

export const hardcodedSecret: LineRule = {
  rule: "hardcoded_secret",
  keywords: [
    "akia",
    "asia",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xox",
    "xapp-",
    "sk-",
    "k_live_",
    "eyj",
    "aiza",
    "npm_",
    "hf_",
    "pypi-",
    "sg.",
    "dop_v1_",
    "hooks.slack.com",
    "secret",
  ],
  category: "credentials",
  quick:
    /AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox[abposre]-|xapp-|\bsk-|k_live_|eyJ|AIza|npm_|hf_|pypi-|SG\.|dop_v1_|hooks\.slack|secret/i,
  check(line) {
    for (const m of line.matchAll(TOKEN_G)) {
      if (isPlaceholder(m[0])) continue;
      return { severity: "high", message: "hard-coded credential" };
    }
    if (awsSecret(line, false) !== null) return { severity: "high", message: "hard-coded AWS secret access key" };
    return null;
  },
};

/** Lines (0-based, of `count` read through `lineAt`) holding a bare AWS secret within 3 lines of a real key id. */
export function awsSecretsNearKeyIds(count: number, lineAt: (i: number) => string | undefined): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const id = AWS_KEY_ID.exec(lineAt(i) ?? "");
    if (id === null || isPlaceholder(id[0])) continue;
    for (let j = Math.max(0, i - 3); j <= Math.min(count - 1, i + 3); j++)
      if (awsSecret(lineAt(j) ?? "", true) !== null && !out.includes(j)) out.push(j);
  }
  return out;
}

const PEM_G =
  /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----(?:[ \t]*\r?\n(?:[A-Za-z-]+:[^\n]*\r?\n)*(?:\r?\n)?[ \t]*|\\(?:r\\)?n)[A-Za-z0-9+/=]{40,}/g;

/** Offsets of PEM private keys with a real body, raw or JSON-escaped (`"-----BEGIN…\nMII…"`). */
export function pemKeys(text: string): number[] {
  if (!text.includes("PRIVATE KEY")) return [];
  return Array.from(text.matchAll(PEM_G), (m) => m.index);
}
