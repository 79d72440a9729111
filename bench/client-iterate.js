#!/usr/bin/env node
"use strict";
// Records/s of `collection.iterate` against a same-run floor: the same pages fetched and parsed
// by a plain undici loop. Starts `matframe serve` in-process (--synthetic 100000 by default), so
// server and client share the CPU: compare the ratios, not the absolute figures across machines.
// CPU seconds (server and client together) are reported beside wall time: on a machine shared
// with other work they stay meaningful when wall time does not.
//
//   node bench/client-iterate.js [--synthetic N] [--runs N] [--json]
//
// Uses dist/ (run `npm run build` first, or `npm run bench:client`).

const os = require("node:os");
const { Pool } = require("undici");
const { startServer, ApiClient } = require("../dist/index.js");

const args = parseArgs(process.argv.slice(2));
const SYNTHETIC = Number(args.synthetic ?? 100000);
const RUNS = Number(args.runs ?? 3);
const PAGE_SIZE = 500;
const API = "/api/2018-10-01";

async function main() {
  const server = await startServer({ port: 0, synthetic: SYNTHETIC });
  const origin = `http://127.0.0.1:${server.port}`;
  const client = await ApiClient.login({ baseUrl: origin, username: "demo", password: "demo" });
  const credentials = await rawLogin(origin);
  const pool = new Pool(origin, { connections: 4 });

  const modes = [
    { name: "floor: undici loop, c=1", run: () => floor(pool, credentials, 1) },
    { name: "floor: undici loop, c=3", run: () => floor(pool, credentials, 3) },
    { name: "iterate offset, c=1", run: () => count(client.materials.iterate({ paging: "offset", concurrency: 1 })) },
    { name: "iterate offset, c=3", run: () => count(client.materials.iterate({ paging: "offset", concurrency: 3 })) },
    { name: "iterate keyset", run: () => count(client.materials.iterate({ paging: "keyset" })) },
  ];
  const timings = new Map(modes.map((m) => [m.name, []]));
  const cpuTimes = new Map(modes.map((m) => [m.name, []]));
  const counts = new Map();

  // One warm-up pass, then RUNS passes taking the modes in turn, each pass starting one mode
  // later, so neither drift nor position (GC left by the mode before) favours any mode.
  for (let pass = 0; pass <= RUNS; pass++) {
    for (let i = 0; i < modes.length; i++) {
      const mode = modes[(i + pass) % modes.length];
      const start = process.hrtime.bigint();
      const cpuStart = process.cpuUsage();
      const records = await mode.run();
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const cpu = process.cpuUsage(cpuStart);
      if (records !== server.materialCount) {
        throw new Error(`${mode.name} read ${records} records, expected ${server.materialCount}`);
      }
      counts.set(mode.name, records);
      if (pass > 0) {
        timings.get(mode.name).push(seconds);
        cpuTimes.get(mode.name).push((cpu.user + cpu.system) / 1e6);
      }
    }
  }
  await client.logout();
  await pool.close();
  await server.close();

  // Other processes' load skews every figure alike; it is printed so readers can judge.
  const load = os.loadavg()[0];
  const rows = modes.map((m) => {
    const seconds = median(timings.get(m.name));
    const cpuSeconds = median(cpuTimes.get(m.name));
    const records = counts.get(m.name);
    return { mode: m.name, records, seconds, recordsPerSecond: records / seconds, cpuSeconds, recordsPerCpuSecond: records / cpuSeconds };
  });
  const floorRow = { 1: rows[0], 3: rows[1] };
  for (const row of rows) {
    const against = row.mode.includes("c=3") ? 3 : 1;
    row.floor = `c=${against}`;
    row.vsFloor = row.recordsPerSecond / floorRow[against].recordsPerSecond;
    row.cpuVsFloor = row.recordsPerCpuSecond / floorRow[against].recordsPerCpuSecond;
  }
  if (args.json) {
    process.stdout.write(JSON.stringify({ synthetic: SYNTHETIC, runs: RUNS, pageSize: PAGE_SIZE, node: process.version, cpus: os.cpus().length, load, rows }, null, 2) + "\n");
    return;
  }
  console.log(`client iterate: ${server.materialCount} materials, pages of ${PAGE_SIZE}, median of ${RUNS} runs, node ${process.version}, ${os.cpus().length} CPUs, load ${load.toFixed(1)}`);
  console.log(`${"mode".padEnd(26)} ${"wall s".padStart(7)} ${"records/s".padStart(10)} ${"vs floor".padStart(9)}   ${"cpu s".padStart(6)} ${"rec/cpu-s".padStart(10)} ${"vs floor".padStart(9)}`);
  for (const r of rows) {
    console.log(
      `${r.mode.padEnd(26)} ${r.seconds.toFixed(2).padStart(7)} ${Math.round(r.recordsPerSecond).toString().padStart(10)} ` +
        `${r.vsFloor.toFixed(2).padStart(9)}   ${r.cpuSeconds.toFixed(2).padStart(6)} ` +
        `${Math.round(r.recordsPerCpuSecond).toString().padStart(10)} ${r.cpuVsFloor.toFixed(2).padStart(9)}  (floor ${r.floor})`,
    );
  }
}

/** The floor: the offset walk the client makes (same URLs, same parse), with nothing else. */
async function floor(pool, { accountId, authToken }, concurrency) {
  const headers = { "X-Account-Id": accountId, "X-Auth-Token": authToken, accept: "application/json" };
  const fetchPage = async (skip) => {
    const projection = { sort: { _id: 1 }, limit: PAGE_SIZE };
    if (skip > 0) projection.skip = skip;
    const qs = new URLSearchParams({ query: "{}", projection: JSON.stringify(projection) });
    const { statusCode, body } = await pool.request({ path: `${API}/materials?${qs}`, method: "GET", headers });
    const parsed = JSON.parse(await body.text());
    if (statusCode !== 200 || !Array.isArray(parsed.data)) throw new Error(`floor page at ${skip}: ${statusCode}`);
    return parsed.data;
  };
  let total = 0;
  let next = 0;
  const pending = [];
  const fill = () => {
    while (pending.length < concurrency) {
      pending.push(fetchPage(next));
      next += PAGE_SIZE;
    }
  };
  fill();
  for (;;) {
    const page = await pending.shift();
    total += page.length;
    if (page.length < PAGE_SIZE) break;
    fill();
  }
  await Promise.allSettled(pending);
  return total;
}

async function count(iterable) {
  let n = 0;
  for await (const _ of iterable) n += 1;
  return n;
}

async function rawLogin(origin) {
  const pool = new Pool(origin);
  const { body } = await pool.request({
    path: `${API}/login`,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "username=demo&password=demo",
  });
  const { data } = JSON.parse(await body.text());
  await pool.close();
  return { accountId: data["X-Account-Id"], authToken: data["X-Auth-Token"] };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "");
    if (key === "json") out.json = true;
    else out[key] = argv[++i];
  }
  return out;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
