"use strict";
// The first call and the warm one, in a client process of its own against a server started for
// this repetition alone: `client.results.toDataFrame({ properties: ["band_gaps"] })` twice (the
// first is what a user meets on a fresh `matframe serve`, the second what a warm-up buys), then
// `_id: {$in: [100 ids]}` lists of materials, each with ids it has not asked for before.
// `preloadDanfo` loads danfo (what the client's first table costs it) before timing anything.
const { runCase, startClock, distIndex } = require("../lib/case-kit");

const { Client } = require(distIndex());

runCase(async ({ baseUrl, credentials, idSamples = 5, preloadDanfo = false }) => {
  // With danfo loaded before the clock starts, the first call's extra time is the server's alone.
  if (preloadDanfo) require("danfojs-node");
  const client = new Client({ baseUrl, ...credentials });
  const table = () => client.results.toDataFrame({ properties: ["band_gaps"], onWarning: () => {} });
  const stop = startClock();
  const first = await table();
  const cold = stop();
  const again = startClock();
  const second = await table();
  const warm = again();
  if (first.shape[0] !== second.shape[0]) throw new Error("the first and second results tables differ in rows.");

  const page = await client.materials.list({ projection: { fields: { _id: 1 }, sort: { _id: -1 }, limit: 500 } });
  const lookups = [];
  for (let i = 0; i < idSamples; i++) {
    const ids = page.slice((i * 100) % 500, ((i * 100) % 500) + 100).map((material) => material._id);
    // One condition that changes nothing, so no sample is answered from an earlier one's cache.
    const query = { _id: { $in: ids }, name: { $ne: `bench-${process.pid}-${i}` } };
    const start = process.hrtime.bigint();
    const found = await client.materials.list({ query, projection: { fields: { _id: 1 }, limit: 500 } });
    lookups.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (found.length !== ids.length) throw new Error(`_id $in of ${ids.length} ids found ${found.length}.`);
  }
  await client.close();
  const sorted = [...lookups].sort((a, b) => a - b);
  return {
    ...cold,
    records: first.shape[0],
    warmSeconds: warm.seconds,
    idInMs: sorted[sorted.length >> 1],
    idInFirstMs: lookups[0],
  };
});
