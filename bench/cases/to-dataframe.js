"use strict";
// `client.materials.toDataFrame()` with the default columns, timed the way a notebook sees it:
// danfojs-node is already loaded (its import alone costs 1-1.6 s and ~90 MiB, issue 4), so the
// figure is the download plus the table, comparable with the floor at the same concurrency.
require("danfojs-node");
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { Client } = require(distIndex());

// With `login` (username and password) the timing starts before `Client.login`, as a user's first read.
runCase(async ({ baseUrl, credentials, login, clientOptions = {}, concurrency, expected }) => {
  const stop = startClock();
  const client = login
    ? await Client.login({ baseUrl, ...login, ...clientOptions })
    : new Client({ baseUrl, ...credentials, ...clientOptions });
  const df = await client.materials.toDataFrame({ concurrency, onWarning: () => {} });
  const clock = stop();
  await client.close();
  const [rows, columns] = df.shape;
  expectCount("toDataFrame", rows, expected);
  return { ...clock, records: rows, columns };
});
