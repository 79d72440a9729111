#!/usr/bin/env node
// Benchmark: does a page cost the same at the end of a 100,000-material walk as at the start?
// Starts `matframe serve --synthetic 100000` in-process (from dist/; run `npm run bench:server`,
// which builds first), walks every page over HTTP with offset paging (limit=500, skip=0, 500,
// ...) and keyset paging (_id > last), with and without a query, and prints the median time per
// page over the first and the last ten pages. Each walk is the first the server sees of its
// query (nothing cached from an earlier walk). Times include the client's JSON parsing, in the
// same process. For contrast it also times mingo's own `find(query).skip(s).limit(500)`
// in-process, which scans the collection for every page.
//
// Usage: node bench/server-paging.js [--synthetic N] [--json]
"use strict";

const { parseArgs } = require("node:util");
const path = require("node:path");

const { values: flags } = parseArgs({
  options: { synthetic: { type: "string", default: "100000" }, json: { type: "boolean", default: false } },
});
const SYNTHETIC = Number(flags.synthetic);
const PAGE = 500;
const EDGE = 10; // pages averaged at each end of a walk

const dist = path.join(__dirname, "..", "dist");
const { startServer } = require(path.join(dist, "server"));
const { find } = require("mingo");

const QUERIES = {
  none: {},
  "method.subtype in [us, paw]": { "method.subtype": { $in: ["us", "paw"] } },
};
// Each measured walk gets its own spelling of the query, so no walk reuses another's cursor.
const variant = (query, n) => (Object.keys(query).length ? { ...query, name: { $ne: `not-a-name-${n}` } } : query);

async function main() {
  const server = await startServer({ port: 0, synthetic: SYNTHETIC });
  const login = await fetch(`${server.baseUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "username=demo&password=demo",
  });
  const headers = (await login.json()).data;

  async function getPage(query, projection) {
    const url = `${server.baseUrl}/materials?query=${encodeURIComponent(JSON.stringify(query))}&projection=${encodeURIComponent(JSON.stringify(projection))}`;
    const started = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.json();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`${res.status}: ${body.message}`);
    return { ms, records: body.data };
  }

  async function walk(query, paging) {
    const times = [];
    let total = 0;
    let after;
    for (let skip = 0; ; skip += PAGE) {
      let q = query;
      const projection = { limit: PAGE, sort: { _id: 1 } };
      if (paging === "offset") projection.skip = skip;
      else if (after !== undefined)
        q = Object.keys(query).length ? { $and: [query, { _id: { $gt: after } }] } : { _id: { $gt: after } };
      const { ms, records } = await getPage(q, projection);
      times.push(ms);
      total += records.length;
      if (records.length < PAGE) break;
      after = records[records.length - 1]._id;
    }
    return { times, total };
  }

  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const rows = [];
  // Warm-up (JIT, connection) with a query not measured below.
  for (let skip = 0; skip < 20 * PAGE; skip += PAGE)
    await getPage({ formula: { $ne: "warm-up" } }, { limit: PAGE, skip });
  let n = 0;
  for (const [label, query] of Object.entries(QUERIES)) {
    for (const paging of ["offset", "keyset"]) {
      n += 1;
      const { times, total } = await walk(variant(query, n), paging);
      const full = times.length > 1 ? times.slice(0, -1) : times; // the last page may be short
      const first = median(full.slice(0, EDGE));
      const last = median(full.slice(-EDGE));
      rows.push({
        query: label,
        paging,
        pages: times.length,
        records: total,
        firstMs: first,
        lastMs: last,
        ratio: last / first,
      });
    }
  }

  // A cold page far into a walk: a query the server has not seen, asked directly at the end.
  const coldQuery = { "lattice.a": { $gt: 2.5 } };
  const cold0 = await getPage({ ...coldQuery, formula: { $ne: "x0" } }, { limit: PAGE, skip: 0 });
  // The start of the last full page (skip 99,500 at --synthetic 100000), whatever the size.
  const deepSkip = Math.floor((server.materialCount - PAGE) / PAGE) * PAGE;
  const coldEnd = await getPage({ ...coldQuery, formula: { $ne: "x1" } }, { limit: PAGE, skip: deepSkip });

  // mingo alone, in-process: find().skip().limit() for the first and the last page.
  const records = [];
  for (let skip = 0; ; skip += PAGE) {
    const { records: page } = await getPage({}, { limit: PAGE, skip });
    records.push(...page);
    if (page.length < PAGE) break;
  }
  const timeMingo = (skip) => {
    const started = performance.now();
    find(records, QUERIES["method.subtype in [us, paw]"]).skip(skip).limit(PAGE).all();
    return performance.now() - started;
  };
  timeMingo(0);
  const mingoFirst = mean([0, 1, 2].map(() => timeMingo(0)));
  const lastSkip = Math.floor((rows[2].records - 1) / PAGE) * PAGE;
  const mingoLast = mean([0, 1, 2].map(() => timeMingo(lastSkip)));
  await server.close();

  if (flags.json) {
    console.log(
      JSON.stringify(
        {
          synthetic: SYNTHETIC,
          materials: server.materialCount,
          rows,
          cold: { firstMs: cold0.ms, lastMs: coldEnd.ms },
          mingo: { firstMs: mingoFirst, lastMs: mingoLast, lastSkip },
        },
        null,
        2,
      ),
    );
    return;
  }
  const f = (ms) => ms.toFixed(1).padStart(7);
  console.log(
    `matframe serve with ${server.materialCount} materials; pages of ${PAGE}; median ms per page over the first and last ${EDGE} pages (HTTP, loopback)\n`,
  );
  console.log("| query | paging | pages | first pages (ms) | last pages (ms) | last / first |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(`| ${r.query} | ${r.paging} | ${r.pages} | ${f(r.firstMs)} | ${f(r.lastMs)} | ${r.ratio.toFixed(2)} |`);
  }
  console.log(
    `\nCold page (query not seen before): skip 0 ${cold0.ms.toFixed(1)} ms, skip ${deepSkip.toLocaleString("en-US")} ${coldEnd.ms.toFixed(1)} ms (the first request for a query scans up to its page; later pages continue from there).`,
  );
  console.log(
    `mingo find(query).skip(s).limit(${PAGE}) in-process, no HTTP: skip 0 ${mingoFirst.toFixed(1)} ms, skip ${lastSkip} ${mingoLast.toFixed(1)} ms per page.`,
  );
}

main().catch((error) => {
  console.error(`bench/server-paging.js: ${error.message}`);
  process.exitCode = 1;
});
