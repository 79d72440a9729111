"use strict";
// `client.materials.exportStructures(dir, { format: "cif" })` of the whole collection (issue 14):
// time and this process's peak RSS, which must stay flat in the collection's size. The directory
// goes to the system's temporary directory and is removed afterwards.
const { mkdtempSync, rmSync } = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { Client } = require(distIndex());

runCase(async ({ baseUrl, credentials, format = "cif", expected }) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "matframe-bench-structures-"));
  try {
    const client = new Client({ baseUrl, ...credentials });
    const stop = startClock();
    const result = await client.materials.exportStructures(path.join(dir, "out"), { format, onWarning: () => {} });
    const clock = stop();
    await client.close();
    expectCount(`exportStructures ${format}`, result.items, expected);
    return { ...clock, records: result.items, megabytes: result.bytes / 2 ** 20 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
