/**
 * @module skills/install/bounded
 * The one worker pool of the install code: `update --all` / `--check` ask their upstreams
 * through it, a well-known source downloads its files through it.
 */

/**
 * Runs `fn` over `items` with at most `limit` calls in flight; results in input order. After a
 * failure no further item starts, and the first error is thrown only once every started call
 * has settled, so nothing still runs (or writes into a directory the caller removes) by then.
 */
export async function bounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  const settled = await Promise.allSettled(workers);
  const firstError = settled.find((r) => r.status === "rejected");
  if (firstError) throw firstError.reason;
  return out;
}
