/**
 * @module skills/fingerprint
 * The stat fingerprint that says a file is unchanged. The catalog's record cache and the search
 * snapshots' identity checks compare the same string, so it is spelled in one place.
 */
import type { Stats } from "node:fs";

/** `size:mtime:ctime:ino:dev` of a stat: equal fingerprints, unchanged file. */
export function fingerprintOf(st: Stats): string {
  return `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}:${st.dev}`;
}
