"use strict";
// A page for a query the server has never seen (no cursor to continue): the worst case of a
// deep offset page, which has to scan up to its skip. Each request spells the query anew
// (`name: {$ne: <unique>}` changes nothing in the result), one request at a time.
const { request } = require("undici");
const { runCase } = require("../lib/case-kit");

runCase(async ({ baseUrl, headers, query, skip = 0, after, samples }) => {
  const times = [];
  for (let i = 0; i < samples; i++) {
    const unique = { ...query, name: { $ne: `bench-cold-${process.pid}-${i}` } };
    const q = after === undefined ? unique : { $and: [unique, { _id: { $gt: after } }] };
    const projection = { sort: { _id: 1 }, limit: 500 };
    if (skip > 0) projection.skip = skip;
    const url = `${baseUrl}/materials?${new URLSearchParams({ query: JSON.stringify(q), projection: JSON.stringify(projection) })}`;
    const start = process.hrtime.bigint();
    const { statusCode, body } = await request(url, { headers });
    const text = await body.text();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (statusCode !== 200) throw new Error(`cold page answered ${statusCode}: ${text.slice(0, 200)}`);
    if (JSON.parse(text).data.length !== 500) throw new Error(`cold page at skip ${skip} was not full.`);
  }
  times.sort((a, b) => a - b);
  const medianMs = times[times.length >> 1];
  return { seconds: medianMs / 1000, latencyMs: medianMs };
});
