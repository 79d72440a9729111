"use strict";
// Where a walk over the far link spends its time, by hand (not part of `npm run bench`):
//   node bench/link-timeline.js [--synthetic 20000] [--rtt 40] [--mbit 50] [--in-flight 6] [--pages]
// On a fresh `matframe serve` (cold), then on the same server again (warm), logs in and walks the
// default columns' fields with a plain undici Pool, 6 pages in flight, through the link proxy;
// each page's request leaving, first byte, last byte and parse done are timed on the client.
// A third fresh server is walked on loopback, without the link: the server's own time for a
// cold walk, which paces the walk when it is longer than the link's.
const { brotliDecompressSync } = require("node:zlib");
const path = require("node:path");
const { Pool } = require("undici");
const { startServerProcess } = require("./lib/server-process");
const { startLinkProcess } = require("./lib/link");
const { login } = require("./lib/api");

const DIST = process.env.MATFRAME_BENCH_DIST ?? path.join(__dirname, "..", "dist");
const { DEFAULT_COLUMNS, planColumns } = require(path.join(DIST, "frame", "table", "column-spec.js"));

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

/** Logs in and walks every page through `baseUrl`, `inFlight` at a time: the timeline, in ms from the start. */
async function walk(baseUrl, inFlight) {
  const fields = planColumns(DEFAULT_COLUMNS).fields;
  const { origin, pathname } = new URL(baseUrl);
  const pool = new Pool(origin, { connections: inFlight });
  const start = performance.now();
  const at = () => performance.now() - start;
  const credentials = await login(baseUrl, undefined, pool);
  const loginMs = at();
  const headers = {
    "X-Account-Id": credentials.accountId,
    "X-Auth-Token": credentials.authToken,
    "accept-encoding": "br",
  };
  const pages = [];
  const fetchPage = async (skip) => {
    const page = { skip, sent: at() };
    pages.push(page);
    const projection = { sort: { _id: 1 }, limit: 500, fields, ...(skip ? { skip } : {}) };
    const qs = new URLSearchParams({ query: "{}", projection: JSON.stringify(projection) });
    const answer = await pool.request({ path: `${pathname}/materials?${qs}`, method: "GET", headers });
    page.firstByte = at();
    const bytes = Buffer.from(await answer.body.arrayBuffer());
    page.lastByte = at();
    page.bytes = bytes.length;
    const text = answer.headers["content-encoding"] === "br" ? brotliDecompressSync(bytes) : bytes;
    const records = JSON.parse(text).data.length;
    page.parsed = at();
    return records;
  };
  let next = 0;
  const pending = [];
  const fill = () => {
    while (pending.length < inFlight) {
      pending.push(fetchPage(next));
      next += 500;
    }
  };
  fill();
  for (;;) {
    const records = await pending.shift();
    if (records < 500) break;
    fill();
  }
  await Promise.all(pending);
  const totalMs = at();
  await pool.close();
  return { loginMs, totalMs, pages: pages.sort((a, b) => a.skip - b.skip) };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

function summary(name, { loginMs, totalMs, pages }, { rttMs, mbit }) {
  const full = pages.filter((p) => p.bytes > 1000);
  const wireMs = (bytes) => (bytes * 8) / (mbit * 1000);
  const first = pages[0];
  // Of a page's wait for its first byte, what is not the round trip: the server's time to answer
  // (and any queue behind the pages before it on the line).
  const waits = full.map((p) => p.firstByte - p.sent - rttMs);
  const lastBytes = full.map((p) => p.lastByte).sort((a, b) => a - b);
  const gaps = lastBytes.slice(1).map((t, i) => t - lastBytes[i]);
  const parse = full.map((p) => p.parsed - p.lastByte);
  const bytes = pages.reduce((sum, p) => sum + p.bytes, 0);
  const f = (ms) => ms.toFixed(0);
  return [
    `${name}: ${f(totalMs)} ms; login ${f(loginMs)} ms; ${pages.length} pages, ${(bytes / 1e6).toFixed(2)} MB (${f(wireMs(bytes))} ms on the line)`,
    `  first page: sent at ${f(first.sent)}, first byte ${f(first.firstByte - first.sent)} ms later (a round trip is ${rttMs})`,
    `  wait for the first byte beyond the round trip, median ${f(median(waits))} ms, max ${f(Math.max(...waits))} ms`,
    `  between successive pages' last bytes: median ${median(gaps).toFixed(1)} ms (a page's time on the line: ${wireMs(median(full.map((p) => p.bytes))).toFixed(1)} ms)`,
    `  decode + JSON.parse after the last byte: median ${median(parse).toFixed(1)} ms, sum ${f(parse.reduce((a, b) => a + b, 0))} ms`,
  ].join("\n");
}

async function main() {
  const synthetic = option("synthetic", 20_000);
  const shape = { rttMs: option("rtt", 40), mbit: option("mbit", 50) };
  const inFlight = option("in-flight", 6);
  const lines = [];
  const server = await startServerProcess({ synthetic });
  const proxy = await startLinkProcess({ origin: server.origin, ...shape });
  try {
    const baseUrl = `${proxy.origin}${new URL(server.baseUrl).pathname}`;
    const cold = await walk(baseUrl, inFlight);
    const warm = await walk(baseUrl, inFlight);
    lines.push(summary("cold server, through the link", cold, shape), summary("warm, through the link", warm, shape));
    if (process.argv.includes("--pages")) {
      for (const [name, run] of [
        ["cold", cold],
        ["warm", warm],
      ]) {
        lines.push(`${name}: skip sent firstByte lastByte parsed (ms)`);
        for (const p of run.pages)
          lines.push(`  ${p.skip} ${[p.sent, p.firstByte, p.lastByte, p.parsed].map((t) => t.toFixed(0)).join(" ")}`);
      }
    }
  } finally {
    await proxy.stop();
    await server.stop();
  }
  const alone = await startServerProcess({ synthetic });
  try {
    const direct = await walk(alone.baseUrl, inFlight);
    lines.push(
      `cold server on loopback, no link: ${direct.totalMs.toFixed(0)} ms (login ${direct.loginMs.toFixed(0)} ms): the server's own pace`,
    );
  } finally {
    await alone.stop();
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch((error) => {
  process.stderr.write(`link-timeline: ${error.message}\n`);
  process.exitCode = 1;
});
