#!/usr/bin/env node
"use strict";
// Load test of `matframe serve` on loopback (issue 7): the server runs in a child process with
// --synthetic 100000; 50 clients at once each log in, walk the whole collection with the
// specification's paging rule (limit=500, then skip=500, ...) and log out, while a burst of
// 1,000 logins arrives (900 right passwords spread over the accounts, 100 wrong ones for one
// account, which the server may throttle with 429). Every answer is checked: each walk must
// return every material exactly once, in `_id` order, with the same content as every other
// walk; any error other than the expected 429 makes the run fail. The server's RSS is sampled
// from /proc (or ps) throughout and must stay under a bound. Reports p50/p99 latency and
// throughput. Not a test: figures depend on the machine; the CI-sized run is --small.
//
//   node bench/load.js [--small] [--synthetic N] [--clients N] [--logins N] [--full] [--compression] [--json]
//                      [--report FILE] [--max-rss-mib N]
//
// --small (or MATFRAME_LOAD_SMALL=1): 2,000 materials, 5 clients, 100 logins.
// --compression: every client asks for "br, gzip" and decodes (issue 12).
// --full: walk whole records (default: the fields an export of the default columns asks for).
// Uses dist/ (run `npm run build` first, or `npm run load`). Exit code 0 when every answer
// was correct and memory stayed bounded, 1 otherwise.

const { brotliDecompressSync, gunzipSync } = require("node:zlib");
const { spawn, execFileSync } = require("node:child_process");
const { randomBytes } = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const { peakRssKiB } = require("./lib/server-process");
const { Pool } = require("undici");

const args = parseArgs(process.argv.slice(2));
const SMALL = args.small === true || process.env.MATFRAME_LOAD_SMALL === "1";
// --compression: every client asks for "br, gzip", as matframe does over a network (issue 12).
const ACCEPT_ENCODING = args.compression === true ? "br, gzip" : undefined;
let compressedResponses = 0;
const SYNTHETIC = Number(args.synthetic ?? (SMALL ? 2_000 : 100_000));
const CLIENTS = Number(args.clients ?? (SMALL ? 5 : 50));
const LOGINS = Number(args.logins ?? (SMALL ? 100 : 1_000));
const MAX_RSS_MIB = Number(args["max-rss-mib"] ?? 1_024);
const PAGE_SIZE = 500;
/** Concurrent requests of the login burst. */
const BURST_CONCURRENCY = 50;
/** Accounts the walking clients and the burst log in as (several clients share one). */
const ACCOUNTS = Math.max(1, Math.min(10, CLIENTS));
const ROOT = path.join(__dirname, "..");
/** What each page asks for: the fields of `matframe export`'s default columns, or everything. */
const FIELDS = args.full
  ? undefined
  : require(path.join(ROOT, "dist", "frame", "table", "column-spec.js")).planColumns().fields;
const BIN = path.join(ROOT, "dist", "cli", "main.js");
const API = "/api/2018-10-01";

async function main() {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (or "npm run load").`);
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({
    username: `load${i}`,
    password: randomBytes(12).toString("hex"),
  }));
  const intruder = { username: "mallory", password: randomBytes(12).toString("hex") };
  const server = await startServe([...accounts, intruder]);
  const origin = new URL(server.baseUrl).origin;
  const rss = new RssSampler(server.child.pid);
  const problems = [];
  const started = performance.now();
  try {
    await sleep(500);
    rss.mark("idle");
    log(
      `serving ${server.materials} materials at ${server.baseUrl} (server pid ${server.child.pid}); ` +
        `${CLIENTS} walking clients, ${LOGINS} burst logins, idle RSS ${mib(rss.last)} MiB`,
    );

    let walksSeconds = 0;
    const walks = Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => walk(origin, accounts[i % ACCOUNTS], i, problems)),
    ).then((results) => {
      walksSeconds = (performance.now() - started) / 1000;
      return results;
    });
    // The burst starts once the walks are under way, so the two compete.
    await sleep(200);
    const burstStarted = performance.now();
    const burst = loginBurst(origin, accounts, intruder, problems).then((result) => ({
      ...result,
      seconds: (performance.now() - burstStarted) / 1000,
    }));
    const [walkResults, burstResult] = await Promise.all([walks, burst]);
    rss.mark("end");
    const seconds = (performance.now() - started) / 1000;

    // Every walk must have seen the same collection: same count, same ids in the same order.
    const reference = walkResults.find((w) => w.ok);
    for (const w of walkResults) {
      if (!w.ok) continue;
      if (w.records !== server.materials)
        problems.push(`client ${w.client}: ${w.records} records, the server has ${server.materials}`);
      if (reference && w.checksum !== reference.checksum)
        problems.push(`client ${w.client}: a different collection than client ${reference.client}`);
    }
    const pageLatencies = walkResults.flatMap((w) => w.latencies);
    const records = walkResults.reduce((sum, w) => sum + w.records, 0);
    const requests = pageLatencies.length + burstResult.latencies.length + CLIENTS * 2;
    // The kernel's own high-water mark (VmHWM) catches spikes between two samples.
    const peak = Math.max(rss.peak, (peakRssKiB(server.child.pid) ?? 0) * 1024);
    if (peak > MAX_RSS_MIB * 1024 * 1024)
      problems.push(`server RSS peaked at ${mib(peak)} MiB, above the bound of ${MAX_RSS_MIB} MiB`);

    const summary = {
      variant: SMALL ? "small" : "full",
      materials: server.materials,
      clients: CLIENTS,
      fields: FIELDS ? "export columns" : "whole records",
      acceptEncoding: ACCEPT_ENCODING ?? "none",
      compressedResponses,
      pageSize: PAGE_SIZE,
      seconds: round(seconds, 1),
      walks: {
        completed: walkResults.filter((w) => w.ok).length,
        records,
        pages: pageLatencies.length,
        seconds: round(walksSeconds, 1),
      },
      logins: {
        burst: LOGINS,
        succeeded: burstResult.succeeded,
        refused: burstResult.refused,
        throttled429: burstResult.throttled,
        retriedAfter503: loginRetries,
        seconds: round(burstResult.seconds, 1),
        perSecond: round(LOGINS / burstResult.seconds, 1),
        p50ms: round(percentile(burstResult.latencies, 0.5), 1),
        p99ms: round(percentile(burstResult.latencies, 0.99), 1),
      },
      pageLatencyMs: {
        p50: round(percentile(pageLatencies, 0.5), 1),
        p99: round(percentile(pageLatencies, 0.99), 1),
        max: round(Math.max(...pageLatencies), 1),
      },
      // Records/s over the walks (which share the CPU with the login burst's scrypt hashing).
      throughput: {
        recordsPerSecond: Math.round(records / walksSeconds),
        requestsPerSecond: Math.round(requests / seconds),
      },
      serverRssMiB: { idle: mib(rss.marks.idle), peak: mib(peak), end: mib(rss.marks.end), bound: MAX_RSS_MIB },
      unexpectedErrors: problems.length,
      correct: problems.length === 0,
    };
    report(summary, problems);
    return problems.length === 0 ? 0 : 1;
  } finally {
    rss.stop();
    await server.stop();
  }
}

/** One client: log in, walk every page with limit/skip, check the pages, log out. */
async function walk(origin, account, client, problems) {
  const pool = new Pool(origin, { connections: 1 });
  const latencies = [];
  let records = 0;
  let checksum = 0x811c9dc5;
  let last = "";
  try {
    const login = await loginRetrying(pool, account);
    if (login.status !== 200) throw new Error(`login answered ${login.status}`);
    const headers = credentialsOf(login.body);
    for (let skip = 0; ; skip += PAGE_SIZE) {
      // isDefault too: each account's own default material (matframe serve gives every account one)
      // is not part of the collection the clients compare.
      const fields = FIELDS ? { fields: { ...FIELDS, isDefault: 1 } } : {};
      const projection = { limit: PAGE_SIZE, ...(skip ? { skip } : {}), ...fields };
      const t0 = performance.now();
      const res = await get(
        pool,
        `${API}/materials?projection=${encodeURIComponent(JSON.stringify(projection))}`,
        headers,
      );
      latencies.push(performance.now() - t0);
      if (res.status !== 200 || res.body?.status !== "success" || !Array.isArray(res.body.data)) {
        throw new Error(`page at skip ${skip} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
      }
      for (const material of res.body.data) {
        if (typeof material._id !== "string" || !(material._id > last)) {
          throw new Error(
            `page at skip ${skip}: _id ${JSON.stringify(material._id)} is not after ${JSON.stringify(last)} (a repeat, a gap in order, or no _id)`,
          );
        }
        if (typeof material.formula !== "string" || typeof material.name !== "string") {
          throw new Error(`page at skip ${skip}: material ${material._id} has no formula or name`);
        }
        last = material._id;
        if (material.isDefault === true) continue;
        checksum = fnv1a(checksum, material._id);
        checksum = fnv1a(checksum, material.formula);
        records += 1;
      }
      if (res.body.data.length < PAGE_SIZE) break;
    }
    const out = await get(pool, `${API}/logout`, headers);
    if (out.status !== 200) throw new Error(`logout answered ${out.status}`);
    const after = await get(pool, `${API}/materials?projection=%7B%22limit%22%3A1%7D`, headers);
    if (after.status !== 401) throw new Error(`the token still worked after logout (${after.status})`);
    return { ok: true, client, records, checksum, latencies };
  } catch (error) {
    problems.push(`client ${client}: ${error.message}`);
    return { ok: false, client, records, checksum, latencies };
  } finally {
    await pool.close();
  }
}

/**
 * LOGINS logins, BURST_CONCURRENCY at a time: nine in ten with the right password (each checked
 * to work), one in ten a wrong password for one account, answered 401 or, throttled, 429.
 */
async function loginBurst(origin, accounts, intruder, problems) {
  const pool = new Pool(origin, { connections: BURST_CONCURRENCY });
  const latencies = [];
  const result = { succeeded: 0, refused: 0, throttled: 0, latencies };
  let next = 0;
  const one = async (i) => {
    const wrong = i % 10 === 9;
    const account = wrong ? { username: intruder.username, password: `guess-${i}` } : accounts[i % accounts.length];
    const t0 = performance.now();
    const res = await loginRetrying(pool, account, wrong);
    latencies.push(performance.now() - t0);
    if (wrong) {
      if (res.status === 401) result.refused += 1;
      else if (res.status === 429 && res.headers["retry-after"]) result.throttled += 1;
      else problems.push(`burst login ${i} with a wrong password answered ${res.status}`);
      return;
    }
    if (res.status !== 200) {
      problems.push(
        `burst login ${i} with the right password answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`,
      );
      return;
    }
    result.succeeded += 1;
    // One in twenty tokens is used at once, to check that it is a working session.
    if (i % 20 === 0) {
      const check = await get(pool, `${API}/materials?projection=%7B%22limit%22%3A1%7D`, credentialsOf(res.body));
      if (check.status !== 200) problems.push(`burst login ${i}: its token got ${check.status}`);
    }
  };
  const workers = Array.from({ length: BURST_CONCURRENCY }, async () => {
    while (next < LOGINS) await one(next++);
  });
  try {
    await Promise.all(workers);
  } catch (error) {
    problems.push(`login burst: ${error.message}`);
  } finally {
    await pool.close();
  }
  return result;
}

function form({ username, password }) {
  return new URLSearchParams({ username, password }).toString();
}

function credentialsOf(body) {
  const data = body?.data ?? {};
  if (typeof data["X-Account-Id"] !== "string" || typeof data["X-Auth-Token"] !== "string") {
    throw new Error(`login answered without credentials: ${JSON.stringify(body).slice(0, 100)}`);
  }
  return { "X-Account-Id": data["X-Account-Id"], "X-Auth-Token": data["X-Auth-Token"] };
}

async function get(pool, path, headers) {
  const asked = ACCEPT_ENCODING ? { ...headers, "accept-encoding": ACCEPT_ENCODING } : headers;
  const res = await pool.request({ method: "GET", path, headers: asked });
  const raw = Buffer.from(await res.body.arrayBuffer());
  const coding = res.headers["content-encoding"];
  const text = coding === "br" ? brotliDecompressSync(raw) : coding === "gzip" ? gunzipSync(raw) : raw;
  if (coding) compressedResponses += 1;
  let body;
  try {
    body = JSON.parse(text.toString("utf8"));
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body };
}

/**
 * A login as a well-behaved client makes it: a 503 or 429 with Retry-After (the server's full
 * login queue, issue 11) is tried again after the wait it asks for, as matframe's own client
 * does, for as long as a patient user would (the burst's 1,000 logins from this one address take
 * a minute or more to hash, one at a time, and everyone here shares that address). A wrong
 * password's 429 is an answer, not retried.
 */
const LOGIN_PATIENCE_MS = 180_000;
let loginRetries = 0;
async function loginRetrying(pool, account, wrong = false) {
  const started = Date.now();
  for (;;) {
    const res = await post(pool, `${API}/login`, form(account));
    const wait = Number(res.headers["retry-after"]);
    const refusedBeforeChecking = res.status === 503 || (res.status === 429 && !wrong);
    if (!refusedBeforeChecking || !Number.isFinite(wait) || Date.now() - started > LOGIN_PATIENCE_MS) return res;
    loginRetries += 1;
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 10) * 1000));
  }
}

async function post(pool, path, body) {
  const res = await pool.request({
    method: "POST",
    path,
    body,
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  return { status: res.statusCode, headers: res.headers, body: await res.body.json().catch(() => undefined) };
}

/** Starts `matframe serve` with the accounts; resolves with its base URL and material count. */
function startServe(users) {
  const userArgs = users.flatMap((u) => ["--user", `${u.username}:${u.password}`]);
  const child = spawn(
    process.execPath,
    [BIN, "serve", "--port", "0", "--synthetic", String(SYNTHETIC), "--quiet", "--no-account-defaults", ...userArgs],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  const exited = new Promise((resolve) => child.on("close", resolve));
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const end = stdout.indexOf("\n");
      const count = /serving (\d+) materials/.exec(stderr);
      if (end === -1) return;
      resolve({
        baseUrl: stdout.slice(0, end),
        materials: count ? Number(count[1]) : NaN,
        child,
        async stop() {
          if (child.exitCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    });
    child.on("error", reject);
    void exited.then((code) =>
      reject(new Error(`matframe serve exited with ${code} before printing its URL: ${stderr}`)),
    );
  });
}

/** Samples a process's resident set size four times a second. */
class RssSampler {
  constructor(pid) {
    this.pid = pid;
    this.peak = 0;
    this.last = 0;
    this.marks = {};
    this.sample();
    this.timer = setInterval(() => this.sample(), 250);
  }

  sample() {
    let bytes = 0;
    try {
      const status = fs.readFileSync(`/proc/${this.pid}/status`, "utf8");
      bytes = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      try {
        bytes =
          Number(
            execFileSync("ps", ["-o", "rss=", "-p", String(this.pid)])
              .toString()
              .trim(),
          ) * 1024;
      } catch {
        return; // the process has gone
      }
    }
    this.last = bytes;
    this.peak = Math.max(this.peak, bytes);
  }

  mark(name) {
    this.sample();
    this.marks[name] = this.last;
  }

  stop() {
    clearInterval(this.timer);
  }
}

function report(summary, problems) {
  const file =
    typeof args.report === "string"
      ? args.report
      : path.join(ROOT, "test", "reliability", ".report", `load-${summary.variant}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ ...summary, problems: problems.slice(0, 50) }, null, 2)}\n`);
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ ...summary, problems: problems.slice(0, 50) })}\n`);
    return;
  }
  const s = summary;
  log(
    `${s.walks.completed}/${s.clients} walks of ${s.materials} materials (${s.fields}) in ${s.walks.seconds} s: ` +
      `${s.walks.records.toLocaleString("en-US")} records in ${s.walks.pages} pages`,
  );
  log(`page latency p50 ${s.pageLatencyMs.p50} ms, p99 ${s.pageLatencyMs.p99} ms, max ${s.pageLatencyMs.max} ms`);
  log(
    `throughput ${s.throughput.recordsPerSecond.toLocaleString("en-US")} records/s, ${s.throughput.requestsPerSecond} requests/s`,
  );
  log(
    `login burst: ${s.logins.burst} logins in ${s.logins.seconds} s (${s.logins.perSecond}/s): ${s.logins.succeeded} succeeded, ` +
      `${s.logins.refused} wrong passwords refused (401), ${s.logins.throttled429} throttled (429), ${s.logins.retriedAfter503} retried after a Retry-After; latency p50 ${s.logins.p50ms} ms, p99 ${s.logins.p99ms} ms`,
  );
  log(
    `server RSS: idle ${s.serverRssMiB.idle} MiB, peak ${s.serverRssMiB.peak} MiB, end ${s.serverRssMiB.end} MiB (bound ${s.serverRssMiB.bound} MiB)`,
  );
  log(
    problems.length === 0
      ? "every answer was correct"
      : `${problems.length} problems:\n  ${problems.slice(0, 20).join("\n  ")}`,
  );
  log(`figures written to ${path.relative(ROOT, file)}`);
}

function percentile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function fnv1a(hash, text) {
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

const round = (n, digits) => Math.round(n * 10 ** digits) / 10 ** digits;
const mib = (bytes) => Math.round(bytes / 1024 / 1024);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function log(line) {
  process.stderr.write(`${line}\n`);
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) continue;
    const [name, inline] = arg.slice(2).split("=", 2);
    if (inline !== undefined) out[name] = inline;
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith("--")) out[name] = argv[++i];
    else out[name] = true;
  }
  return out;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`load: ${error.message}\n`);
    process.exitCode = 1;
  },
);
