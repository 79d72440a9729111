"use strict";
// A table export of the whole collection with the default columns (`exportCsv` or
// `exportParquet`, optionally partitioned or resumable): time, this process's peak RSS (flat in the
// collection's size) and the bytes written. The output goes to the system's temporary directory
// and is removed afterwards.
const { mkdtempSync, rmSync } = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { Client } = require(distIndex());

const METHODS = { csv: "exportCsv", parquet: "exportParquet" };

runCase(
  async ({
    baseUrl,
    credentials,
    clientOptions = {},
    format = "csv",
    paging,
    concurrency,
    partitions,
    resume,
    expected,
  }) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "matframe-bench-"));
    try {
      const client = new Client({ baseUrl, ...credentials, ...clientOptions });
      const method = METHODS[format];
      const target = path.join(dir, partitions ? "dataset" : `materials.${format}`);
      const stop = startClock();
      const result = await client.materials[method](target, {
        paging,
        concurrency,
        partitions,
        resume,
        onWarning: () => {},
      });
      const clock = stop();
      await client.close();
      expectCount(
        `${method} ${paging ?? (resume ? "keyset" : "offset")}${partitions ? ` partitions ${partitions}` : ""}${resume ? " resume" : ""}`,
        result.items,
        expected,
      );
      return { ...clock, records: result.items, megabytes: result.bytes / 2 ** 20 };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
