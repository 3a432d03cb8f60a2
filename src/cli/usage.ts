/**
 * @module cli/usage
 * Help and usage text from the command definitions: the usage line shows every positional
 * (`<KEY>` required, `[KEY]` optional, `[PATH …]` repeatable), help lists every flag by its real
 * names. Plain text: no colour, so nothing depends on the terminal.
 */
import { COMMON_FLAGS, type CommandGroup, type FlagSpec, type LemonCommand } from "./command.ts";
import { formatRows } from "./output.ts";

export { TOP_USAGE } from "./top-usage.ts";

function positional(a: LemonCommand["args"][number]): string {
  const word = `${a.name.toUpperCase()}${a.variadic ? " …" : ""}`;
  return a.required ? `<${word}>` : `[${word}]`;
}

/** `USAGE lemon skill inspect <KEY> [OPTIONS]`, or `… <command>` for a group. */
export function usageLine(path: readonly string[], node: LemonCommand | CommandGroup): string {
  const words = ["USAGE", "lemon", ...path];
  if (node.kind === "group") words.push("<command>");
  else words.push(...node.args.map(positional));
  words.push("[OPTIONS]");
  if (node.kind === "command" && node.takesTail) words.push("[-- ARGS …]");
  return words.join(" ");
}

function flagNames(name: string, f: FlagSpec): string {
  const long = f.defaultOn ? `--no-${name}` : `--${name}`;
  const names = [...(f.short !== undefined ? [`-${f.short}`] : []), long, ...(f.aliases ?? []).map((a) => `--${a}`)];
  const value = f.type === "boolean" ? "" : ` <${f.value ?? (f.type === "integer" ? "n" : "value")}>`;
  return names.join(", ") + value;
}

function flagTable(flags: Readonly<Record<string, FlagSpec>>): string {
  const rows = Object.entries(flags)
    .filter(([, f]) => f.hidden !== true)
    .map(([name, f]) => {
      const extra = f.type === "list" ? " (repeatable)" : f.choices !== undefined ? ` (${f.choices.join(", ")})` : "";
      return [flagNames(name, f), f.description + extra];
    });
  return formatRows(rows, "  ");
}

/** `lemon <path> --help`: description, usage line, arguments or commands, and every flag. */
export function renderUsage(
  path: readonly string[],
  node: LemonCommand | CommandGroup,
  rows?: [string, string][],
): string {
  const parts = [`${node.description}\n\n${usageLine(path, node)}\n`];
  if (node.kind === "group") {
    parts.push(`COMMANDS\n\n${formatRows(rows ?? [], "  ")}`);
    parts.push(`Run 'lemon ${path.join(" ")} <command> --help' for a command's options.\n`);
    return parts.join("\n");
  }
  if (node.args.length > 0)
    parts.push(
      `ARGUMENTS\n\n${formatRows(
        node.args.map((a) => [positional(a), a.description]),
        "  ",
      )}`,
    );
  if (Object.values(node.flags).some((f) => f.hidden !== true)) parts.push(`OPTIONS\n\n${flagTable(node.flags)}`);
  parts.push(`COMMON OPTIONS\n\n${flagTable(COMMON_FLAGS)}`);
  return parts.join("\n");
}
