"use strict";
// The simulated internet link of the bench (issue 12): the proxy in a process of its own, what
// the walks move over it, its floor, and the cases measured through it.
const { spawn } = require("node:child_process");
const path = require("node:path");
const readline = require("node:readline");
const { brotliDecompressSync, gunzipSync, inflateSync } = require("node:zlib");
const { request } = require("undici");
const { authHeaders, materialsUrl } = require("./api");

/** Starts bench/lib/link-proxy.js in front of `origin`; resolves to `{ origin, stop() }`. */
async function startLinkProcess({ origin, rttMs, mbit }) {
  const target = new URL(origin).host;
  const child = spawn(
    process.execPath,
    [path.join(__dirname, "link-proxy.js"), "--target", target, "--rtt", String(rttMs), "--mbit", String(mbit)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const port = await new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once("line", (line) => resolve(Number(line.split(" ")[1])));
    exited.then((code) => reject(new Error(`the link proxy exited (${code}) before listening`)));
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * Bytes a whole offset walk moves as the server sends them to a client that asks with
 * `acceptEncoding` (compressed when it asks), page by page: `{ pages, bytes }`.
 */
async function wireBytes({ baseUrl, credentials, fields, acceptEncoding, pageSize = 500 }) {
  let pages = 0;
  let bytes = 0;
  for (let skip = 0; ; skip += pageSize) {
    const projection = { sort: { _id: 1 }, limit: pageSize, ...(fields ? { fields } : {}), ...(skip ? { skip } : {}) };
    const { statusCode, headers, body } = await request(materialsUrl(baseUrl, {}, projection), {
      headers: { ...authHeaders(credentials), "accept-encoding": acceptEncoding },
    });
    const raw = Buffer.from(await body.arrayBuffer());
    if (statusCode !== 200) throw new Error(`link bytes: page at skip ${skip} answered ${statusCode}`);
    pages += 1;
    bytes += raw.length;
    const coding = headers["content-encoding"];
    const text =
      coding === "br"
        ? brotliDecompressSync(raw)
        : coding === "gzip"
          ? gunzipSync(raw)
          : coding === "deflate"
            ? inflateSync(raw)
            : raw;
    if (JSON.parse(text.toString("utf8")).data.length < pageSize) break;
  }
  return { pages, bytes };
}

/**
 * The link floor of a walk (issue 12): the compressed bytes through the bandwidth, plus one round
 * trip per wave of pages in flight. No client can finish sooner over this link.
 */
function linkFloorSeconds({ bytes, pages }, { rttMs, mbit, inFlight }) {
  return (bytes * 8) / (mbit * 1e6) + Math.ceil(pages / inFlight) * (rttMs / 1000);
}

/** The cases over the link; `link.origin` replaces the server's origin in their base URL. */
function linkCases({ groups, server, link, credentials, columnsFields, python, concurrency }) {
  if (!groups.has("link")) return [];
  const baseUrl = `${link.origin}${new URL(server.baseUrl).pathname}`;
  // The best explicit settings for this link (compression on, 6 pages in flight, 8 connections),
  // against which the `.defaults` cases below (no settings, the same loopback address) are held.
  const clientOptions = { compression: true, connections: 8 };
  const common = { baseUrl, credentials, clientOptions, expected: server.materialCount };
  const cases = [];
  const add = (id, label, script, params, extra = {}) =>
    cases.push({
      group: "link",
      id,
      label: `link: ${label}`,
      script,
      params: { ...common, ...params, label: id },
      ...extra,
    });
  add("link.iterate", `client.materials.iterate, whole records, c=${concurrency}`, "iterate.js", {
    paging: "offset",
    concurrency,
  });
  add("link.toDataFrame", `toDataFrame (default columns), c=${concurrency}`, "to-dataframe.js", { concurrency });
  // Reached through the same loopback address with no settings at all: the client must find the
  // far link from its answers (compression on, 6 in flight), not take 127.0.0.1 for this machine.
  const defaults = { baseUrl, credentials, expected: server.materialCount };
  cases.push({
    group: "link",
    id: "link.iterate.defaults",
    label: "link: client.materials.iterate, whole records, the defaults",
    script: "iterate.js",
    params: { ...defaults, paging: "offset", label: "link.iterate.defaults" },
  });
  cases.push({
    group: "link",
    id: "link.toDataFrame.defaults",
    label: "link: toDataFrame (default columns), the defaults",
    script: "to-dataframe.js",
    params: { ...defaults, label: "link.toDataFrame.defaults" },
  });
  add(
    "link.toDataFrame.cached",
    `toDataFrame re-run with cache: "memory", c=${concurrency}`,
    "to-dataframe-cached.js",
    { concurrency },
  );
  add("link.exportCsv", `exportCsv (default columns), c=${concurrency}`, "export-table.js", {
    paging: "offset",
    concurrency,
  });
  add("link.exportParquet.keyset", "exportParquet (default columns), one keyset walk", "export-table.js", {
    format: "parquet",
    paging: "keyset",
  });
  add("link.exportParquet.p4", "exportParquet (default columns), 4 partitions", "export-table.js", {
    format: "parquet",
    partitions: 4,
  });
  add(
    "link.exportParquet.offset",
    `exportParquet (default columns), one offset walk, c=${concurrency}`,
    "export-table.js",
    { format: "parquet", paging: "offset", concurrency },
  );
  // The results table of the reference band gaps (1,056 rows on any server: they are checked-in
  // data), and the platform client's one-request-per-value way on its first 100 rows.
  add("link.results", "client.results.toDataFrame band_gaps (1,056 rows)", "results.js", {
    mode: "view",
    expected: undefined,
  });
  add(
    "link.results.perValue",
    "band gaps one request per value, the platform client's way (first 100 rows)",
    "results.js",
    { mode: "perValue", maxItems: 100, expected: undefined },
  );
  if (python.command) {
    add(
      "link.python",
      "Python requests one page at a time + pandas (the platform client's pattern)",
      "python_pandas.py",
      { fields: columnsFields },
      { python: python.command },
    );
    add(
      "link.python.threads",
      "Python requests.Session + 3 threads + pandas",
      "python_threads.py",
      { fields: columnsFields },
      { python: python.command },
    );
  }
  return cases;
}

module.exports = { startLinkProcess, wireBytes, linkFloorSeconds, linkCases };
