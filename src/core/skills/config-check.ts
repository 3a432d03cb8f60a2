/**
 * @module skills/config-check
 * What `lemon skill check` says about `A/config.toml` (skills.md §1.1): a file that cannot be
 * read or parsed is an error (its settings are all ignored), an unknown key is info (ignored).
 * Messages name the file, the line and the key, never a value (cli.md §1.2).
 */
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import { unknownConfigKeys } from "../schema/config-toml.ts";
import { decodeUtf8 } from "./frontmatter.ts";
import { MSG } from "./messages.ts";
import { readRegularFile } from "../fsx/regular-file.ts";
import { parseToml } from "../toml.ts";

/** lemon's own configuration files are at most 1 MiB (mcp/read.ts keeps the same cap). */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Diagnostics for `config.toml`; none when it is missing or clean. */
export async function checkConfigFile(file: string): Promise<Diagnostic[]> {
  const read = readRegularFile(file, MAX_CONFIG_BYTES);
  if (!read.ok) {
    if (read.problem === "missing") return [];
    const reason =
      read.problem === "too_large"
        ? `file exceeds ${MAX_CONFIG_BYTES} bytes`
        : read.problem === "not_regular"
          ? "not a regular file"
          : `cannot read file (${read.errno ?? "error"})`;
    return [diagnostic("error", "invalid_config", MSG.configUnreadable(reason), { path: file })];
  }
  const text = decodeUtf8(read.bytes);
  if (text === null)
    return [diagnostic("error", "invalid_config", MSG.configUnreadable("file is not valid UTF-8"), { path: file })];
  const parsed = await parseToml(text);
  if (!parsed.ok) return [diagnostic("error", "invalid_config", MSG.configNotToml(parsed.line), { path: file })];
  return unknownConfigKeys(parsed.value).map((key) =>
    diagnostic("info", "unknown_config_key", MSG.configUnknownKey(key), { path: file }),
  );
}
