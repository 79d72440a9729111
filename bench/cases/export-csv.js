"use strict";
// `client.materials.exportCsv(file)` with the default columns: time and this process's peak
// RSS, which must not grow with the size of the collection. The file goes to the system's
// temporary directory and is removed afterwards.
const { mkdtempSync, rmSync } = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { Client } = require(distIndex());

runCase(async ({ baseUrl, credentials, clientOptions = {}, paging, concurrency, expected }) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "matframe-bench-"));
  try {
    const client = new Client({ baseUrl, ...credentials, ...clientOptions });
    const stop = startClock();
    const result = await client.materials.exportCsv(path.join(dir, "materials.csv"), { paging, concurrency, onWarning: () => {} });
    const clock = stop();
    await client.close();
    expectCount(`exportCsv ${paging ?? "offset"}`, result.items, expected);
    return { ...clock, records: result.items, megabytes: result.bytes / 2 ** 20 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
