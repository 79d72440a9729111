"use strict";
// The floor: the same offset walk the client makes (same URLs: query, sort by _id, limit, skip,
// fields), each page fetched with a plain undici Pool and JSON.parsed, nothing kept. No retries,
// no validation, no objects built: anything the library does costs time above this.
//
// Over the link (`acceptEncoding` set), the floor asks for compressed pages and decodes them as the
// client would; with `login` it logs in first, inside the timing, as a user's first read does.
// With `loadInClock` undici is loaded inside the timing too, as the client loads it on its first
// request (170-190 ms of CPU on the bench machine): a fresh process's first read pays for both.
const { promisify } = require("node:util");
const zlib = require("node:zlib");
const { runCase, startClock, expectCount } = require("../lib/case-kit");
const { login: logIn } = require("../lib/api");

const decoders = {
  br: promisify(zlib.brotliDecompress),
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
};

runCase(
  async ({
    baseUrl,
    credentials: given,
    login,
    loadInClock = false,
    acceptEncoding,
    concurrency,
    fields,
    query = {},
    pageSize = 500,
    expected,
  }) => {
    const { origin, pathname } = new URL(baseUrl);
    if (!loadInClock) require("undici");
    const stop = startClock();
    const { Pool } = require("undici");
    const pool = new Pool(origin, { connections: concurrency });
    const credentials = login ? await logIn(baseUrl, login, pool) : given;
    const headers = {
      "X-Account-Id": credentials.accountId,
      "X-Auth-Token": credentials.authToken,
      accept: "application/json",
    };
    if (acceptEncoding) headers["accept-encoding"] = acceptEncoding;
    const queryText = JSON.stringify(query);

    const fetchPage = async (skip) => {
      const projection = { sort: { _id: 1 }, limit: pageSize };
      if (fields) projection.fields = fields;
      if (skip > 0) projection.skip = skip;
      const qs = new URLSearchParams({ query: queryText, projection: JSON.stringify(projection) });
      const {
        statusCode,
        headers: answer,
        body,
      } = await pool.request({ path: `${pathname}/materials?${qs}`, method: "GET", headers });
      const decode = decoders[answer["content-encoding"]];
      const parsed = JSON.parse(
        decode ? (await decode(Buffer.from(await body.arrayBuffer()))).toString("utf8") : await body.text(),
      );
      if (statusCode !== 200) throw new Error(`floor: page at skip ${skip} answered ${statusCode}: ${parsed.message}`);
      return parsed.data.length;
    };

    let records = 0;
    let next = 0;
    const pending = [];
    const fill = () => {
      while (pending.length < concurrency) {
        pending.push(fetchPage(next));
        next += pageSize;
      }
    };
    fill();
    for (;;) {
      const length = await pending.shift();
      records += length;
      if (length < pageSize) break;
      fill();
    }
    await Promise.all(pending);
    const clock = stop();
    await pool.close();
    expectCount(`floor c=${concurrency}`, records, expected);
    return { ...clock, records };
  },
);
