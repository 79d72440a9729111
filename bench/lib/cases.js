"use strict";
// Which cases a run measures, against which server, with which parameters. A case is one
// script in bench/cases, run once per repetition in a child process of its own.

/**
 * The client-side cases against the main server: the floors, iterate, toDataFrame, the naive way,
 * Python and the 100,000-material export. `columnsFields` is the projection toDataFrame derives
 * from the default columns: the floor and the baselines it is compared with ask for the same.
 */
function clientCases({ groups, server, credentials, columnsFields, python, symmetrySample = 2000 }) {
  const common = { baseUrl: server.baseUrl, credentials, expected: server.materialCount };
  const cases = [];
  const add = (group, id, label, script, params, extra = {}) => {
    if (groups.has(group))
      cases.push({ group, id, label, script, params: { ...common, ...params, label: id }, ...extra });
  };
  add("floor", "floor.full.c1", "floor: undici + JSON.parse, full records, c=1", "floor.js", { concurrency: 1 });
  add("floor", "floor.full.c3", "floor: undici + JSON.parse, full records, c=3", "floor.js", { concurrency: 3 });
  add("floor", "floor.columns.c1", "floor: undici + JSON.parse, default columns' fields, c=1", "floor.js", {
    concurrency: 1,
    fields: columnsFields,
  });
  add("floor", "floor.columns.c3", "floor: undici + JSON.parse, default columns' fields, c=3", "floor.js", {
    concurrency: 3,
    fields: columnsFields,
  });
  add("iterate", "iterate.offset.c1", "client.materials.iterate, offset, c=1", "iterate.js", {
    paging: "offset",
    concurrency: 1,
  });
  add("iterate", "iterate.offset.c3", "client.materials.iterate, offset, c=3", "iterate.js", {
    paging: "offset",
    concurrency: 3,
  });
  add("iterate", "iterate.keyset", "client.materials.iterate, keyset", "iterate.js", { paging: "keyset" });
  add("frame", "toDataFrame.c1", "toDataFrame (default columns), c=1", "to-dataframe.js", { concurrency: 1 });
  add("frame", "toDataFrame.c3", "toDataFrame (default columns), c=3 (default)", "to-dataframe.js", { concurrency: 3 });
  add("naive", "naive", "naive TS: fetch whole records, keep rows, flatten, new DataFrame", "naive.js", {});
  add("naive", "naive.fields", "naive TS as above, asking for toDataFrame's fields", "naive.js", {
    fields: columnsFields,
  });
  if (python.command && groups.has("python")) {
    add(
      "python",
      "python",
      `Python requests + pandas.json_normalize`,
      "python_pandas.py",
      { fields: columnsFields },
      { python: python.command },
    );
  }
  add(
    "export",
    "exportCsv.small.offset",
    "exportCsv (default columns), offset",
    "export-table.js",
    { paging: "offset" },
    { size: "small" },
  );
  add(
    "export",
    "exportCsv.small.keyset",
    "exportCsv (default columns), keyset",
    "export-table.js",
    { paging: "keyset" },
    { size: "small" },
  );
  add(
    "export",
    "exportCsv.small.resume",
    "exportCsv (default columns), resume: true (keyset, progress committed every second)",
    "export-table.js",
    { resume: true },
    { size: "small" },
  );
  add(
    "parquet",
    "exportParquet.small.keyset",
    "exportParquet (default columns), keyset",
    "export-table.js",
    { format: "parquet", paging: "keyset" },
    { size: "small" },
  );
  add(
    "parquet",
    "exportParquet.small.resume",
    "exportParquet (default columns), resume: true (progress committed every row group)",
    "export-table.js",
    { format: "parquet", resume: true },
    { size: "small" },
  );
  add(
    "parquet",
    "parquet.exportCsv.small",
    "exportCsv (default columns), offset: the baseline",
    "export-table.js",
    { format: "csv" },
    { size: "small" },
  );
  add(
    "parquet",
    "exportParquet.small",
    "exportParquet (default columns), offset",
    "export-table.js",
    { format: "parquet" },
    { size: "small" },
  );
  add(
    "structures",
    "exportStructures.cif",
    "exportStructures (cif, one file per material)",
    "export-structures.js",
    { format: "cif" },
    { size: "small" },
  );
  add("symmetry", "symmetry.cached", "symmetryOf per material, results cached per structure", "symmetry.js", {
    cache: true,
  });
  add(
    "symmetry",
    "symmetry.uncached",
    "symmetryOf per material, cache cleared before each (without the cache)",
    "symmetry.js",
    { cache: false },
  );
  const realStructures = require("node:path").join(__dirname, "..", "..", "data", "reference-materials.json");
  add(
    "symmetry",
    "symmetry.real",
    "symmetryOf, 1,056 real distinct structures (Materials Project, matminer), after two unmeasured passes",
    "symmetry-real.js",
    { file: realStructures },
  );
  if (python.command && groups.has("symmetry")) {
    add(
      "symmetry",
      "symmetry.real.pymatgen",
      "pymatgen SpacegroupAnalyzer, the same 1,056 real structures",
      "python_symmetry.py",
      { file: realStructures },
      { python: python.command },
    );
    add(
      "symmetry",
      "symmetry.pymatgen",
      `pymatgen SpacegroupAnalyzer per material (${symmetrySample} evenly spaced)`,
      "python_symmetry.py",
      { sample: symmetrySample },
      { python: python.command },
    );
  }
  return cases;
}

/** The export cases against the large server (1,000,000 materials in a full run). */
function bigExportCases({ groups, server, credentials }) {
  const common = { baseUrl: server.baseUrl, credentials, expected: server.materialCount };
  const cases = [];
  if (groups.has("export")) {
    for (const paging of ["offset", "keyset"]) {
      const id = `exportCsv.big.${paging}`;
      cases.push({
        group: "export",
        id,
        label: `exportCsv (default columns), ${paging}`,
        script: "export-table.js",
        size: "big",
        params: { ...common, paging, label: id },
      });
    }
  }
  if (groups.has("parquet")) {
    const id = "exportParquet.big";
    cases.push({
      group: "parquet",
      id,
      label: "exportParquet (default columns), offset",
      script: "export-table.js",
      size: "big",
      params: { ...common, format: "parquet", label: id },
    });
    // The hive-partitioned dataset writer on its own, at the large size and ten times it (10,000,000
    // rows in a full run): its peak RSS should not grow with the rows.
    for (const times of [1, 10]) {
      const rows = server.materialCount * times;
      const did = `exportParquet.partitionBy.${times}x`;
      const label = `hive dataset (partitionBy lattice.type), ${rows.toLocaleString("en-US")} in-process records, no server`;
      cases.push({ group: "parquet", id: did, label, script: "export-dataset.js", params: { rows, label: did } });
    }
  }
  return cases;
}

/** A query every material matches but the server must evaluate record by record. */
const SERVER_QUERY = { "lattice.a": { $gt: 0 } };

/**
 * The distinct pages the server-alone cases ask for: the first page (the same request for offset
 * and keyset paging) and the deep page, by offset (skip `deepSkip`) and by keyset cursor (the
 * `_id` just before it), without and with a query. Values are paths below the origin.
 */
function serverPages({ server, deepSkip, deepIds }) {
  const { pathname } = new URL(server.baseUrl);
  const page = (query, projection) =>
    `${pathname}/materials?${new URLSearchParams({ query: JSON.stringify(query), projection: JSON.stringify(projection) })}`;
  const byId = { sort: { _id: 1 }, limit: 500 };
  const pages = {};
  for (const [suffix, query, after] of [
    ["NoQuery", {}, deepIds["no query"]],
    ["Query", SERVER_QUERY, deepIds.query],
  ]) {
    const cursor = { _id: { $gt: after } };
    pages[`first${suffix}`] = page(query, byId);
    pages[`offsetDeep${suffix}`] = page(query, { ...byId, skip: deepSkip });
    pages[`keysetDeep${suffix}`] = page(suffix === "Query" ? { $and: [query, cursor] } : cursor, byId);
  }
  return pages;
}

/** How each server page is named in tables. */
function serverPageLabel(key, deepSkip) {
  const query = key.endsWith("NoQuery") ? "no query" : `query ${JSON.stringify(SERVER_QUERY)}`;
  if (key.startsWith("first")) return `first page (offset and keyset), ${query}`;
  if (key.startsWith("offsetDeep")) return `offset deep page (skip ${deepSkip}), ${query}`;
  return `keyset deep page (_id > cursor), ${query}`;
}

/**
 * The server-alone cases: every page timed one request at a time in alternation (the ratios come
 * from these), then each page under autocannon (requests/s), then pages of a query the server
 * has never seen (no warm cursor). `deepIds` holds the `_id` just before the deep page.
 */
function serverCases({ groups, server, headers, deepSkip, deepIds, connections, duration, rounds, coldSamples }) {
  if (!groups.has("server")) return [];
  const pages = serverPages({ server, deepSkip, deepIds });
  const cases = [
    {
      group: "server",
      id: "server.paired",
      label: `server pages one at a time, in alternation (${rounds} rounds)`,
      script: "server-paired.js",
      params: { origin: server.origin, pages, headers, rounds, label: "server.paired" },
    },
  ];
  for (const [key, path] of Object.entries(pages)) {
    cases.push({
      group: "server",
      id: `server.rps.${key}`,
      label: `autocannon: ${serverPageLabel(key, deepSkip)}`,
      script: "server-requests.js",
      params: { url: `${server.origin}${path}`, headers, connections, duration, label: `server.rps.${key}` },
    });
  }
  for (const [page, params] of [
    ["offsetFirst", {}],
    ["offsetDeep", { skip: deepSkip }],
    ["keysetDeep", { after: deepIds.query }],
  ]) {
    const id = `server.cold.${page}`;
    cases.push({
      group: "server",
      id,
      label: `cold ${page.startsWith("offsetFirst") ? "first page" : page.startsWith("offset") ? `offset deep page (skip ${deepSkip})` : "keyset deep page"}, query never seen before`,
      script: "server-cold.js",
      params: { baseUrl: server.baseUrl, headers, query: SERVER_QUERY, ...params, samples: coldSamples, label: id },
    });
  }
  return cases;
}

module.exports = { clientCases, bigExportCases, serverCases, serverPageLabel, SERVER_QUERY };
