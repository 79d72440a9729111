"use strict";
// Which cases a run measures, against which server, with which parameters. A case is one
// script in bench/cases, run once per repetition in a child process of its own.

/**
 * The client-side cases against the main server: the floors, iterate, toDataFrame, the naive way,
 * Python and the 100,000-material export. `columnsFields` is the projection toDataFrame derives
 * from the default columns: the floor and the baselines it is compared with ask for the same.
 */
function clientCases({ groups, server, credentials, columnsFields, python }) {
  const common = { baseUrl: server.baseUrl, credentials, expected: server.materialCount };
  const cases = [];
  const add = (group, id, label, script, params, extra = {}) => {
    if (groups.has(group)) cases.push({ group, id, label, script, params: { ...common, ...params, label: id }, ...extra });
  };
  add("floor", "floor.full.c1", "floor: undici + JSON.parse, full records, c=1", "floor.js", { concurrency: 1 });
  add("floor", "floor.full.c3", "floor: undici + JSON.parse, full records, c=3", "floor.js", { concurrency: 3 });
  add("floor", "floor.columns.c1", "floor: undici + JSON.parse, default columns' fields, c=1", "floor.js", { concurrency: 1, fields: columnsFields });
  add("floor", "floor.columns.c3", "floor: undici + JSON.parse, default columns' fields, c=3", "floor.js", { concurrency: 3, fields: columnsFields });
  add("iterate", "iterate.offset.c1", "client.materials.iterate, offset, c=1", "iterate.js", { paging: "offset", concurrency: 1 });
  add("iterate", "iterate.offset.c3", "client.materials.iterate, offset, c=3", "iterate.js", { paging: "offset", concurrency: 3 });
  add("iterate", "iterate.keyset", "client.materials.iterate, keyset", "iterate.js", { paging: "keyset" });
  add("frame", "toDataFrame.c1", "toDataFrame (default columns), c=1", "to-dataframe.js", { concurrency: 1 });
  add("frame", "toDataFrame.c3", "toDataFrame (default columns), c=3 (default)", "to-dataframe.js", { concurrency: 3 });
  add("naive", "naive", "naive TS: fetch, keep rows, flatten, new DataFrame", "naive.js", { fields: columnsFields });
  if (python.command) {
    add("python", "python", `Python requests + pandas.json_normalize`, "python_pandas.py", { fields: columnsFields }, { python: python.command });
  }
  add("export", "exportCsv.small.offset", "exportCsv (default columns), offset", "export-csv.js", { paging: "offset" }, { size: "small" });
  add("export", "exportCsv.small.keyset", "exportCsv (default columns), keyset", "export-csv.js", { paging: "keyset" }, { size: "small" });
  return cases;
}

/** The export cases against the large server (1,000,000 materials in a full run). */
function bigExportCases({ groups, server, credentials }) {
  if (!groups.has("export")) return [];
  const common = { baseUrl: server.baseUrl, credentials, expected: server.materialCount };
  return ["offset", "keyset"].map((paging) => ({
    group: "export",
    id: `exportCsv.big.${paging}`,
    label: `exportCsv (default columns), ${paging}`,
    script: "export-csv.js",
    size: "big",
    params: { ...common, paging, label: `exportCsv.big.${paging}` },
  }));
}

/** A query every material matches but the server must evaluate record by record. */
const SERVER_QUERY = { "lattice.a": { $gt: 0 } };

/**
 * The server-alone cases: first and deep page (skip 99,500, or the keyset cursor that lands
 * there), with and without a query, offset and keyset. `deepIds` holds the `_id` just before the
 * deep page for each query, found by the harness.
 */
function serverCases({ groups, server, headers, deepSkip, deepIds, connections, duration, coldSamples }) {
  if (!groups.has("server")) return [];
  const cases = [];
  const url = (query, projection) =>
    `${server.baseUrl}/materials?${new URLSearchParams({ query: JSON.stringify(query), projection: JSON.stringify(projection) })}`;
  for (const [queryName, query] of [["no query", {}], ["query", SERVER_QUERY]]) {
    const hasQuery = Object.keys(query).length > 0;
    const after = deepIds[queryName];
    const keysetDeep = hasQuery ? { $and: [query, { _id: { $gt: after } }] } : { _id: { $gt: after } };
    const pages = [
      ["offset", "first", url(query, { sort: { _id: 1 }, limit: 500 })],
      ["offset", "deep", url(query, { sort: { _id: 1 }, skip: deepSkip, limit: 500 })],
      ["keyset", "first", url(query, { sort: { _id: 1 }, limit: 500 })],
      ["keyset", "deep", url(keysetDeep, { sort: { _id: 1 }, limit: 500 })],
    ];
    for (const [paging, page, pageUrl] of pages) {
      const id = `server.${paging}.${page}.${hasQuery ? "query" : "noquery"}`;
      const where = page === "first" ? "first page" : paging === "offset" ? `deep page (skip ${deepSkip})` : "deep page (_id > cursor)";
      cases.push({
        group: "server",
        id,
        label: `server ${paging}, ${where}, ${queryName}`,
        script: "server-requests.js",
        params: { url: pageUrl, headers, connections, duration, label: id },
      });
    }
    if (hasQuery) {
      for (const [paging, page, params] of [
        ["offset", "first", {}],
        ["offset", "deep", { skip: deepSkip }],
        ["keyset", "deep", { after }],
      ]) {
        const id = `server.cold.${paging}.${page}.query`;
        cases.push({
          group: "server",
          id,
          label: `server cold ${paging} ${page} page, query never seen before`,
          script: "server-cold.js",
          params: { baseUrl: server.baseUrl, headers, query, ...params, samples: coldSamples, label: id },
        });
      }
    }
  }
  return cases;
}

module.exports = { clientCases, bigExportCases, serverCases, SERVER_QUERY };
