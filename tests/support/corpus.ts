// The shared corpus of real public skills: `../shared/corpus/skills` beside the repository,
// read-only (CI lays a read-only copy there). Tests never write into it.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const SHARED_DIR = resolve(import.meta.dir, "../../../shared");
export const CORPUS_DIR = join(SHARED_DIR, "corpus", "skills");

export function corpusAvailable(): boolean {
  return existsSync(CORPUS_DIR);
}
