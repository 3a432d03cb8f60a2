/**
 * @module skills/audit/structure
 * Findings about the bundle's shape rather than its text (install.md §7.3): binaries, archives,
 * files nobody can review, size and count, symlinks leaving the skill, special files, hidden
 * files and editor leftovers.
 */
import { posix } from "node:path";
import type { Finding, Severity } from "../../schema/finding.ts";
import type { Bundle, BundleEntry } from "../bundle.ts";

const MiB = 1024 * 1024;
const NATIVE_EXT = /\.(?:exe|dll|so|dylib|msi|com|bin)$/i;
const ARCHIVE_EXT = /\.(?:zip|gz|tgz|xz|txz|bz2|tbz2?|7z|rar|tar|zst|lz4|jar|whl|apk|crx|xpi|nupkg)$/i;
const BACKUP = /(?:~|\.swp|\.swo|\.bak|\.orig|\.rej|\.tmp)$|(?:^|\/)#[^/]*#$|(?:^|\/)\.DS_Store$/;
const BENIGN_DOTFILES = new Set([
  ".gitignore",
  ".gitkeep",
  ".gitattributes",
  ".npmignore",
  ".editorconfig",
  ".prettierrc",
  ".prettierignore",
  ".eslintrc",
  ".eslintrc.json",
  ".eslintignore",
  ".nvmrc",
  ".python-version",
  ".keep",
]);

function has(bytes: Uint8Array, at: number, sig: number[]): boolean {
  if (bytes.length < at + sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (bytes[at + i] !== sig[i]) return false;
  return true;
}
const ascii = (bytes: Uint8Array, at: number, s: string) =>
  has(
    bytes,
    at,
    Array.from(s, (c) => c.charCodeAt(0)),
  );

export type BinaryKind = "native" | "archive" | "media" | "other";

/** What a non-text file is, by its first bytes. */
export function sniffBinary(bytes: Uint8Array): BinaryKind {
  if (has(bytes, 0, [0x7f, 0x45, 0x4c, 0x46])) return "native"; // ELF
  if (
    [
      [0xfe, 0xed, 0xfa, 0xce],
      [0xfe, 0xed, 0xfa, 0xcf],
      [0xce, 0xfa, 0xed, 0xfe],
      [0xcf, 0xfa, 0xed, 0xfe],
      [0xca, 0xfe, 0xba, 0xbe],
    ].some((s) => has(bytes, 0, s))
  )
    return "native"; // Mach-O (and fat binaries)
  if (ascii(bytes, 0, "MZ")) return "native"; // PE
  if (has(bytes, 0, [0x50, 0x4b, 0x03, 0x04]) || has(bytes, 0, [0x50, 0x4b, 0x05, 0x06])) return "archive";
  if (has(bytes, 0, [0x1f, 0x8b]) || has(bytes, 0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]) || ascii(bytes, 0, "BZh"))
    return "archive";
  if (
    has(bytes, 0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]) ||
    ascii(bytes, 0, "Rar!\x1a\x07") ||
    ascii(bytes, 257, "ustar")
  )
    return "archive";
  if (has(bytes, 0, [0x28, 0xb5, 0x2f, 0xfd])) return "archive"; // zstd
  if (
    has(bytes, 0, [0x89, 0x50, 0x4e, 0x47]) ||
    has(bytes, 0, [0xff, 0xd8, 0xff]) ||
    ascii(bytes, 0, "GIF87a") ||
    ascii(bytes, 0, "GIF89a")
  )
    return "media";
  if (
    (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WEBP")) ||
    has(bytes, 0, [0x00, 0x00, 0x01, 0x00]) ||
    ascii(bytes, 0, "BM")
  )
    return "media";
  if (
    ascii(bytes, 0, "wOFF") ||
    ascii(bytes, 0, "wOF2") ||
    has(bytes, 0, [0x00, 0x01, 0x00, 0x00]) ||
    ascii(bytes, 0, "true") ||
    ascii(bytes, 0, "OTTO")
  )
    return "media";
  if (ascii(bytes, 0, "%PDF-")) return "media";
  return "other";
}

const finding = (rule: string, severity: Severity, file: string, message: string, category = "structure"): Finding => ({
  rule,
  category,
  severity,
  file,
  line: 0,
  message,
  excerpt: "",
});

/** Findings for one regular file from its name, size and (when not text) its magic bytes. */
export function fileStructure(entry: BundleEntry, bytes: Uint8Array, isText: boolean): Finding[] {
  const out: Finding[] = [];
  const kind = isText ? null : sniffBinary(bytes);
  if (kind === "native" || NATIVE_EXT.test(entry.rel))
    out.push(finding("native_binary", "high", entry.rel, "native executable or library"));
  else if (kind === "archive" || ARCHIVE_EXT.test(entry.rel))
    out.push(finding("archive", "high", entry.rel, "archive (contents are not scanned)"));
  else if (kind === "other")
    out.push(finding("unanalyzable_binary", "high", entry.rel, "binary file that cannot be reviewed"));
  if (entry.size > MiB) out.push(finding("large_file", "medium", entry.rel, "file over 1 MiB"));
  return out;
}

/** Findings for the bundle as a whole and for its non-regular entries. */
export function bundleStructure(bundle: Bundle): Finding[] {
  const out: Finding[] = [];
  const files = bundle.entries.filter((e) => e.kind === "file").length;
  if (files > 256) out.push(finding("many_files", "medium", ".", `${files} files (more than 256)`));
  for (const p of bundle.problems) {
    if (p.code === "bundle_limits_exceeded")
      out.push(finding("bundle_limits", "high", ".", `over the install limits: ${p.detail}`));
  }
  for (const e of bundle.entries) {
    const segments = e.rel.split("/");
    const name = segments[segments.length - 1]!;
    if (e.kind === "symlink") {
      const target = e.target ?? "";
      const resolved = posix.normalize(posix.join(posix.dirname(e.rel), target));
      if (posix.isAbsolute(target) || /^[A-Za-z]:[\\/]/.test(target) || resolved === ".." || resolved.startsWith("../"))
        out.push(finding("symlink_escape", "critical", e.rel, "symlink points outside the skill directory"));
    } else if (e.kind === "special") {
      out.push(finding("special_file", "high", e.rel, "FIFO, socket or device file"));
    }
    if (BACKUP.test(e.rel)) out.push(finding("editor_backup", "low", e.rel, "editor backup or leftover file"));
    else if (segments.some((s) => s.startsWith(".")) && !BENIGN_DOTFILES.has(name))
      out.push(finding("hidden_file", "low", e.rel, "hidden file or folder"));
  }
  return out;
}
