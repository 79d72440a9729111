"use strict";
// The child side of a bench case: read the parameters, time the work, report one result line
// with this process's own peak resident size. Case scripts `require` this and call `runCase`.

const path = require("node:path");

const RESULT_PREFIX = "BENCH_RESULT ";

/** The built package: the run's private copy of dist/ (see dist-snapshot.js), else dist/. */
function distIndex() {
  return path.join(process.env.MATFRAME_BENCH_DIST ?? path.join(__dirname, "..", "..", "dist"), "index.js");
}

/**
 * Starts timing; `stop()` returns `{ seconds, cpuSeconds }`: wall time, and the CPU time this
 * process used meanwhile (user + system). On a shared machine the wall time moves with the load;
 * this process's CPU time moves much less, and shows what the client itself costs.
 */
function startClock() {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { seconds: Number(process.hrtime.bigint() - start) / 1e9, cpuSeconds: (used.user + used.system) / 1e6 };
  };
}

/**
 * Runs a case: `main(params)` resolves to `{ seconds, cpuSeconds?, records, ...extra }`; the line written is
 * that plus `maxRssKiB`, the peak resident size of this process (what `getrusage` reports).
 */
function runCase(main) {
  const raw = process.env.BENCH_PARAMS;
  if (!raw) {
    process.stderr.write(`${process.argv[1]}: a bench case, run by bench/run.js (it needs BENCH_PARAMS).\n`);
    process.exit(1);
  }
  Promise.resolve()
    .then(() => main(JSON.parse(raw)))
    .then((result) => {
      const maxRssKiB = process.resourceUsage().maxRSS;
      process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ...result, maxRssKiB })}\n`);
    })
    .catch((error) => {
      process.stderr.write(`${error?.name ?? "Error"}: ${error?.message ?? String(error)}\n`);
      process.exitCode = 1;
    });
}

/** Throws when a case read a different number of records than the server holds. */
function expectCount(what, actual, expected) {
  if (expected !== undefined && actual !== expected)
    throw new Error(`${what} read ${actual} records, expected ${expected}.`);
}

module.exports = { runCase, startClock, expectCount, distIndex, RESULT_PREFIX };
