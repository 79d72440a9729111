"use strict";
// Re-running a notebook cell with the response cache on (issue 12): `toDataFrame` once to fill
// the cache, then again against the unchanged collection, timed; the first run's time is
// reported beside it, so the ratio comes from one process and one link.
require("danfojs-node");
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { Client } = require(distIndex());

runCase(async ({ baseUrl, credentials, clientOptions = {}, concurrency, expected }) => {
  const read = async () => {
    const client = new Client({ baseUrl, ...credentials, ...clientOptions, cache: "memory" });
    const stop = startClock();
    const df = await client.materials.toDataFrame({ concurrency, onWarning: () => {} });
    const clock = stop();
    await client.close();
    expectCount("toDataFrame (cached)", df.shape[0], expected);
    return { clock, rows: df.shape[0] };
  };
  const first = await read();
  const again = await read();
  return { ...again.clock, records: again.rows, firstSeconds: first.clock.seconds };
});
