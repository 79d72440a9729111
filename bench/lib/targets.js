"use strict";
// The ratios issue 6 asks for, each with its target, plus informative ratios without one.
// A ratio whose inputs were not measured (a skipped case, a partial run) is reported as null.

const MiB = (summary) => summary?.peakRssMiB?.median;
const seconds = (summary) => summary?.seconds?.median;
// Server: time per request is the inverse of the sustained request rate on the same connections.
const perRequest = (summary) => (summary?.requestsPerSecond ? 1 / summary.requestsPerSecond.median : undefined);

function ratio(a, b) {
  return typeof a === "number" && typeof b === "number" && b > 0 ? a / b : null;
}

/** Every ratio of the run: `{ id, label, value, target?: { op, limit }, met? }`. */
function computeRatios(cases) {
  const c = (id) => cases[id];
  const rows = [
    ["toDataFrame/floor.c3", "toDataFrame time / floor time (same fields), c=3", ratio(seconds(c("toDataFrame.c3")), seconds(c("floor.columns.c3"))), "<=", 1.3],
    ["toDataFrame/floor.c1", "toDataFrame time / floor time (same fields), c=1", ratio(seconds(c("toDataFrame.c1")), seconds(c("floor.columns.c1"))), "<=", 1.3],
    ["naive/toDataFrame", "naive TypeScript time / toDataFrame time", ratio(seconds(c("naive")), seconds(c("toDataFrame.c3"))), ">=", 2.5],
    ["python/toDataFrame", "Python requests+pandas time / toDataFrame time", ratio(seconds(c("python")), seconds(c("toDataFrame.c3"))), ">=", 3],
    ["toDataFrame.rss", "toDataFrame peak RSS (MiB), c=3", MiB(c("toDataFrame.c3")) ?? null, "<=", 300],
    ["exportCsv.rss.big/small", "exportCsv peak RSS big / small, offset (default)", ratio(MiB(c("exportCsv.big.offset")), MiB(c("exportCsv.small.offset"))), "<=", 1.3],
  ];
  for (const q of ["noquery", "query"]) {
    for (const paging of ["offset", "keyset"]) {
      rows.push([
        `server.${paging}.${q}.deep/first`,
        `server deep page / first page time, ${paging}, ${q === "query" ? "with query" : "no query"}`,
        ratio(perRequest(c(`server.${paging}.deep.${q}`)), perRequest(c(`server.${paging}.first.${q}`))),
        "<=",
        1.5,
      ]);
    }
  }
  const info = [
    ["iterate.offset.c1/floor", "iterate offset c=1 time / floor c=1 (full records)", ratio(seconds(c("iterate.offset.c1")), seconds(c("floor.full.c1")))],
    ["iterate.offset.c3/floor", "iterate offset c=3 time / floor c=3 (full records)", ratio(seconds(c("iterate.offset.c3")), seconds(c("floor.full.c3")))],
    ["iterate.keyset/floor.c1", "iterate keyset time / floor c=1 (full records)", ratio(seconds(c("iterate.keyset")), seconds(c("floor.full.c1")))],
    ["exportCsv.rss.big/small.keyset", "exportCsv peak RSS big / small, keyset", ratio(MiB(c("exportCsv.big.keyset")), MiB(c("exportCsv.small.keyset")))],
    ["server.cold.offset.deep/first", "server cold deep / cold first page, offset, query never seen", ratio(seconds(c("server.cold.offset.deep.query")), seconds(c("server.cold.offset.first.query")))],
    ["server.cold.keyset.deep/first", "server cold keyset deep / cold offset first page, query never seen", ratio(seconds(c("server.cold.keyset.deep.query")), seconds(c("server.cold.offset.first.query")))],
  ];
  return [
    ...rows.map(([id, label, value, op, limit]) => ({
      id,
      label,
      value,
      target: { op, limit },
      met: value === null ? null : op === "<=" ? value <= limit : value >= limit,
    })),
    ...info.map(([id, label, value]) => ({ id, label, value })),
  ];
}

/** The targeted ratios that were measured and missed. */
function missedTargets(ratios) {
  return ratios.filter((r) => r.target && r.met === false);
}

module.exports = { computeRatios, missedTargets };
