/**
 * @module cli/entry
 * The CLI proper as one importable unit (a separate entrypoint of the compiled binary).
 */
export { runCli } from "./run.ts";
export { processIo } from "./io.ts";
