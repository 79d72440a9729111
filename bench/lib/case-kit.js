"use strict";
// The child side of a bench case: read the parameters, time the work, report one result line
// with this process's own peak resident size. Case scripts `require` this and call `runCase`.

const RESULT_PREFIX = "BENCH_RESULT ";

/** Seconds since `start` (a `process.hrtime.bigint()`). */
function secondsSince(start) {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Runs `fn()` and resolves to `{ seconds, value }`. */
async function timed(fn) {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { seconds: secondsSince(start), value };
}

/**
 * Runs a case: `main(params)` resolves to `{ seconds, records, ...extra }`; the line written is
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
  if (expected !== undefined && actual !== expected) throw new Error(`${what} read ${actual} records, expected ${expected}.`);
}

module.exports = { runCase, timed, secondsSince, expectCount, RESULT_PREFIX };
