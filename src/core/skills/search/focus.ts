/**
 * @module skills/search/focus
 * Which parts of a long request name the task (issue 16 item 2). A request of several sentences
 * mostly tells a story ("we're a small SaaS in Lisbon…") around one or two sentences that ask for
 * something ("how would we set that up with Argo CD?"). Sentences that ask (a question mark, a
 * request phrase such as "can you", "how do I", "I need", "I'd like", or an imperative first word)
 * keep their words at full weight; the others are scaled by `storyWeight`. A request with no
 * asking sentence, or with only one sentence, is left as it is.
 */

/** Phrases that open or carry a request, matched on folded text. */
const ASKING =
  /\b(?:how (?:do|can|should|would|to|could|does|is)|can (?:you|i|we|someone)|could (?:you|we|i)|would you|will you|please|i need|we need|need (?:to|a|an|help)|i want|we want|want (?:to|a|an)|i'?d like|we'?d like|i would like|trying to|help me|is there (?:a|an|any)|are there|what(?:'s| is| are) the (?:best|right|proper|current|correct)|what should|which (?:one|\w+ should)|where do i|why (?:does|do|is|are|did)|looking for|let'?s|set up|lets)\b/;

/** Imperative verbs that commonly start a request to an agent. */
const IMPERATIVE = new Set(
  (
    "add analyze analyse audit build check clean convert create debug deploy design document draft explain extract " +
    "find fix generate give implement improve list make migrate move optimize optimise plan prepare produce put " +
    "refactor remove rename review rewrite run scaffold set setup show speed start summarize summarise test tell " +
    "translate turn update upgrade write"
  ).split(" "),
);

const SENTENCE = /[^.!?\n]+(?:[.!?]+|\n+|$)/g;

export interface FocusPart {
  text: string;
  /** 1 for a sentence that asks, the story weight otherwise. */
  weight: number;
}

/** Splits a request into sentences with weights; one part of weight 1 when nothing is to be gained. */
export function focusParts(query: string, storyWeight: number): FocusPart[] {
  if (storyWeight >= 1 || query.length < 120) return [{ text: query, weight: 1 }];
  const parts = query.match(SENTENCE) ?? [];
  if (parts.length < 2) return [{ text: query, weight: 1 }];
  let asking = 0;
  const out = parts.map((text) => {
    const t = text.trim().toLowerCase();
    const first = /^[a-z]+/.exec(t)?.[0] ?? "";
    const asks = t.endsWith("?") || ASKING.test(t) || IMPERATIVE.has(first);
    if (asks) asking++;
    return { text, weight: asks ? 1 : storyWeight };
  });
  if (asking === 0) return [{ text: query, weight: 1 }];
  return out;
}
