"use strict";
// bench/results.json: every figure of the run, written atomically (a half-written file from an
// interrupted run must not replace a good one).
const { renameSync, writeFileSync } = require("node:fs");
const path = require("node:path");
const { round, roundSummary } = require("./stats");

function roundCase(summary) {
  const out = {};
  for (const [key, value] of Object.entries(summary)) {
    out[key] =
      value && typeof value === "object" && "median" in value
        ? roundSummary(value, 4)
        : typeof value === "number"
          ? round(value, 4)
          : value;
  }
  return out;
}

/** Writes the results file (relative paths are taken from the repository root). */
function writeResults(file, results) {
  const target = path.resolve(__dirname, "..", "..", file);
  const rounded = {
    ...results,
    cases: Object.fromEntries(Object.entries(results.cases).map(([id, s]) => [id, roundCase(s)])),
    ratios: results.ratios.map((r) => ({ ...r, value: round(r.value, 3) })),
  };
  const tmp = `${target}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(rounded, null, 2)}\n`);
  renameSync(tmp, target);
  return target;
}

module.exports = { writeResults };
