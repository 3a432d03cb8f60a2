#!/usr/bin/env node
// The `lemon` bin of the npm package: runs the platform binary without needing Bun. Order:
// LEMON_BIN_PATH, then the first installed platform package that fits this machine, then the
// TypeScript source when Bun is on PATH; otherwise one line naming what was tried.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { candidates, hostFacts } = require("./platform.cjs");

/** @returns {{ cmd: string, args: string[] } | { tried: string[] }} */
function locate() {
  const tried = [];
  const override = process.env.LEMON_BIN_PATH;
  if (override) {
    if (fs.existsSync(override)) return { cmd: override, args: [] };
    tried.push(`LEMON_BIN_PATH=${override}`);
  }
  const pkg = require("../package.json");
  /** @type {import("./platform.cjs").TargetRow[]} */
  const targets = require("./targets.json");
  for (const t of candidates(targets, hostFacts())) {
    const name = `${pkg.name}-${t.name}`;
    try {
      const dir = path.dirname(require.resolve(`${name}/package.json`));
      const bin = path.join(dir, t.exe);
      if (fs.existsSync(bin)) return { cmd: bin, args: [] };
      tried.push(`${name} (no ${t.exe})`);
    } catch {
      tried.push(`${name} (not installed)`);
    }
  }
  const source = path.join(__dirname, "..", "src", "cli", "main.ts");
  const exts = process.platform === "win32" ? [".exe", ".cmd", ""] : [""];
  for (const dir of (process.env.PATH || "").split(path.delimiter).filter(Boolean)) {
    for (const ext of exts) {
      const bun = path.join(dir, `bun${ext}`);
      // As the bin's shebang: never the cwd's .env, bunfig.toml (preload) or tsconfig.json (paths).
      const flags = ["--no-env-file", `--config=${os.devNull}`, `--tsconfig-override=${os.devNull}`];
      if (fs.existsSync(bun) && fs.existsSync(source)) return { cmd: bun, args: [...flags, source] };
    }
  }
  tried.push("bun on PATH (not found)");
  return { tried };
}

const found = locate();
if ("tried" in found) {
  process.stderr.write(`lemon: no binary for ${process.platform}-${process.arch}; tried ${found.tried.join(", ")}\n`);
  process.exit(1);
}
const child = spawn(found.cmd, [...found.args, ...process.argv.slice(2)], { stdio: "inherit", windowsHide: true });
// Forward signals so Ctrl-C and kills reach lemon (and through it the MCP servers it started).
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"]) {
  try {
    process.on(sig, () => child.kill(sig));
  } catch {
    // a signal this platform does not know
  }
}
child.on("error", (err) => {
  process.stderr.write(`lemon: cannot start ${found.cmd}: ${err.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
