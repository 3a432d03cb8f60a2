/**
 * @module skills/audit/rules/shell
 * A small shell tokeniser for the rules: the first simple command of a pipe segment as words
 * (quotes removed, `$(…)`/`<(…)`/backticks kept whole), its input redirects, and the command that
 * really runs once wrappers (`sudo`, `env`, `timeout 10`, `busybox`, `xargs`, `( … )`, `{ … }`)
 * are peeled off. Operators (`#`, `;`, `&`, `|`, `)`, `}`) end a command wherever they are, so
 * `| sh # x`, `| sh &` or `| (bash)` read as `| sh`.
 *
 * Judging errs towards "runs": a quote left open ends the command (the segment began inside a
 * quoted string, as pipe splitting ignores quotes), and a redirect from another file still counts
 * as reading the pipe.
 */

export interface SimpleCommand {
  /** Words with quotes removed; a substitution stays one word, `$(` … `)` included. */
  words: string[];
  /** Targets of `<`, `<<<` and `<&` redirects (a `<(…)` target stays whole). */
  stdin: string[];
}

const MAX_WORDS = 64;

/** Reads a balanced `(…)` starting at `s[i] === "("`; returns the index after it. */
function balanced(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s[j]!;
    if (c === "\\") j++;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return j + 1;
  }
  return s.length;
}

/** The first simple command of `segment` (the text after a pipe, or a whole line). */
export function firstCommand(segment: string): SimpleCommand {
  const words: string[] = [];
  const stdin: string[] = [];
  const s = segment;
  let cur: string | null = null;
  let redirect: "in" | "out" | null = null;
  const end = () => {
    if (cur === null) return;
    if (redirect === "in") stdin.push(cur);
    else if (redirect === null) words.push(cur);
    redirect = null;
    cur = null;
  };
  for (let i = 0; i < s.length && words.length < MAX_WORDS; i++) {
    const c = s[i]!;
    if (c === " " || c === "\t" || c === "\r" || c === "\n") {
      end();
      continue;
    }
    if (c === "'" || c === '"') {
      // A quote left open closes one the segment started inside (`echo '… | sh' > f`).
      const close = s.indexOf(c, i + 1);
      if (close < 0) break;
      cur = (cur ?? "") + s.slice(i + 1, close);
      i = close;
      continue;
    }
    if (c === "\\") {
      cur = (cur ?? "") + (s[i + 1] ?? "");
      i++;
      continue;
    }
    if (c === "$" && s[i + 1] === "(") {
      const stop = balanced(s, i + 1);
      cur = (cur ?? "") + s.slice(i, stop);
      i = stop - 1;
      continue;
    }
    if (c === "`") {
      // A closing backtick of Markdown inline code ends the command; a substitution is a word.
      const close = s.indexOf("`", i + 1);
      if (cur !== null || close < 0) break;
      cur = s.slice(i, close + 1);
      i = close;
      continue;
    }
    if (c === "#" && cur === null) break;
    if (c === "<" || c === ">") {
      // `<(…)`/`>(…)`: a process substitution is a word (or a redirect's target).
      if (s[i + 1] === "(") {
        const stop = balanced(s, i + 1);
        if (cur === null) cur = s.slice(i, stop);
        else cur += s.slice(i, stop);
        i = stop - 1;
        continue;
      }
      // An fd number before the operator belongs to it (`2>`, `0<`).
      if (cur !== null && /^\d+$/.test(cur)) cur = null;
      end();
      let j = i;
      while (j + 1 < s.length && /[<>&|]/.test(s[j + 1]!)) j++;
      const op = s.slice(i, j + 1);
      i = j;
      redirect = op.startsWith("<") && !op.startsWith("<<") ? "in" : op === "<<<" ? "in" : "out";
      // `<&3`, `>&2`: the fd follows without a space.
      continue;
    }
    // A leading `&` is the rest of `|&`.
    if (c === "&" && cur === null && words.length === 0 && stdin.length === 0) continue;
    if (c === ";" || c === "&" || c === "|" || c === ")") break;
    if ((c === "(" || c === "{" || c === "!") && cur === null && words.length === 0) continue;
    if (c === "}" && cur === null) break;
    cur = (cur ?? "") + c;
  }
  end();
  return { words, stdin };
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Wrappers that run the rest of their words as a command, with the options that take a value. */
const WRAPPERS = new Map<string, { valued: Set<string>; operands?: number }>([
  ["sudo", { valued: new Set(["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"]) }],
  ["doas", { valued: new Set(["-u", "-C"]) }],
  ["exec", { valued: new Set(["-a"]) }],
  ["command", { valued: new Set() }],
  ["builtin", { valued: new Set() }],
  ["nohup", { valued: new Set() }],
  ["setsid", { valued: new Set() }],
  ["unbuffer", { valued: new Set() }],
  ["time", { valued: new Set(["-f", "-o"]) }],
  ["nice", { valued: new Set(["-n"]) }],
  ["ionice", { valued: new Set(["-c", "-n", "-p"]) }],
  ["stdbuf", { valued: new Set(["-i", "-o", "-e"]) }],
  ["env", { valued: new Set(["-u", "-C"]) }],
  ["timeout", { valued: new Set(["-s", "-k", "--signal", "--kill-after"]), operands: 1 }],
  ["chrt", { valued: new Set([]), operands: 1 }],
  ["taskset", { valued: new Set([]), operands: 1 }],
  ["busybox", { valued: new Set() }],
  [
    "xargs",
    {
      valued: new Set(["-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a", "-e", "--delimiter", "--max-args"]),
    },
  ],
  ["then", { valued: new Set() }],
  ["do", { valued: new Set() }],
  ["else", { valued: new Set() }],
  ["!", { valued: new Set() }],
  ["pkexec", { valued: new Set(["--user"]) }],
]);

export interface RunCommand {
  /** The words from the command that runs on (its name first). */
  words: string[];
  /** Stdin redirect targets of the whole command. */
  stdin: string[];
  /** Reached through `xargs`: its arguments come from standard input. */
  xargs: boolean;
}

/** Peels wrappers and assignments off a simple command: what actually runs. */
export function unwrap(cmd: SimpleCommand): RunCommand {
  const toks = cmd.words;
  let xargs = false;
  let i = 0;
  for (let guard = 0; guard < 16 && i < toks.length; guard++) {
    const t = toks[i]!;
    if (ASSIGNMENT.test(t)) {
      i++;
      continue;
    }
    const name = t.replace(/^.*\//, "");
    // `su -c sh`, `script -q -c sh /dev/null`, `runuser -u x -c sh`: the string is the command run.
    if (name === "su" || name === "script" || name === "runuser") {
      const c = toks.findIndex((x, j) => j > i && (x === "-c" || x === "--command"));
      if (c < 0 || toks[c + 1] === undefined) break;
      return unwrap({ words: toks[c + 1]!.split(/\s+/).filter((x) => x !== ""), stdin: cmd.stdin });
    }
    const w = WRAPPERS.get(name);
    if (w === undefined) break;
    if (name === "xargs") xargs = true;
    i++;
    while (i < toks.length && (toks[i]!.startsWith("-") || (name === "env" && ASSIGNMENT.test(toks[i]!)))) {
      if (toks[i] === "--") {
        i++;
        break;
      }
      if (w.valued.has(toks[i]!)) i++;
      i++;
    }
    i += w.operands ?? 0;
  }
  return { words: toks.slice(i), stdin: cmd.stdin, xargs };
}

const SH = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh", "yash", "tcsh", "csh"]);
const PROGRAM_FLAGS: Record<string, Set<string>> = {
  sh: new Set(["-c"]),
  python: new Set(["-c", "-m"]),
  node: new Set(["-e", "-p", "--eval", "--print", "-r", "--require"]),
  perl: new Set(["-e", "-E"]),
  ruby: new Set(["-e"]),
  pwsh: new Set(["-c", "-command", "-f", "-file", "-encodedcommand", "-enc", "-e", "-ec"]),
  php: new Set(["-r", "-f"]),
  lua: new Set(["-e"]),
  source: new Set(),
};
const ARG_FLAGS = new Set(["-o", "+o", "-W", "-X", "-u", "-g", "-O", "+O", "--rcfile", "--init-file"]);
/** Paths that are standard input under another name. */
export const STDIN_PATH = /^(?:\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0|-)$/;

/**
 * A program argument that is the input itself (`bash -c "$(cat)"`) or code executing what it
 * reads from stdin (`python3 -c "exec(sys.stdin.read())"`, `node -e "eval(fs.readFileSync(0)+'')"`).
 */
const READS_STDIN =
  /^\$\(\s*(?:cat(?:\s+-|\s+\/dev\/stdin)?|<\s*\/dev\/stdin)\s*\)$|\b(?:exec|eval|Function|instance_eval)\s*\(?[^;]{0,40}?(?:sys\.stdin\.read|\binput\s*\(|\bopen\s*\(\s*0\b|readFileSync\s*\(\s*(?:0|["']\/dev\/stdin)|\bSTDIN\.read|\$stdin\.read|\bARGF\.read|<STDIN>|php:\/\/stdin)/;

/** The interpreter family a command name belongs to, or null. */
export function family(name: string): string | null {
  // `$(which sh)`, `$(command -v bash)`, `"$SHELL"`, and `env -S "bash -x"`'s one word.
  const named =
    /^\$\((?:which|command\s+-v|type\s+-p)\s+([^\s)]+)\s*\)$|^\$\{\w+:?[-=]([^}\s]+)\}$/
      .exec(name)
      ?.slice(1)
      .find((g) => g) ?? name.split(/\s+/)[0]!;
  if (/^\$\{?(?:SHELL|BASH)\}?$/.test(named)) return "sh";
  const base = named
    .replace(/^.*[/\\]/, "")
    .toLowerCase()
    .replace(/\.exe$/, "");
  if (SH.has(base)) return "sh";
  if (/^python[0-9.]*$/.test(base) || base === "py" || base === "pypy3") return "python";
  if (base === "node" || base === "nodejs" || base === "bun" || base === "deno") return "node";
  if (base === "perl") return "perl";
  if (base === "ruby") return "ruby";
  if (base === "pwsh" || base === "powershell") return "pwsh";
  if (base === "php") return "php";
  if (base === "lua") return "lua";
  if (base === "source" || base === ".") return "source";
  if (base === "iex" || base === "invoke-expression") return "iex";
  return null;
}

/**
 * What an interpreter command runs as its program: `"stdin"` (no script and no program argument,
 * or `-`, `-s`, `/dev/stdin`), the program word (`-c WORD`, a script path, `source WORD`), or null
 * when the command is no interpreter.
 */
export function programOf(run: RunCommand): { stdin: true } | { stdin: false; program: string | null } | null {
  const head = run.words[0];
  if (head === undefined) return null;
  const fam = family(head);
  if (fam === null) return null;
  if (fam === "iex") return { stdin: true };
  const flags = PROGRAM_FLAGS[fam]!;
  for (let j = 1; j < run.words.length; j++) {
    const t = run.words[j]!;
    if (t === "-s" || t === "--" || STDIN_PATH.test(t)) return { stdin: true };
    if (flags.has(t.toLowerCase())) {
      const program = run.words[j + 1];
      // `xargs bash -c`: the program is the text xargs reads from the pipe.
      if (program === undefined) return run.xargs ? { stdin: true } : { stdin: false, program: null };
      // `xargs -I{} bash -c {}`: the program is each line read from the pipe.
      if (READS_STDIN.test(program) || (run.xargs && /^(?:\{\}|%|_|[A-Z]+)$/.test(program))) return { stdin: true };
      return { stdin: false, program };
    }
    if ((t.startsWith("-") || t.startsWith("+")) && fam !== "source") {
      if (ARG_FLAGS.has(t)) j++;
      continue;
    }
    // `xargs sh x.sh`: the pipe fills in arguments, the script is the program.
    return { stdin: false, program: t };
  }
  if (run.xargs) return { stdin: false, program: null };
  if (fam === "source") return run.stdin.some((s) => STDIN_PATH.test(s)) ? { stdin: true } : null;
  return { stdin: true };
}

/** True when a pipe segment starts an interpreter that runs its standard input as the program. */
export function runsStdin(segment: string, depth = 0): boolean {
  const cmd = firstCommand(segment);
  if (programOf(unwrap(cmd))?.stdin === true) return true;
  // `| if …; then sh; fi`, `| while …; do bash; done`: a compound's body reads the pipe too.
  if (/\b(?:then|do|else)\b/.test(segment)) {
    // `| while read -r l; do eval "$l"; done`: each line read is run.
    const reads = /\bwhile\s+(?:IFS=\S*\s+)?read\b/.test(segment);
    for (const c of commandsOf(segment).slice(1)) {
      const run = unwrap(c);
      if (!/^(?:then|do|else)$/.test(c.words[0] ?? "") && !reads) continue;
      const prog = programOf(run);
      if (prog?.stdin === true) return true;
      if (reads && (run.words[0] === "eval" || (prog && /\$/.test(prog.program ?? "")))) return true;
    }
  }
  // `tee >(sh)`: an output process substitution gets the data on its stdin.
  for (const w of cmd.words) {
    const inner = /^>\((.*)\)$/s.exec(w)?.[1];
    if (inner !== undefined && depth < 4 && runsStdin(inner, depth + 1)) return true;
  }
  return false;
}

/**
 * Every simple command of a line, split at `;`, `&&`, `||`, `|`, `&` and newlines outside quotes
 * and substitutions (each then read by firstCommand). Bounded: at most 256 commands.
 */
export function commandsOf(line: string): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  let start = 0;
  let quote = "";
  for (let i = 0; i <= line.length && out.length < 256; i++) {
    const c = line[i];
    if (c === undefined || (quote === "" && (c === ";" || c === "|" || c === "&" || c === "\n"))) {
      const cmd = firstCommand(line.slice(start, i));
      if (cmd.words.length > 0) out.push(cmd);
      start = i + 1;
      continue;
    }
    if (c === "\\") i++;
    else if (quote !== "") {
      if (c === quote) quote = "";
    } else if (c === "'" || c === '"' || c === "`") quote = c;
    else if (c === "$" && line[i + 1] === "(") i = balanced(line, i + 1) - 1;
    else if ((c === "<" || c === ">") && line[i + 1] === "(") i = balanced(line, i + 1) - 1;
  }
  return out;
}
