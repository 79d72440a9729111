"use strict";
// The server alone: autocannon hammers one URL (a page of 500 full records) over keep-alive
// connections for a fixed time. Every request of a run asks for the same page, as each page of
// a walk is asked for once: for a query, the server's cursor for it is warm after the first.
const autocannon = require("autocannon");
const { runCase } = require("../lib/case-kit");

runCase(async ({ url, headers, connections, duration }) => {
  const result = await autocannon({ url, headers, connections, duration });
  const total = result.requests.total;
  const bad = result.non2xx + result.errors + result.timeouts;
  if (total === 0 || bad > 0) {
    throw new Error(
      `autocannon: ${total} requests, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts.`,
    );
  }
  return {
    seconds: result.duration,
    requestsPerSecond: total / result.duration,
    latencyMeanMs: result.latency.mean,
    latencyP99Ms: result.latency.p99,
    kilobytesPerResponse: result.throughput.total / total / 1024,
  };
});
