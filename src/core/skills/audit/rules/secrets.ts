/**
 * @module skills/audit/rules/secrets
 * `hardcoded_secret` (install.md §7.3): live-looking tokens and private keys committed in the
 * bundle. Documentation placeholders are ignored; values never reach a finding unmasked.
 */
import type { LineRule } from "./types.ts";

const SECRET_G =
  /\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}\b|\bglpat-[A-Za-z0-9_-]{20,}\b|\bxox[abposr]-[A-Za-z0-9-]{10,}\b|\bsk-(?:proj-|live-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}\b|\b[sr]k_live_[A-Za-z0-9]{20,}\b|\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b|\bAIza[0-9A-Za-z_-]{35}\b/g;

const PLACEHOLDER = /example|sample|placeholder|dummy|fake|redacted|your|xxxx|XXXX|\.\.\.|\*\*\*|<|>|0000000|1234567|abcdef|ABCDEF|test/i;
/** jwt.io's famous sample token and friends decode to these. */
const SAMPLE_JWT = /"sub"\s*:\s*"1234567890"|John Doe|"name"\s*:\s*"test/;

function isPlaceholder(tok: string): boolean {
  if (PLACEHOLDER.test(tok)) return true;
  const body = tok.replace(/^(?:AKIA|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-(?:proj-|live-|ant-(?:api\d\d-)?)?|[sr]k_live_|AIza)/, "");
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

/** Masks every secret in a line as `****` (prefix kept so the reader knows which kind). */
export function maskSecrets(line: string): string {
  return line.replace(SECRET_G, (tok) => {
    const keep = /^(?:AKIA|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-|[sr]k_live_|eyJ|AIza)/.exec(tok)?.[0] ?? "";
    return keep + "****";
  });
}

export const hardcodedSecret: LineRule = {
  rule: "hardcoded_secret",
  keywords: ["akia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "sk-", "k_live_", "eyj", "aiza"],
  category: "credentials",
  quick: /AKIA|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|\bsk-|k_live_|eyJ|AIza/,
  check(line) {
    for (const m of line.matchAll(SECRET_G)) {
      if (isPlaceholder(m[0])) continue;
      return { severity: "high", message: "hard-coded credential" };
    }
    return null;
  },
};

const PEM_G =
  /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----[ \t]*\r?\n(?:[A-Za-z-]+:[^\n]*\r?\n)*(?:\r?\n)?[ \t]*[A-Za-z0-9+/=]{40,}[ \t]*\r?\n/g;

/** Offsets of PEM private keys with a real body (a header followed by `...` is documentation). */
export function pemKeys(text: string): number[] {
  if (!text.includes("PRIVATE KEY")) return [];
  return Array.from(text.matchAll(PEM_G), (m) => m.index);
}
