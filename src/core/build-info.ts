/**
 * @module build-info
 * Build constants: define'd by build.ts inside the compiled binary, read from package.json in source.
 */
import pkg from "../../package.json" with { type: "json" };

declare const LEMON_VERSION: string | undefined;
declare const LEMON_TARGET: string | undefined;

export const VERSION: string = typeof LEMON_VERSION === "string" ? LEMON_VERSION : pkg.version;

/** "linux-x64", "darwin-arm64", … of the running binary (or of the host in source runs). */
export const TARGET: string =
  typeof LEMON_TARGET === "string"
    ? LEMON_TARGET
    : `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
