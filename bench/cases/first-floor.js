"use strict";
// The first call's floor: the requests a results table's first call sent (recorded by
// first-call.js, in their order), replayed twice in a fresh process with a plain undici `Pool`,
// three in flight, each body JSON.parsed and dropped. No joins, no rows, no table: what is left
// of the first replay over the second is what a fresh process's transport alone pays (its
// connections, undici's parser and code run for the first times, the JSON parser's first
// shapes), which no code above it can leave out. undici is loaded before the clock, as
// `matframe/notebook` loads the transport before a notebook's first table.
const { runCase, startClock } = require("../lib/case-kit");

runCase(async ({ baseUrl, credentials, paths, answers = [], concurrency = 3 }) => {
  if (!Array.isArray(paths) || paths.length === 0) throw new Error("first-floor.js needs the first call's paths.");
  const { Pool } = require("undici");
  const pool = new Pool(new URL(baseUrl).origin, { connections: concurrency + 2 });
  const headers = {
    "X-Account-Id": credentials.accountId,
    "X-Auth-Token": credentials.authToken,
    accept: "application/json",
  };
  const replay = async () => {
    const queue = paths.map((path, at) => ({ path, at }));
    let records = 0;
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const { path, at } = next;
        const { statusCode, body } = await pool.request({ path, method: "GET", headers });
        const text = await body.text();
        // The same answer as the first call had (the link probe, the API's base path, a 404): else
        // the two servers' data differ, and the replay would time other work.
        const expected = answers[at];
        if (
          expected &&
          (statusCode !== expected.status || (expected.length ?? text.length) !== Buffer.byteLength(text))
        )
          throw new Error(
            `${path.slice(0, 80)} answered ${statusCode} with ${Buffer.byteLength(text)} bytes; the first call had ${expected.status} with ${expected.length ?? "?"}.`,
          );
        if (statusCode >= 400 && !(expected?.status === statusCode))
          throw new Error(`${path.slice(0, 80)} answered ${statusCode}.`);
        const data = JSON.parse(text).data;
        if (Array.isArray(data)) records += data.length;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return records;
  };
  const first = startClock();
  const records = await replay();
  const cold = first();
  const second = startClock();
  const again = await replay();
  const warm = second();
  await pool.close();
  if (again !== records) throw new Error(`the two replays read ${records} and ${again} records.`);
  return { ...cold, records, requests: paths.length, warmSeconds: warm.seconds, warmCpuSeconds: warm.cpuSeconds };
});
