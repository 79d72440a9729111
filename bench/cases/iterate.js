"use strict";
// `client.materials.iterate` over every record, nothing kept: the client's cost over the floor.
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { Client } = require(distIndex());

runCase(async ({ baseUrl, credentials, clientOptions = {}, paging, concurrency, fields, expected }) => {
  const client = new Client({ baseUrl, ...credentials, ...clientOptions });
  const stop = startClock();
  let records = 0;
  for await (const _ of client.materials.iterate({ paging, concurrency, fields })) records += 1;
  const clock = stop();
  await client.close();
  expectCount(`iterate ${paging}`, records, expected);
  return { ...clock, records };
});
