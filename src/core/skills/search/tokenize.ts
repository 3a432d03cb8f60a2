/**
 * @module skills/search/tokenize
 * The one tokeniser of relevance (skills.md §7.1 rule 8): case-folded, accent-folded, Unicode
 * letters and digits; Han/Kana runs become character bigrams; English words get a light suffix
 * stemmer; stop words (English function words, request filler and a few of the most common
 * function words of German, Spanish, French and Portuguese) are dropped. Documents and queries go
 * through the same function, so the stemmer only has to be consistent, not linguistically right.
 */

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** WORD on ASCII text: the same runs, without compiling Unicode property tables (~0.5 ms cold). */
const ASCII_WORD = /[a-z0-9]+/g;
const NON_ASCII = /[^\x00-\x7f]/;
const MARKS = /\p{M}+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu;

/** Longest term kept; longer runs (hashes, base64) are noise and bloat the dictionary. */
export const MAX_TERM_CHARS = 40;

/**
 * Characters of a request that are read: its first and last halves of this, so a question before
 * or after a pasted log still counts (tune requests are under 1.5 KB). Time and memory per call
 * stay bounded whatever an embedder passes (adversarial report F2: 10 MB took seconds and a GB).
 */
export const MAX_QUERY_CHARS = 8192;
/** Distinct query words scored (relevance.ts): the first and last halves of this (tune: at most 67). */
export const MAX_QUERY_TERMS = 256;

/** Letters of scripts that never spell with zero-width joiners or spaces (and digits, combining marks). */
const PLAIN = String.raw`[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Inherited}0-9]`;
const ZW = String.raw`[\u200b-\u200d]`;
/**
 * Invisible characters that only break a word when pasted into it (report F10). Dropped
 * everywhere: soft hyphen, word joiner, BOM (they all say "no break here") and tag characters.
 * ZWSP, ZWNJ and ZWJ only between letters of PLAIN scripts: Thai, Khmer and Lao separate words
 * with ZWSP, Persian and the Indic scripts write ZWNJ/ZWJ inside words, and the index splits
 * there too. Bidi marks are kept: they sit where RTL and LTR runs meet, and as separators they
 * keep an RTL word apart from its neighbour, as in the index.
 */
let invisible: RegExp | null = null;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** A code unit inside a word or a surrogate pair, where a cut must not fall. */
function wordish(s: string, i: number): boolean {
  if (i < 0 || i >= s.length) return false;
  const c = s.charCodeAt(i);
  return (c >= 0xd800 && c <= 0xdfff) || WORD_CHAR.test(s[i]!);
}

/**
 * `i` moved by `step` (-1 or +1) until no word or surrogate pair spans it; a run longer than
 * 64 is cut where it is (past MAX_TERM_CHARS, the tokeniser drops it anyway), pairs kept whole.
 */
function cutAt(s: string, i: number, step: number): number {
  let j = i;
  for (let n = 0; n < 64 && wordish(s, j - 1) && wordish(s, j); n++) j += step;
  if (wordish(s, j - 1) && wordish(s, j)) j = i;
  const c = s.charCodeAt(j);
  return c >= 0xdc00 && c <= 0xdfff ? j + step : j;
}

/**
 * The request as scored (query side only: documents never pass here): at most MAX_QUERY_CHARS
 * characters, its head and tail when longer, cut between words; invisible characters that
 * split words dropped.
 */
export function queryText(query: string): string {
  // Trimmed before the cut: a key padded with pages of spaces is still that key (skills.md §7.1 rule 5).
  let q = query.length > MAX_QUERY_CHARS ? query.trim() : query;
  if (q.length > MAX_QUERY_CHARS) {
    const half = MAX_QUERY_CHARS / 2;
    q = `${q.slice(0, cutAt(q, half, -1))} ${q.slice(cutAt(q, q.length - half, 1))}`;
  }
  if (!NON_ASCII.test(q)) return q;
  // Built on first use: an ASCII request never compiles the script tables.
  invisible ??= new RegExp(
    String.raw`[\u00ad\u2060\ufeff\u{e0000}-\u{e007f}]|(?<=${PLAIN}${ZW}*)${ZW}+(?=${PLAIN})`,
    "gu",
  );
  return q.replace(invisible, "");
}

const STOP_WORDS: ReadonlySet<string> = new Set(
  // English function words
  (
    "a an the and or but nor if then else so than too very of to in on at by for with without from into onto " +
    "about above below over under up down out off as is am are was were be been being have has had having do does did " +
    "doing will would shall should can could may might must it its it's this that these those there here where when " +
    "what which who whom whose why how i me my mine we us our ours you your yours he him his she her they them their " +
    "not no yes all any some each every both either neither such own same other others only just also again further " +
    "once while during before after until because through between against among via per etc eg ie e g i.e " +
    // request filler: words people wrap around a request, and words every skill description uses
    "please help helps want wants wanted need needs needed like would let lets let's get gets got make makes made " +
    "something anything thing things way ways someone somebody able sure okay ok hi hello thanks thank " +
    "use uses used using user skill skills task tasks when whenever specific specifically given " +
    "currently actually really basically kind sort lot lots bit maybe possible quickly " +
    // contractions as contract() leaves them ("don't" -> "dont"), and as people type them without the apostrophe
    "dont doesnt didnt isnt arent wasnt werent cant couldnt wont wouldnt shouldnt havent hasnt hadnt aint " +
    "whats thats hows theres heres wheres whos im ive youre youve theyre weve " +
    // German
    "der die das den dem des ein eine einen einem einer und oder aber ich du er sie es wir ihr mein meine mit " +
    "für fur von zu im ist sind wie was kann können konnen bitte auf aus bei nach nicht auch noch mir mich uns " +
    // Spanish / Portuguese
    "el la los las lo un una unos unas y o pero yo mi mis tu su sus con sin para por que como del al es son " +
    "puedes puede quiero necesito ayuda ayudame ayúdame hacer se le les este esta esto em um uma com não nao meu " +
    "minha para preciso quero ajuda fazer os as do da dos das no na nos nas " +
    // French
    "le les des du de et ou mais je tu il elle nous vous ils elles mon ma mes ton ta avec sans pour par que qui " +
    "comment est sont peux peut veux besoin aide aider faire ce cette ces dans sur au aux une"
  ).split(/\s+/),
);

// An apostrophe splits a word into runs, so "what's" gave the term "s" and "don't" gave "don" and "t":
// fragments that matched any skill with a possessive (issue 16). The clitic goes ('s 're 've 'll 'd 'm),
// "n't" joins its word ("dont", a stop word). ASCII text keeps the ASCII-only pattern (no Unicode tables).
const CLITIC_ASCII = /([a-z0-9])'(?:(t)|s|re|ve|ll|d|m)(?![a-z0-9])/g;
const CLITIC = /([\p{L}\p{N}])['\u2019](?:(t)|s|re|ve|ll|d|m)(?![\p{L}\p{N}])/gu;

/** Folded text with English contractions and possessives reduced to their word. */
export function contract(folded: string): string {
  if (!folded.includes("'") && !folded.includes("\u2019")) return folded;
  return folded.replace(NON_ASCII.test(folded) ? CLITIC : CLITIC_ASCII, (_, c: string, t?: string) => c + (t ?? ""));
}

/** A word the tokeniser drops (judged on the folded word, before stemming). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** Case and accent folding: lower case, NFD, combining marks removed (only when not ASCII). */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  if (!NON_ASCII.test(lower)) return lower;
  return lower.normalize("NFKD").replace(MARKS, "");
}

const VOWEL = /[aeiouy]/;
const DOUBLE_END = /([bdfgklmnprt])\1$/;

/** A light, consistent English suffix stripper (ASCII words only). */
export function stem(w: string): string {
  if (w.length <= 3 || NON_ASCII.test(w) || /\d/.test(w)) return w;
  let s = w;
  if (s.endsWith("ies") && s.length > 4) s = s.slice(0, -3) + "y";
  else if (s.endsWith("sses")) s = s.slice(0, -2);
  else if (/(?:x|ch|sh|zz)es$/.test(s)) s = s.slice(0, -2);
  else if (s.endsWith("s") && !/(?:ss|us|is|ys)$/.test(s) && s.length > 4) s = s.slice(0, -1);
  if (s.endsWith("'s")) s = s.slice(0, -2);
  const strip = (suffix: string, min: number): boolean => {
    if (s.endsWith(suffix) && s.length - suffix.length >= min && VOWEL.test(s.slice(0, -suffix.length))) {
      s = s.slice(0, -suffix.length);
      return true;
    }
    return false;
  };
  if (strip("ational", 3) || strip("ation", 3) || strip("ition", 3) || strip("ments", 3) || strip("ment", 3)) {
    // configuration -> configur, deployment -> deploy
  } else if (strip("ingly", 3) || strip("ing", 3) || strip("edly", 3) || strip("ed", 3)) {
    if (DOUBLE_END.test(s)) s = s.slice(0, -1);
  } else if (strip("ness", 3) || strip("ly", 4) || strip("ion", 4)) {
    // lightness -> light, quickly -> quick, conversion -> convers
  }
  if (s.endsWith("ize") || s.endsWith("ise")) s = s.slice(0, -3) + "iz";
  if (s.endsWith("y") && s.length > 4 && !VOWEL.test(s[s.length - 2] ?? "")) s = s.slice(0, -1) + "i";
  if (s.endsWith("e") && s.length > 4) s = s.slice(0, -1);
  return s;
}

/** Emits the terms of one already-folded word run (bigrams for CJK, stems otherwise). */
function emitRun(run: string, out: string[], ascii = false): void {
  if (ascii || !CJK.test(run)) {
    if (run.length > MAX_TERM_CHARS || STOP_WORDS.has(run)) return;
    // Stop words are judged before stemming: "notes" stems to "not" and must survive.
    const t = stem(run);
    if (t !== "") out.push(t);
    return;
  }
  for (const part of run.match(CJK_RUN) ?? []) {
    if (!CJK.test(part)) {
      emitRun(part, out);
      continue;
    }
    const chars = Array.from(part);
    if (chars.length === 1) out.push(part);
    else for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  }
}

/** The terms of a text in order (duplicates kept, for term frequencies). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const folded = contract(fold(text));
  // fold() lower-cases, so an ASCII text's letters are a-z.
  if (!NON_ASCII.test(folded)) for (const m of folded.matchAll(ASCII_WORD)) emitRun(m[0], out, true);
  else for (const m of folded.matchAll(WORD)) emitRun(m[0], out);
  return out;
}

/**
 * Terms of a key or name: the words, plus each adjacent pair joined and the whole joined, so that
 * `next-js`, `nextjs` and `next js` meet.
 */
export function nameTerms(text: string): string[] {
  const folded = contract(fold(text));
  const words = [...folded.matchAll(NON_ASCII.test(folded) ? WORD : ASCII_WORD)]
    .map((m) => m[0])
    .filter((w) => !STOP_WORDS.has(w));
  const out = tokenize(text);
  if (words.length > 1 && words.length <= 8) {
    for (let i = 0; i + 1 < words.length; i++) out.push(words[i]! + words[i + 1]!);
    if (words.length > 2) out.push(words.join(""));
  }
  return out.filter((t) => t.length <= MAX_TERM_CHARS);
}

const LETTERS_DIGITS = /[\p{L}\p{N}]+/gu;

/** The letter-and-digit runs of folded text (marks split them), for glossary look-ups. */
export function plainWords(folded: string): string[] {
  return [...folded.matchAll(NON_ASCII.test(folded) ? LETTERS_DIGITS : ASCII_WORD)].map((m) => m[0]);
}

/** The folded, trimmed form used for exact key/name matches (skills.md §7.1 rule 5). */
export function exactLabel(text: string): string {
  return text.trim().toLowerCase();
}
