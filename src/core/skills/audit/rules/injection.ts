/**
 * @module skills/audit/rules/injection
 * Text aimed at the model rather than the user (install.md §7.3): `prompt_injection` phrasing,
 * hidden HTML comments and `display:none` blocks carrying instructions, and `hidden_unicode`
 * (tag characters, bidi overrides, zero-width and filler characters, variation-selector smuggling,
 * mixed-script look-alike words).
 */
import { garbagePacer, type Hit, type LineRule } from "./types.ts";

const INJECTION = [
  /\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|of|my|these|those|every)\s+)*(?:previous|prior|above|earlier|preceding|original|system|initial|safety)\s+(?:instructions?|prompts?|rules|directions|guidelines|messages|context|constraints|guardrails)/i,
  /\byou\s+are\s+now\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|malicious|DAN\b|in\s+(?:developer|god|DAN|jailbreak)\s+mode|free\s+(?:of|from)\s+(?:all\s+)?(?:restrictions|rules|guidelines)|no\s+longer\s+(?:bound|restricted))/i,
  /\b(?:act|behave|respond|answer)\s+as\b.{0,60}\b(?:without|with\s+no)\s+(?:any\s+)?(?:restrictions|limits|limitations|filters|guidelines|rules|censorship|safety|ethical)/i,
  /\bpretend\b.{0,40}\byou\s+(?:have\s+no\s+(?:restrictions|rules|guidelines)|are\s+not\s+bound)/i,
  /\bno\s+longer\s+(?:bound|restricted|constrained)\s+by\s+(?:your|any|the)\b/i,
  /\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|warn)\s+the\s+user\b(?!\s+(?:to|how)\b)/i,
  /\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose|show)\s+(?:this|these|it|that)\s+(?:\w+\s+)?to\s+the\s+user\b/i,
  /\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b/i,
  /\b(?:hide|conceal)\s+(?:this|it|these\s+\w+|the\s+\w+)\s+from\s+the\s+user\b/i,
  /\bsystem\s+prompt\s+override\b|\boverride\s+(?:the\s+|your\s+)?system\s+prompt\b|\bnew\s+system\s+prompt\s*:/i,
  /\b(?:enable|enter|activate|switch\s+to)\s+(?:DAN|jailbreak)\s+mode\b|\bdo\s+anything\s+now\b|\byou\s+are\s+(?:now\s+)?in\s+developer\s+mode\b|\bdeveloper\s+mode\s+(?:is\s+)?(?:enabled|activated)\b[^.]{0,40}\byou\b/i,
];

/** "You are DAN", "act as DAN": upper-case only, so the name Dan is not a persona. */
const DAN =
  /\b(?:[Yy]ou(?:'re|\s+are)\s+(?:now\s+)?(?:going\s+to\s+)?(?:be\s+|act\s+as\s+|play(?:ing)?\s+)?|(?:[Aa]ct|[Pp]retend|[Rr]ole-?play)\s+(?:as|to\s+be)\s+|\b[Aa]s\s+)(?:an?\s+)?DAN\b/;
/** Developer mode as a jailbreak: tied to the model or its rules (Chrome's and Android's are not). */
const DEVELOPER_MODE = [
  /\b(?:enter|enable|activate|switch\s+(?:in)?to|turn\s+on|now\s+(?:in|have))\s+(?:the\s+)?developer\s+mode\b.{0,80}\b(?:AI|assistant|model|LLM|restrictions?|polic(?:y|ies)|filters?|censor\w*|guidelines|content\s+rules|safety)\b/i,
  /\b(?:with|in)\s+developer\s+mode\s+(?:enabled|on|activated)\b.{0,80}\b(?:you|your|AI|assistant|model|restrictions?|polic(?:y|ies))\b/i,
  /\bdeveloper\s+mode\b.{0,60}\b(?:no|without|ignores?|ignoring|bypass\w*|free\s+of)\s+(?:any\s+|all\s+)?(?:restrictions|rules|filters|polic(?:y|ies)|guidelines|censorship|limits)/i,
  /\bjailbr(?:eak|oken)\s+mode\b/i,
  /\b(?:ChatGPT|GPT-?\d?|Claude|Gemini|the\s+AI|the\s+model|an?\s+AI|assistant)\s+(?:with|in)\s+developer\s+mode\b/i,
  /\b(?:enable|enter|activate|switch\s+(?:in)?to)\s+(?:god|unrestricted|unfiltered|uncensored|evil)\s+mode\b/i,
  /\bignore\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:instructions|rules|guidelines)\s+(?:you\s+(?:got|were\s+given|received|have\s+been\s+given)|given\s+to\s+you)\b/i,
  /\bforget\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been)\s+told|above|before|previously|(?:in\s+)?your\s+(?:instructions|prompt))\b/i,
  /^\s*(?:#+\s*|\*\*)?new\s+(?:system\s+)?instructions\s*(?:\*\*)?\s*:/i,
  /\b(?:ignore|disregard|forget|bypass)\s+(?:all\s+)?(?:of\s+)?your\s+(?:(?:previous|prior|own|safety|content|ethical)\s+)?(?:instructions|guidelines|rules|restrictions|policies|programming|training|guardrails|filters)\b/i,
  /\b(?:reveal|print|output|repeat|dump|leak|show)\s+(?:me\s+)?(?:your|the)\s+(?:full\s+|entire\s+|hidden\s+)?system\s+prompt\b/i,
];

/**
 * Telling the agent to fetch remote text and do what it says ("download https://… and follow
 * the instructions in it", "your real instructions are at https://…"). Judged around each URL
 * (the text just before and after it), so the cost stays linear in the line.
 */
const FETCH_BEFORE =
  /\b(?:fetch|download|retrieve|grab|pull|load|read|open|visit|curl|wget|check|get|consult|poll|query|access|browse|(?:navigate|go)\s+to)\b/i;
const OBEY_AFTER =
  /\b(?:follow|obey|execute|run|apply|comply\s+with|carry\s+out|do\s+(?:exactly\s+)?(?:what|whatever|as)|act\s+on|adopt)\b[^\n]{0,40}?\b(?:instructions?|commands?|directives?|orders|it\s+says|they\s+say|its\s+contents?|the\s+contents?|them|it)\b|\b(?:treat|use)\s+(?:it|them|its\s+contents?|the\s+contents?|the\s+(?:text|file|response))\s+as\s+(?:your\s+)?(?:new\s+)?(?:system\s+prompt|instructions|rules|orders)\b|\bwhatever\s+(?:it|they|the\s+(?:page|file|text|response|document))\s+(?:says|tells\s+you|asks)\b/i;
/** Instructions named before the URL ("the latest instructions are hosted at …, follow them"). */
const INSTRUCTIONS_BEFORE = /\b(?:instructions|directives|orders)\b/i;
const NEW_INSTRUCTIONS_BEFORE =
  /\b(?:fetch|download|retrieve|load|pull|check)\b[^\n]{0,60}?\b(?:new|latest|updated|further|additional|remote|real)\s+instructions\b[^\n]{0,60}$/i;
const HOLDS_INSTRUCTIONS_AFTER =
  /^\S*[^\n]{0,60}?\b(?:contains?|has|holds)\s+(?:your\s+)?(?:new|real|updated|actual|further)\s+instructions\b/i;
const INSTRUCTIONS_ARE_AT =
  /\b(?:your\s+(?:(?:real|actual|new|updated|latest|current)\s+)?|(?:the\s+)?(?:real|actual|new|updated|latest|remote)\s+)(?:instructions|orders|directives)\s+(?:are|live|is|can\s+be\s+found)\s+(?:(?:hosted|published|kept|stored|available)\s+)?(?:at|in|on)\s+$/i;
const OBEY_RETURNED =
  /\b(?:follow|obey|execute|comply\s+with)\s+(?:the\s+|all\s+)?(?:instructions|commands|directives)\s+(?:returned|served|fetched|downloaded)\s+(?:by|from|at)\b/i;
const URL_AT_G = /https?:\/\/\S+/g;

function remoteInstructions(line: string): boolean {
  if (OBEY_RETURNED.test(line)) return true;
  for (const m of line.matchAll(URL_AT_G)) {
    const before = line.slice(Math.max(0, m.index - 120), m.index);
    const after = line.slice(m.index + m[0].length, m.index + m[0].length + 160);
    const near = before.slice(-80);
    if ((FETCH_BEFORE.test(near) || INSTRUCTIONS_BEFORE.test(near)) && OBEY_AFTER.test(after.slice(0, 120)))
      return true;
    if (NEW_INSTRUCTIONS_BEFORE.test(before) || INSTRUCTIONS_ARE_AT.test(before)) return true;
    if (HOLDS_INSTRUCTIONS_AFTER.test(after)) return true;
  }
  return false;
}

/** Across lines only plain obedience counts ("run it" after a docs link is how install guides talk). */
const OBEY_HINT =
  /\b(?:follow|obey|comply|carry\s+out|do\s+(?:exactly\s+)?(?:what|whatever|as)|act\s+on|adopt|treat|whatever)\b/i;

/**
 * 1-based lines where a URL is named and the text around it, across lines, says to obey what it
 * returns ("Use WebFetch to read <url>" / "Treat its contents as your new instructions"; "retrieve
 * the policy:" / <url> / "Follow it exactly"). A URL line is joined with the nearest non-blank line
 * before and after it (one blank line skipped), so the pass stays linear.
 */
export function remoteInstructionsAcrossLines(count: number, lineAt: (i: number) => string | undefined): number[] {
  const out: number[] = [];
  const pace = garbagePacer();
  const near = (i: number, step: 1 | -1): string => {
    for (let k = i + step, n = 0; n < 2 && k >= 0 && k < count; k += step, n++) {
      const t = lineAt(k)!.trim();
      if (t !== "") return t.length > 200 ? (step === 1 ? t.slice(0, 200) : t.slice(-200)) : t;
    }
    return "";
  };
  for (let i = 0; i < count; i++) {
    const line = lineAt(i)!;
    if (!/https?:\/\//i.test(line)) continue;
    pace();
    const next = near(i, 1);
    if (!OBEY_HINT.test(next) || remoteInstructions(line)) continue;
    const own = line.length > 400 ? line.slice(-400) : line;
    const around = `${near(i, -1)} ${own.trim()} ${next}`;
    if (remoteInstructions(`${own} ${next}`) || remoteInstructions(around)) out.push(i + 1);
  }
  return out;
}

/** The first injection phrase in a text, or null. */
export function injectionPhrase(text: string): boolean {
  return INJECTION.some((re) => re.test(text)) || DAN.test(text) || DEVELOPER_MODE.some((re) => re.test(text));
}

/**
 * Closing tags, `<system>`-style blocks and chat-template tokens: a value trying to end its field.
 * Placeholders (`argument-hint: "<file or context>"`) are not tags: words inside, no attributes.
 */
const PROMPT_MARKUP =
  /<\/[A-Za-z_][\w:.-]*\s*>|<\s*(?:system|assistant|human|instructions?|system_prompt|tool_call|function_calls|antml:[\w-]+|skill|available_skills|im_start|im_end)(?:\s+[\w:-]+\s*=[^>]*)?\s*\/?>|<\|[a-z_]+\|>|\[\/?INST\]|<<\/?SYS>>|(?:^|\s)(?:Human|Assistant|System)\s*:\s/i;

/** 1-based lines of SKILL.md's frontmatter whose value carries prompt-structure markup (`lineAt` 0-based). */
export function frontmatterMarkup(lineAt: (i: number) => string | undefined): number[] {
  // YAML (`---`) or TOML (`+++`, `key = "value"`): an agent may read either as the skill's fields.
  const fence = lineAt(0)?.replace(/\r$/, "");
  if (fence !== "---" && fence !== "+++") return [];
  const key = fence === "---" ? /^\s*(?:-\s+)?[\w.-]+\s*:\s?/ : /^\s*["']?[\w.-]+["']?\s*=\s*/;
  const out: number[] = [];
  for (let i = 1; i < 500; i++) {
    const line = lineAt(i)?.replace(/\r$/, "");
    if (line === undefined) break;
    if (line === fence || (fence === "---" && line === "...")) break;
    const value = line.replace(key, "");
    if (PROMPT_MARKUP.test(value)) out.push(i + 1);
  }
  return out;
}

export const promptInjection: LineRule = {
  rule: "prompt_injection",
  keywords: [
    "ignore",
    "disregard",
    "forget",
    "override",
    "bypass",
    "are now",
    "act as",
    "behave",
    "respond",
    "answer",
    "pretend",
    "no longer",
    "the user",
    "the\tuser",
    "system prompt",
    "mode",
    "anything",
    "dan",
    "instructions",
    "follow",
    "obey",
    "execute",
    "comply",
    "carry out",
    "do what",
    "do whatever",
    "do as",
    "act on",
    "adopt",
    "treat",
    "forget",
    "new instructions",
    "whatever",
  ],
  category: "injection",
  quick:
    /ignore|disregard|forget|override|bypass|you\s+are\s+now|\b(?:act|behave|respond|answer)\s+as\b|pretend|no\s+longer|the\s+user\b|system\s+prompt|(?:DAN|jailbreak|developer|god|unrestricted|unfiltered|uncensored|evil)\s+mode|system\s+prompt|(?:instructions|orders|directives)\s+(?:are|live|is|can)|\bobey\b|\bcomply\b|forget\s+(?:everything|all)|new\s+(?:system\s+)?instructions|anything\s+now|\bDAN\b|https?:\/\/[^\n]*(?:follow|obey|execute|\brun\b|apply|comply|carry\s+out|\bdo\s+(?:what|as)|act\s+on|adopt|treat|whatever|instructions)|instructions[^\n]*https?:\/\//i,
  check(line) {
    if (injectionPhrase(line)) return { severity: "high", message: "prompt-injection phrasing" };
    if (remoteInstructions(line))
      return { severity: "high", message: "tells the agent to fetch remote instructions and follow them" };
    return null;
  },
};

const COVERT =
  /\b(?:secretly|silently|covertly|quietly)\b|\bwithout\s+(?:telling|informing|notifying)\b|\b(?:do\s+not|don't|never)\s+(?:tell|mention|reveal|show)\b/i;
const AI_NOUN = /\b(?:assistant|AI|LLM|the\s+model|the\s+agent|Claude|GPT|Codex|Copilot|Gemini)\b/i;
const IMPERATIVE =
  /\b(?:ignore|disregard|you\s+must|must|always|never|do\s+not|don't|run|execute|send|upload|post|fetch|curl|wget|delete|remove|read|copy|include|append|install|exfiltrate|override|output|reply|respond|say)\b/i;
const DANGEROUS =
  /\b(?:curl|wget|bash|sh\s+-c|rm\s+-rf|base64|\.ssh|id_rsa|token|password|secret|api[_ -]?key|credentials?|env(?:ironment)?\s+variables?)\b/i;

/** Does hidden text (an HTML comment, a display:none block) carry instructions? */
export function hiddenInstructions(text: string): boolean {
  if (injectionPhrase(text) || COVERT.test(text)) return true;
  if (AI_NOUN.test(text) && IMPERATIVE.test(text)) return true;
  return DANGEROUS.test(text) && /\b(?:run|execute|send|upload|post|read|copy|include|append|fetch)\b/i.test(text);
}

const HTML_COMMENT_G = /<!--([\s\S]{0,8000}?)-->/g;
const HIDDEN_BLOCK_G =
  /<(\w+)\b[^>]*\bstyle\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px)?\s*[;"']|opacity\s*:\s*0\s*[;"'])[^>]*>([\s\S]{0,8000}?)<\/\1>|<(\w+)\b[^>]*\bhidden\b[^>]*>([\s\S]{0,8000}?)<\/\3>/gi;

export interface OffsetHit extends Hit {
  offset: number;
}

/** File-level part of `prompt_injection`: hidden comments and blocks with imperatives. */
export function hiddenBlocks(text: string): OffsetHit[] {
  const out: OffsetHit[] = [];
  if (text.includes("<!--")) {
    for (const m of text.matchAll(HTML_COMMENT_G))
      if (hiddenInstructions(m[1]!))
        out.push({ offset: m.index, severity: "high", message: "hidden HTML comment with instructions" });
  }
  if (/display|visibility|font-size|opacity|hidden/i.test(text)) {
    for (const m of text.matchAll(HIDDEN_BLOCK_G))
      if (hiddenInstructions(m[2] ?? m[4] ?? ""))
        out.push({ offset: m.index, severity: "high", message: "hidden HTML block with instructions" });
  }
  return out;
}

const TAGS = /[\u{E0000}-\u{E007F}]/u;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/u;
const ZERO_WIDTH_G = /[\u200B-\u200D\u2060\uFEFF\u2061-\u2064\u115F\u1160\u3164\uFFA0\u180E]/gu;
const VS_RUN =
  /[\u{E0100}-\u{E01EF}]{4,}|(?<![\p{Extended_Pictographic}\u20E3\u{1F3FB}-\u{1F3FF}])[\uFE00-\uFE0E]{2,}/u;
const MIXED_WORD_G = /[\p{L}\p{M}]{2,}/gu;
const EMOJI = /\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}\u20E3\uFE0F]/u;
const JOINING_SCRIPT = /[^\p{Script=Latin}\p{Script=Common}\s\d]/u;

/** A zero-width joiner or non-joiner between two letters of a joining script, or two emoji. */
function legitimateJoiner(line: string, i: number, ch: string): boolean {
  if (ch !== "\u200D" && ch !== "\u200C") return false;
  const before = Array.from(line.slice(Math.max(0, i - 4), i)).pop() ?? "";
  const after = Array.from(line.slice(i + 1, i + 5))[0] ?? "";
  if (ch === "\u200D" && EMOJI.test(before) && EMOJI.test(after)) return true;
  return (
    /\p{L}|\p{M}/u.test(before) &&
    /\p{L}|\p{M}/u.test(after) &&
    JOINING_SCRIPT.test(before) &&
    JOINING_SCRIPT.test(after)
  );
}

/** `hidden_unicode` on one raw line (`first`: the line starts the file, where a BOM is fine). */
export function hiddenUnicode(line: string, first: boolean): Hit | null {
  if (TAGS.test(line)) return { severity: "critical", message: "Unicode tag characters (invisible text)" };
  if (BIDI.test(line)) return { severity: "high", message: "bidirectional control characters" };
  for (const m of line.matchAll(ZERO_WIDTH_G)) {
    if (m[0] === "\uFEFF" && first && m.index === 0) continue;
    if (legitimateJoiner(line, m.index, m[0])) continue;
    return { severity: "high", message: "zero-width or invisible filler characters" };
  }
  if (VS_RUN.test(line)) return { severity: "high", message: "variation selectors hiding data" };
  if (/[\u0400-\u04FF]/.test(line)) {
    for (const m of line.matchAll(MIXED_WORD_G))
      if (/[A-Za-z]/.test(m[0]) && /[\u0400-\u04FF]/.test(m[0]))
        return { severity: "medium", message: "word mixes Latin and Cyrillic look-alike letters" };
  }
  return null;
}

/** Quick test: can this text contain anything `hiddenUnicode` reports? */
export const MAY_HIDE =
  /[\u200B-\u200D\u2060-\u2064\u202A-\u202E\u2066-\u2069\uFEFF\u115F\u1160\u3164\uFFA0\u180E\uFE00-\uFE0E\u0400-\u04FF]|[\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/u;
