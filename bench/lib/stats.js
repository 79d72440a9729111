"use strict";
// Summaries of repeated measurements: the median is the figure, min and max show the spread.

/** `{ median, min, max, n }` of the numbers given, or null when there are none. */
function summarize(values) {
  const numbers = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  if (numbers.length === 0) return null;
  const sorted = [...numbers].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}

/** Rounds for the results file: enough digits to be useful, no float noise. */
function round(value, digits = 3) {
  if (typeof value !== "number" || !Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A summary with every figure rounded. */
function roundSummary(summary, digits = 3) {
  if (!summary) return summary;
  return {
    median: round(summary.median, digits),
    min: round(summary.min, digits),
    max: round(summary.max, digits),
    n: summary.n,
  };
}

module.exports = { summarize, round, roundSummary };
