"use strict";
// `matframe serve` in its own process, so the measured clients never share its heap or event loop.
const { spawn } = require("node:child_process");
const { readFileSync } = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");

const DIST = process.env.MATFRAME_BENCH_DIST ?? path.join(__dirname, "..", "..", "dist");
const PREFIX = "/api/2018-10-01";

/** Peak resident size of a running process in KiB (Linux /proc), or null elsewhere. */
function peakRssKiB(pid) {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Starts `node dist/cli/main.js serve --port 0 --synthetic N --quiet [...args]` and resolves once it prints
 * its base URL (the CLI's first stdout line). Start-up time is reported: at 1,000,000 materials
 * it is most of a minute.
 */
async function startServerProcess({ synthetic, args = [], timeoutMs = 15 * 60 * 1000, waitForWarmUp = true }) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      path.join(DIST, "cli", "main.js"),
      "serve",
      "--port",
      "0",
      "--synthetic",
      String(synthetic),
      "--quiet",
      "--no-account-defaults",
      ...args,
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  // serve's background warm-up (the default columns' JSON) says when it ends; its start-up is not
  // over until then, so a cold figure taken before it would time the warm-up, not the first call.
  const warmedUp = new Promise((resolve) => {
    const lines = readline.createInterface({ input: child.stderr });
    lines.on("line", (line) => {
      const match =
        /kept the JSON of (\d+) records(?: \(\d+ of them for results tables\))? in (\d+) ms of background work \((\w+)\)/.exec(
          line,
        );
      if (match)
        resolve({
          seconds: (performance.now() - started) / 1000,
          records: Number(match[1]),
          workMs: Number(match[2]),
          ended: match[3],
        });
    });
    child.once("exit", () => resolve(null));
    // The warm-up is bounded (5 s of work, 3 s of reads); a line that never comes (its wording
    // changed) must not hang the bench: the figures that need it are then left out.
    setTimeout(() => resolve(null), 120_000).unref();
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));

  const baseUrl = await new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`matframe serve --synthetic ${synthetic} printed no URL within ${timeoutMs / 1000} s.`));
    }, timeoutMs);
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve(line.trim());
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(
          `matframe serve --synthetic ${synthetic} exited (${signal ?? code}) before printing its URL:\n${stderr.trim()}`,
        ),
      );
    });
  });
  if (!baseUrl.endsWith(PREFIX)) {
    child.kill("SIGTERM");
    throw new Error(`matframe serve printed "${baseUrl}" as its first line, not a base URL ending in ${PREFIX}.`);
  }
  const startSeconds = (performance.now() - started) / 1000;
  // The "serving N materials" line goes to stderr just before the URL goes to stdout.
  for (let i = 0; i < 20 && !/serving \d+ materials/.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
  const materialCount = Number(/serving (\d+) materials/.exec(stderr)?.[1] ?? NaN);
  const urlRssKiB = peakRssKiB(child.pid);
  // Cold figures are taken once start-up is over, background warm-up included (bounded by serve).
  const warm = waitForWarmUp && !args.includes("--no-warm-up") ? await warmedUp : null;

  return {
    baseUrl,
    origin: new URL(baseUrl).origin,
    pid: child.pid,
    synthetic,
    materialCount: Number.isFinite(materialCount) ? materialCount : undefined,
    startSeconds,
    /** Seconds from spawn to the end of serve's background warm-up, when it was waited for. */
    warmSeconds: warm?.seconds,
    /** Peak resident size when the URL was printed, before the background warm-up. */
    urlRssKiB,
    /** Resolves when serve's background warm-up ends (seconds since spawn, records kept), or null if it exits first. */
    warmedUp,
    peakRssKiB: () => peakRssKiB(child.pid),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

module.exports = { startServerProcess, peakRssKiB };
