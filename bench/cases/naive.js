"use strict";
// The naive TypeScript way, as a script would be written without matframe: global fetch, one
// page at a time, every record kept, a generic recursive flatten into dotted keys, then
// `new DataFrame(rows)`. Without `fields` it asks for whole records, as such a script does (it
// has no column plan to derive a projection from); with `fields` it asks for what toDataFrame
// asks for, which isolates the cost of the flatten-and-rows approach. danfojs-node is loaded
// before timing, as for toDataFrame.
const { DataFrame } = require("danfojs-node");
const { runCase, startClock, expectCount } = require("../lib/case-kit");

/** `{a: {b: 1}, c: [{d: 2}]}` -> `{"a.b": 1, "c.0.d": 2}`: what generic flatten helpers do. */
function flatten(value, prefix = "", out = {}) {
  if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) flatten(child, prefix ? `${prefix}.${key}` : key, out);
  } else {
    out[prefix] = value;
  }
  return out;
}

runCase(async ({ baseUrl, credentials, fields, query = {}, pageSize = 500, expected }) => {
  const headers = { "X-Account-Id": credentials.accountId, "X-Auth-Token": credentials.authToken };
  const stop = startClock();
  const records = [];
  for (let skip = 0; ; skip += pageSize) {
    const projection = JSON.stringify({ ...(fields ? { fields } : {}), sort: { _id: 1 }, skip, limit: pageSize });
    const url = `${baseUrl}/materials?query=${encodeURIComponent(JSON.stringify(query))}&projection=${encodeURIComponent(projection)}`;
    const response = await fetch(url, { headers });
    if (!response.ok) throw new Error(`naive: page at skip ${skip} answered ${response.status}`);
    const { data } = await response.json();
    records.push(...data);
    if (data.length < pageSize) break;
  }
  const rows = records.map((record) => flatten(record));
  const df = new DataFrame(rows);
  const clock = stop();
  const [rowCount, columns] = df.shape;
  expectCount("naive", rowCount, expected);
  return { ...clock, records: rowCount, columns };
});
