"use strict";
// The server's share of a first walk, by hand (not part of `npm run bench`):
//   node bench/server-cold.js [--synthetic 100000] [--fields columns|whole] [--in-flight 6] [--reps 1]
// Starts a fresh `matframe serve --synthetic N` in its own process for each variant and walks
// every material twice with a plain undici Pool (skip paging, 500 a page, brotli, the pages
// decoded but not parsed): the first walk is what a fresh server costs, the second what its kept
// pages buy. `columns` asks for the fields `toDataFrame()` asks for by default, `whole` for whole
// records. The variants: `--no-warm-up`, the walk at once; the background warm-up on, the walk
// at once (it pauses for requests); and the walk once the warm-up has ended (as for a user who
// starts a client some seconds after the server). Reports the walk's time, the server's CPU time
// (from /proc, so the client's work is not counted), the first page, start-up time and resident
// size. Variants alternate across repetitions, so a change of load hits each alike.
const { readFileSync } = require("node:fs");
const { Pool } = require("undici");
const { spawn } = require("node:child_process");
const path = require("node:path");
const readline = require("node:readline");

/** The projection `client.materials.toDataFrame()` sends by default (its default columns). */
const COLUMNS_FIELDS = {
  _id: 1,
  "derivedProperties.density": 1,
  "derivedProperties.name": 1,
  "derivedProperties.value": 1,
  "derivedProperties.volume": 1,
  formula: 1,
  "lattice.a": 1,
  "lattice.b": 1,
  "lattice.c": 1,
  method: 1,
  name: 1,
};
const PAGE = 500;

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
}

/** User and system CPU seconds a process has used (Linux /proc; clock ticks are 100 a second). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMiB(pid) {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : NaN;
}

async function walk(pool, path, headers, fields, total, inFlight) {
  const started = performance.now();
  let firstPageMs;
  let bytes = 0;
  let next = 0;
  const one = async () => {
    while (next < total) {
      const skip = next;
      next += PAGE;
      const projection = { sort: { _id: 1 }, limit: PAGE, ...(fields ? { fields } : {}), ...(skip ? { skip } : {}) };
      const query = new URLSearchParams({ query: "{}", projection: JSON.stringify(projection) });
      const asked = performance.now();
      const res = await pool.request({
        method: "GET",
        path: `${path}/materials?${query}`,
        headers: { ...headers, "accept-encoding": "br" },
      });
      const body = Buffer.from(await res.body.arrayBuffer());
      if (res.statusCode !== 200) throw new Error(`page at skip ${skip} answered ${res.statusCode}`);
      bytes += body.length;
      if (skip === 0) firstPageMs = performance.now() - asked;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, one));
  return { seconds: (performance.now() - started) / 1000, firstPageMs, bytes };
}

/** `matframe serve` in its own process; resolves with its URL, and `warmedUp` with the warm-up's log line. */
async function startServe(synthetic, args) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      path.join(__dirname, "..", "dist", "cli", "main.js"),
      "serve",
      "--port",
      "0",
      "--synthetic",
      String(synthetic),
    ].concat(["--quiet", "--no-account-defaults", ...args]),
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const warmedUp = new Promise((resolve) => {
    readline.createInterface({ input: child.stderr }).on("line", (line) => {
      if (line.startsWith("kept the JSON")) resolve({ line, rss: rssMiB(child.pid) });
    });
  });
  const baseUrl = await new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once("line", (line) => resolve(line.trim()));
    exited.then((code) => reject(new Error(`matframe serve exited (${code}) before printing its URL`)));
  });
  return {
    baseUrl,
    pid: child.pid,
    startSeconds: (performance.now() - started) / 1000,
    startRss: rssMiB(child.pid),
    warmedUp,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function peakRssMiB(pid) {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : NaN;
}

const VARIANTS = {
  "no warm-up": { args: ["--no-warm-up"], wait: false },
  "warm-up, walk at once": { args: [], wait: false },
  "warm-up, walk after it": { args: [], wait: true },
};

async function measure(variant, kind, synthetic, inFlight) {
  const { args, wait } = VARIANTS[variant];
  const server = await startServe(synthetic, args);
  try {
    let warm;
    if (wait) warm = await server.warmedUp;
    const url = new URL(server.baseUrl);
    const pool = new Pool(url.origin, { connections: inFlight });
    const login = await pool.request({
      method: "POST",
      path: `${url.pathname}/login`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=demo&password=demo",
    });
    const headers = (await login.body.json()).data;
    const count = await pool.request({
      method: "GET",
      path: `${url.pathname}/materials?${new URLSearchParams({ projection: '{"fields":{"_id":1},"limit":1}' })}`,
      headers,
    });
    await count.body.dump();
    const fields = kind === "columns" ? COLUMNS_FIELDS : undefined;
    const rows = [];
    for (const round of ["cold", "warm"]) {
      const cpuBefore = cpuSeconds(server.pid);
      const result = await walk(pool, url.pathname, headers, fields, synthetic + 29, inFlight);
      rows.push({ round, ...result, serverCpu: cpuSeconds(server.pid) - cpuBefore });
    }
    await pool.close();
    return { variant, server, warm, peakRss: peakRssMiB(server.pid), rows };
  } finally {
    await server.stop();
  }
}

async function main() {
  const synthetic = Number(option("synthetic", "100000"));
  const kind = option("fields", "columns");
  const inFlight = Number(option("in-flight", "6"));
  const reps = Number(option("reps", "1"));
  for (let rep = 0; rep < reps; rep++) {
    const names = Object.keys(VARIANTS);
    const order = rep % 2 === 0 ? names : [...names].reverse();
    for (const variant of order) {
      const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
      const { server, warm, peakRss, rows } = await measure(variant, kind, synthetic, inFlight);
      process.stdout.write(
        `${kind}, ${variant} (load ${load}): start-up ${server.startSeconds.toFixed(2)} s, ` +
          `${server.startRss.toFixed(0)} MiB at start, ` +
          (warm
            ? `${warm.rss.toFixed(0)} MiB after the warm-up (${warm.line.replace(/^kept the JSON of /, "")}), `
            : "") +
          `peak ${peakRss.toFixed(0)} MiB\n`,
      );
      for (const row of rows) {
        process.stdout.write(
          `  ${row.round}: walk ${row.seconds.toFixed(2)} s, server CPU ${row.serverCpu.toFixed(2)} s, ` +
            `first page ${row.firstPageMs.toFixed(1)} ms, ${(row.bytes / 1e6).toFixed(1)} MB br\n`,
        );
      }
      const [cold, warmRow] = rows;
      process.stdout.write(`  cold / warm: ${(cold.seconds / warmRow.seconds).toFixed(2)} ×\n`);
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
