"use strict";
// The first call against the warm one, on a fresh server, by hand (not part of `npm run bench`):
//   node bench/first-call.js [--synthetic 100000] [--rounds 2]
// Starts `matframe serve --synthetic N` in its own process and times, in this process, an
// `_id: {$in: [100 ids]}` list of materials, then `client.results.toDataFrame({ properties:
// ["band_gaps"] })`, each twice: the first call is what a user meets, the second what a warm-up
// buys. Reports the server's start-up time and resident size too.
const { startServerProcess } = require("./lib/server-process");
const { distIndex } = require("./lib/case-kit");

const { Client } = require(distIndex());

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

async function timed(what, action) {
  const start = performance.now();
  const value = await action();
  const ms = performance.now() - start;
  return { what, ms, value };
}

async function main() {
  const synthetic = option("synthetic", 100_000);
  const rounds = option("rounds", 2);
  const server = await startServerProcess({ synthetic });
  const rows = [];
  try {
    const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
    // Ids spread over the synthetic materials, read in one page and kept out of the timings.
    const page = await client.materials.list({ projection: { fields: { _id: 1 }, sort: { _id: -1 }, limit: 500 } });
    const ids = page.slice(0, 100).map((material) => material._id);
    for (let round = 1; round <= rounds; round += 1) {
      // A new list of ids each round, so the second is not answered from the first's cache.
      const wanted = round === 1 ? ids : page.slice(100 + round * 100, 200 + round * 100).map((m) => m._id);
      rows.push(
        await timed(`_id $in 100 ids, call ${round}`, async () => {
          const found = await client.materials.list({
            query: { _id: { $in: wanted } },
            projection: { fields: { _id: 1 }, limit: 500 },
          });
          return found.length;
        }),
      );
    }
    for (let round = 1; round <= rounds; round += 1) {
      rows.push(
        await timed(`results.toDataFrame band_gaps, call ${round}`, async () => {
          const df = await client.results.toDataFrame({ properties: ["band_gaps"], onWarning: () => {} });
          return df.shape[0];
        }),
      );
    }
    await client.close();
  } finally {
    await server.stop();
  }
  process.stdout.write(
    `serve --synthetic ${synthetic}: ${server.materialCount} materials, start-up ${server.startSeconds.toFixed(2)} s\n`,
  );
  for (const row of rows) process.stdout.write(`${row.what}: ${row.ms.toFixed(1)} ms (${row.value} records)\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
