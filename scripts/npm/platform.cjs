// Which platform package fits this machine: shared by the npm launcher and any postinstall, so it
// is dependency-free CommonJS that runs on Node 20 without Bun. The target rows come from
// scripts/targets.ts (pack.ts writes them beside this file as targets.json).
"use strict";

const fs = require("node:fs");

/**
 * @typedef {{ name: string, os: string, cpu: string, libc: string | null, baseline: boolean, exe: string }} TargetRow
 * @typedef {{ platform: string, arch: string, musl: boolean, avx2: boolean }} HostFacts
 */

/** True on a musl C library (Alpine): Node's report names glibc whenever glibc is in use. */
function isMusl() {
  if (process.platform !== "linux") return false;
  try {
    const report = process.report?.getReport();
    if (report?.header?.glibcVersionRuntime) return false;
  } catch {
    // fall through to the loader check
  }
  const loader = process.arch === "arm64" ? "aarch64" : "x86_64";
  return fs.existsSync(`/lib/ld-musl-${loader}.so.1`);
}

/** The non-baseline x64 build needs AVX2; without /proc (non-Linux) assume a modern CPU. */
function hasAvx2() {
  if (process.arch !== "x64" || process.platform !== "linux") return true;
  try {
    return /\bavx2\b/.test(fs.readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return false;
  }
}

/** @returns {HostFacts} */
function hostFacts() {
  return { platform: process.platform, arch: process.arch, musl: isMusl(), avx2: hasAvx2() };
}

/**
 * The rows that run here, best first: the exact libc, and on x64 without AVX2 only the baseline
 * build (the regular one would die with an illegal instruction); with AVX2 baseline is the fallback.
 * @param {TargetRow[]} targets
 * @param {HostFacts} facts
 * @returns {TargetRow[]}
 */
function candidates(targets, facts) {
  const libc = facts.platform === "linux" ? (facts.musl ? "musl" : "glibc") : null;
  const fit = targets.filter((t) => t.os === facts.platform && t.cpu === facts.arch && t.libc === libc);
  const regular = fit.filter((t) => !t.baseline);
  const baseline = fit.filter((t) => t.baseline);
  return facts.avx2 ? [...regular, ...baseline] : baseline.length > 0 ? baseline : regular;
}

module.exports = { candidates, hostFacts, isMusl, hasAvx2 };
