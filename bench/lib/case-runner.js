"use strict";
// The harness side of a case: one child process per measurement, so each figure (time and peak
// RSS) belongs to that process alone, and repetitions do not inherit a warmed or bloated heap.
const { spawn } = require("node:child_process");
const path = require("node:path");
const { RESULT_PREFIX } = require("./case-kit");
const { summarize } = require("./stats");

const CASES = path.join(__dirname, "..", "cases");
const PROFILES = path.join(__dirname, "..", "profiles");

/** Runs `command args` with BENCH_PARAMS and resolves to the result line it printed. */
function runChild(command, args, params, { timeoutMs = 30 * 60 * 1000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, BENCH_PARAMS: JSON.stringify(params) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr = (stderr + c).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split("\n").find((l) => l.startsWith(RESULT_PREFIX));
      if (code === 0 && line) return resolve(JSON.parse(line.slice(RESULT_PREFIX.length)));
      const why = signal ? `was killed (${signal})` : code === 0 ? "printed no result" : `exited with ${code}`;
      reject(
        new Error(
          `${path.basename(args[args.length - 1] ?? command)} ${why}: ${stderr.trim().split("\n").slice(-5).join(" | ")}`,
        ),
      );
    });
  });
}

/** A Node case from bench/cases, optionally under the CPU profiler. */
function runNodeCase(script, params, { cpuProf = false } = {}) {
  const flags = cpuProf
    ? [
        "--cpu-prof",
        "--cpu-prof-dir",
        PROFILES,
        "--cpu-prof-name",
        `${params.label ?? script}-${Date.now()}.cpuprofile`,
      ]
    : [];
  return runChild(process.execPath, [...flags, path.join(CASES, script)], params);
}

/** A Python case from bench/cases, run with the given interpreter. */
function runPythonCase(python, script, params) {
  return runChild(python, [path.join(CASES, script)], params);
}

/**
 * Summarises the repetitions of one case: seconds and peak RSS (MiB) as median/min/max, the
 * records read, and records/s from the median time. Extra numeric fields are summarised too.
 */
function summarizeRuns(runs) {
  const records = runs[0]?.records;
  for (const run of runs) {
    if (run.records !== records)
      throw new Error(`Repetitions disagree on the records read: ${runs.map((r) => r.records).join(", ")}.`);
  }
  const seconds = summarize(runs.map((r) => r.seconds));
  const summary = {
    records,
    seconds,
    recordsPerSecond: seconds && records ? records / seconds.median : undefined,
    peakRssMiB: summarize(runs.map((r) => r.maxRssKiB / 1024)),
  };
  for (const key of Object.keys(runs[0] ?? {})) {
    if (["records", "seconds", "maxRssKiB"].includes(key)) continue;
    if (typeof runs[0][key] === "number") summary[key] = summarize(runs.map((r) => r[key]));
    else summary[key] = runs[0][key];
  }
  return summary;
}

module.exports = { runChild, runNodeCase, runPythonCase, summarizeRuns };
