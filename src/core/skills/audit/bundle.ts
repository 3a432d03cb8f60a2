/**
 * @module skills/audit/bundle
 * The bundle walker and hash now live in skills/bundle.ts, below both the audit and lint; this
 * name stays for callers that reach the audit's bundle functions through the audit.
 */
export {
  assertInstallable,
  bundleHashFromLines,
  computeBundleHash,
  enumerateBundle,
  hashLine,
  LIMITS,
  readEntry,
} from "../bundle.ts";
export type { Bundle, BundleEntry, BundleProblem, EntryRead, EnumerateOptions } from "../bundle.ts";
