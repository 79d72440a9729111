"use strict";
// A hive-partitioned Parquet dataset (`partitionBy: "lattice.type"`, row groups of 122,880 rows)
// of `rows` synthetic material-shaped records made in this process, with no server: what the
// dataset writer alone costs, and that its peak RSS stays flat from one size to ten times it (one
// row group per lattice type in memory, never the collection). The walk is matframe's export
// planner and runner with a record source in place of a collection; the output goes to the
// system's temporary directory and is removed afterwards.
const { mkdtempSync, readdirSync, rmSync } = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { runCase, startClock, expectCount, distIndex } = require("../lib/case-kit");

const { planTableExport, runTableExport } = require(path.join(path.dirname(distIndex()), "frame", "collection-io.js"));

const TYPES = ["CUB", "FCC", "BCC", "TET", "BCT", "ORC", "ORCF", "ORCI", "ORCC", "HEX", "RHL", "MCL", "MCLC", "TRI"];
const FORMULAS = ["Si", "GaAs", "NaCl", "Fe2O3", "TiO2", "Cu", "Al2O3", "MgO", "ZnS", "BaTiO3"];
const PAGE = 500;

/** Pages of material-shaped records, made as they are asked for: ids in _id order, values varied. */
async function* pages(rows) {
  for (let start = 0; start < rows; start += PAGE) {
    const page = [];
    for (let i = start; i < Math.min(rows, start + PAGE); i++) {
      const a = 3 + (i % 997) / 331;
      page.push({
        _id: i.toString(16).padStart(24, "0"),
        name: `synthetic ${i}`,
        formula: FORMULAS[i % FORMULAS.length],
        method: { type: "DFT", subtype: i % 3 === 0 ? "GGA" : "LDA" },
        lattice: { type: TYPES[(i * 5) % TYPES.length], a, b: a * 1.01, c: a * 1.2 },
        derivedProperties: [
          { name: "volume", value: a * a * a * 1.212 },
          { name: "density", value: 2 + (i % 101) / 50 },
        ],
      });
    }
    yield page;
  }
}

const COLUMNS = [
  "_id",
  "name",
  "formula",
  "method.type",
  "method.subtype",
  "lattice.type",
  "lattice.a",
  "lattice.b",
  "lattice.c",
  "derivedProperties.volume",
  "derivedProperties.density",
];

runCase(async ({ rows, partitionBy = "lattice.type", rowGroupSize }) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "matframe-bench-dataset-"));
  try {
    const options = {
      columns: COLUMNS,
      ...(partitionBy ? { partitionBy } : {}),
      ...(rowGroupSize ? { rowGroupSize } : {}),
      onWarning: () => {},
    };
    const planned = planTableExport("parquet", options);
    const source = { walk: () => pages(rows), source: { platform: "in-process records", account: "bench" } };
    const target = path.join(dir, partitionBy ? "dataset" : "one.parquet");
    const stop = startClock();
    const result = await runTableExport(source, target, planned, options);
    const clock = stop();
    expectCount("exportParquet partitionBy", result.items, rows);
    if (partitionBy && !readdirSync(target).includes("_SUCCESS")) throw new Error("the dataset has no _SUCCESS marker");
    return {
      ...clock,
      records: result.items,
      megabytes: result.bytes / 2 ** 20,
      partitions: result.parts?.length ?? 1,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
