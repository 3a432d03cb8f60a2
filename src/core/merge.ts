/**
 * @module merge
 * First claim wins (DESIGN.md §2): items arrive in precedence order; the first item with a key
 * claims it and later items with that key are kept as its `shadowed`. Items without a key never
 * claim or shadow (they are additive). Used by MCP sources; generic on purpose.
 */

export interface Claim<T> {
  item: T;
  shadowed: T[];
}

export function firstClaimWins<T>(items: readonly T[], keyOf: (item: T) => string | undefined): Claim<T>[] {
  const winners: Claim<T>[] = [];
  const byKey = new Map<string, Claim<T>>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) {
      winners.push({ item, shadowed: [] });
      continue;
    }
    const claimed = byKey.get(key);
    if (claimed) claimed.shadowed.push(item);
    else {
      const c = { item, shadowed: [] };
      byKey.set(key, c);
      winners.push(c);
    }
  }
  return winners;
}
