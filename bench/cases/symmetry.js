"use strict";
// Symmetry of every material on the bench server in the client: `symmetryOf` per record, as a
// computed column runs it. The structures are downloaded first, untimed; the timed part is the
// symmetry alone. `cache: false` forgets every result before each record (without the cache: the
// search and the group named from its operations, each time); `cache: true` is what a table sees,
// an identical structure a lookup. Real, distinct structures: symmetry-real.js.
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { Client, symmetryOf } = require(distIndex());
const { clearSymmetryCache } = require(
  require("node:path").join(require("node:path").dirname(distIndex()), "structure", "symmetry.js"),
);

runCase(async ({ baseUrl, credentials, expected, cache }) => {
  const client = new Client({ baseUrl, ...credentials });
  const records = [];
  for await (const page of client.materials.pages({ fields: { lattice: 1, basis: 1 }, paging: "keyset" }))
    records.push(...page);
  await client.close();
  expectCount("symmetry", records.length, expected);
  symmetryOf(records[0]); // loads and compiles the WebAssembly module, unmeasured
  clearSymmetryCache();
  const groups = new Set();
  const stop = startClock();
  for (const record of records) {
    if (!cache) clearSymmetryCache();
    groups.add(symmetryOf(record).spaceGroupNumber);
  }
  const clock = stop();
  return { ...clock, records: records.length, spaceGroups: groups.size };
});
