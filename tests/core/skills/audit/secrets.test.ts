// hardcoded_secret and excerpt masking (issue 9 §2.9): every secret-shaped value is masked, a
// secret alone on its line is found, well-known formats are caught in any file, placeholders not.
import { expect, test } from "bun:test";
import { scanText } from "../../../../src/core/skills/audit/index.ts";
import { maskSecrets } from "../../../../src/core/skills/audit/rules/secrets.ts";

const ID = "AKIAZ7QW3XK2PL9MNB4V";
const SECRET = "q8Rt2ZxW9vLm4NpK7sJd3Hf6Gb1Yc5Ae0Ui8OoPz";
const secrets = (rel: string, text: string) => scanText(rel, text).filter((f) => f.rule === "hardcoded_secret");

test("an AWS key id and its secret on one line: both masked", () => {
  const [f] = secrets("deploy.env", `aws_access_key_id=${ID} aws_secret_access_key=${SECRET}\n`);
  expect(f!.excerpt).toBe("aws_access_key_id=AKIA**** aws_secret_access_key=****");
  expect(f!.excerpt).not.toContain(SECRET.slice(0, 8));
  expect(maskSecrets(`curl -u admin:${SECRET}x https://h.example -H "Authorization: Bearer ${SECRET}"`)).toBe(
    'curl -u admin:**** https://h.example -H "Authorization: Bearer ****"',
  );
  expect(maskSecrets("https://bob:hunter2hunter2@db.example/x")).toBe("https://bob:****@db.example/x");
  expect(maskSecrets('{"password": "correct-horse-battery"}')).toBe('{"password": "****"}');
  expect(maskSecrets("PASSWORD=hunter2 ./run")).toBe("PASSWORD=**** ./run");
});

test("a secret alone on its line, and an AWS secret on the line after its key id", () => {
  expect(secrets("notes/token.txt", "ghp_R8s7dK2mQ9vL4xT1pZ6wY3nB5cF0hJ8gA2eU\n").map((f) => f.line)).toEqual([1]);
  const pair = secrets("creds.ini", `[default]\n${ID}\n${SECRET}\n`);
  expect(pair.map((f) => [f.line, f.excerpt])).toEqual([
    [2, "AKIA****"],
    [3, "****"],
  ]);
  // Without a key id or a name beside it, a 40-character token is only masked, not reported.
  expect(secrets("x.txt", `${SECRET}\n`)).toEqual([]);
});

test("well-known formats in any file", () => {
  const tokens = [
    "ASIAZ7QW3XK2PL9MNB4V",
    "gho_R8s7dK2mQ9vL4xT1pZ6wY3nB5cF0hJ8gA2eU",
    "ghs_R8s7dK2mQ9vL4xT1pZ6wY3nB5cF0hJ8gA2eU",
    "github_pat_11AQ7ZP3KX0R8s7dK2mQ9vL4xT1pZ6wY3nB5cF0hJ8gA2eU",
    "xoxb-2444445671-9837465123-Zk3mQ9vL4xT1pZ6wY3nB5cF0",
    "sk_live_51HqLyjR8s7dK2mQ9vL4xT1pZ6wY3nB5",
    "AIzaSyR8s7dK2mQ9vL4xT1pZ6wY3nB5cF0hJ8gA",
    "sk-proj-R8s7dK2mQ9vL4xT1pZ6wY3nB5cF0hJ8gA2eU",
    "sk-ant-api03-R8s7dK2mQ9vL4xT1pZ6wY3nB5cF0hJ8gA2eUqwertzuiop",
    "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYWRtaW4iLCJvcmciOiJhY21lIn0.Zk3mQ9vL4xT1pZ6wY3nB5cF0",
  ];
  for (const tok of tokens) {
    for (const rel of ["config.yaml", "SKILL.md", "scripts/run.py", "data/settings.json"]) {
      const found = secrets(rel, `value: "${tok}"\n`);
      expect({ tok, rel, n: found.length }).toEqual({ tok, rel, n: 1 });
      expect(found[0]!.excerpt).not.toContain(tok.slice(-12));
    }
  }
  const pem =
    '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Qw3mZ\\n"}\n';
  const [p] = secrets("sa.json", pem);
  expect(p!.message).toBe("private key in the bundle");
  expect(p!.excerpt).not.toContain("MIIEvQIBADANBgkqhkiG9w0BAQEF");
});

test("placeholders and digests are not credentials", () => {
  const text = [
    "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "export OPENAI_API_KEY=sk-your-key-here",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "STRIPE_KEY=sk_live_<your-key>",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  b.tar",
  ].join("\n");
  expect(secrets("README.md", text + "\n")).toEqual([]);
});
