"use strict";
// The first call and the warm one, in a client process of its own against a server started for
// this case alone: a table twice (the first is what a user meets on a fresh `matframe serve`, the
// second what a warm-up buys), then, for the results, `_id: {$in: [100 ids]}` lists of materials,
// each with ids it has not asked for before.
//   table: "results" (`client.results.toDataFrame({ properties: ["band_gaps"] })`) or "materials"
//          (`client.materials.toDataFrame()`, every served material);
//   entry: "notebook" (`require("matframe")`, then danfojs-node, then `require("matframe/notebook")`,
//          as a notebook's first cell: the table's first call starts with danfo and the HTTP
//          transport loaded) or "root" (`require("matframe")` alone: the first table loads both).
// Each step is timed apart: `importSeconds` (the root entry), `danfoSeconds` (danfojs-node, the
// one-off load a process pays once, resolved from the package as matframe resolves it, so that
// matframe finds it loaded), `notebookSeconds` (the rest of `matframe/notebook`'s import, the
// transport's load most of it), and the first call's own figure after them. With `recordPaths`,
// the paths of the first call's requests come back in their order, with each answer's status and
// uncompressed length, for first-floor.js to replay and check.
const { runCase, startClock, distIndex } = require("../lib/case-kit");
const path = require("node:path");
const diagnostics = require("node:diagnostics_channel");

runCase(async ({ baseUrl, credentials, table = "results", entry = "notebook", idSamples = 5, recordPaths = false }) => {
  const imported = startClock();
  const { Client } = require(distIndex());
  const importSeconds = imported().seconds;
  // Resident size after each one-off step (the process's peak comes later, with the table).
  const importRssKiB = process.memoryUsage().rss / 1024;
  let danfo;
  let notebookSeconds;
  if (entry === "notebook") {
    const loading = startClock();
    require(require.resolve("danfojs-node", { paths: [path.dirname(distIndex())] }));
    danfo = { ...loading(), rssKiB: process.memoryUsage().rss / 1024 };
    const importing = startClock();
    require(path.join(path.dirname(distIndex()), "notebook", "index.js"));
    notebookSeconds = importing().seconds;
  }

  const client = new Client({ baseUrl, ...credentials });
  const read =
    table === "results"
      ? () => client.results.toDataFrame({ properties: ["band_gaps"], onWarning: () => {} })
      : () => client.materials.toDataFrame({ onWarning: () => {} });
  // Each request's path, then its status and, for a body sent uncompressed, its length: what the
  // floor's replay of the same paths must meet (the same answers, byte for byte in size).
  const paths = [];
  const answers = [];
  const sent = new WeakMap();
  const record = ({ request }) => sent.set(request, paths.push(request.path) - 1);
  const answered = ({ request, response }) => {
    const at = sent.get(request);
    if (at === undefined) return;
    const headers = {};
    for (let i = 0; i + 1 < response.headers.length; i += 2)
      headers[String(response.headers[i]).toLowerCase()] = String(response.headers[i + 1]);
    const length = headers["content-encoding"] ? undefined : Number(headers["content-length"]);
    answers[at] = { status: response.statusCode, ...(Number.isInteger(length) ? { length } : {}) };
  };
  if (recordPaths) {
    diagnostics.subscribe("undici:request:create", record);
    diagnostics.subscribe("undici:request:headers", answered);
  }
  const stop = startClock();
  const first = await read();
  const cold = stop();
  if (recordPaths) {
    diagnostics.unsubscribe("undici:request:create", record);
    diagnostics.unsubscribe("undici:request:headers", answered);
  }
  const again = startClock();
  const second = await read();
  const warm = again();
  if (first.shape[0] !== second.shape[0]) throw new Error(`the first and second ${table} tables differ in rows.`);

  const lookups = [];
  if (table === "results" && idSamples > 0) {
    const page = await client.materials.list({ projection: { fields: { _id: 1 }, sort: { _id: -1 }, limit: 500 } });
    for (let i = 0; i < idSamples; i++) {
      const ids = page.slice((i * 100) % 500, ((i * 100) % 500) + 100).map((material) => material._id);
      // One condition that changes nothing, so no sample is answered from an earlier one's cache.
      const query = { _id: { $in: ids }, name: { $ne: `bench-${process.pid}-${i}` } };
      const start = process.hrtime.bigint();
      const found = await client.materials.list({ query, projection: { fields: { _id: 1 }, limit: 500 } });
      lookups.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (found.length !== ids.length) throw new Error(`_id $in of ${ids.length} ids found ${found.length}.`);
    }
  }
  await client.close();
  const sorted = [...lookups].sort((a, b) => a - b);
  return {
    ...cold,
    records: first.shape[0],
    importSeconds,
    importRssKiB,
    ...(danfo
      ? { danfoSeconds: danfo.seconds, danfoCpuSeconds: danfo.cpuSeconds, danfoRssKiB: danfo.rssKiB, notebookSeconds }
      : {}),
    warmSeconds: warm.seconds,
    warmCpuSeconds: warm.cpuSeconds,
    ...(lookups.length > 0 ? { idInMs: sorted[sorted.length >> 1], idInFirstMs: lookups[0] } : {}),
    ...(recordPaths ? { paths, answers } : {}),
  };
});
