#!/usr/bin/env node
"use strict";
// What `require("matframe")` costs a program that only wants the client: the time of the require,
// the CPU time it took (which the machine's load moves less than the wall time) and the resident
// memory it adds over a bare Node, median of N fresh processes, for the root entry and for
// `matframe/notebook`. With `--baseline DIR` (a checkout of another commit, built), the same
// figures for that commit, measured in the same run with the two builds taking turns process by
// process (so a change in the load falls on both), and the ratios.
//
//   node bench/import-cost.js [--runs 9] [--baseline /path/to/old/checkout]

const { execFileSync } = require("node:child_process");
const os = require("node:os");
const path = require("node:path");

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1]) || 9;
const baseline = args.includes("--baseline") ? path.resolve(args[args.indexOf("--baseline") + 1]) : undefined;

const PROBE = `
const t = process.hrtime.bigint();
const cpu = process.cpuUsage();
const before = process.memoryUsage().rss;
require(process.argv[1]);
const ms = Number(process.hrtime.bigint() - t) / 1e6;
const used = process.cpuUsage(cpu);
const cpuMs = (used.user + used.system) / 1000;
const modules = Object.keys(require.cache).filter((k) => k.includes("node_modules")).map((k) => k.split("node_modules/").pop().split("/")[0]);
process.stdout.write(JSON.stringify({ ms, cpuMs, rssMiB: (process.memoryUsage().rss - before) / 2 ** 20, packages: [...new Set(modules)] }));
`;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function probe(entry) {
  return JSON.parse(execFileSync(process.execPath, ["-e", PROBE, entry], { encoding: "utf8" }));
}

function summary(samples) {
  return {
    ms: median(samples.map((s) => s.ms)),
    cpuMs: median(samples.map((s) => s.cpuMs)),
    rssMiB: median(samples.map((s) => s.rssMiB)),
    packages: samples[0].packages,
  };
}

const loadAtStart = os.loadavg();
const builds = [["this checkout", path.join(__dirname, "..")], ...(baseline ? [["baseline", baseline]] : [])];
const rows = [];
for (const entry of ["dist/index.js", "dist/notebook/index.js"]) {
  const samples = builds.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [b, [, dir]] of builds.entries()) samples[b].push(probe(path.join(dir, entry)));
  }
  for (const [b, [label]] of builds.entries()) rows.push({ label, entry, ...summary(samples[b]) });
}

const load = (l) => l.map((x) => x.toFixed(2)).join(" ");
console.log(
  `require() cost, median of ${runs} fresh processes (Node ${process.version}; load ${load(loadAtStart)} at start, ${load(os.loadavg())} at the end)`,
);
console.log("| build | entry | ms | CPU ms | RSS added (MiB) | npm packages loaded |");
console.log("| --- | --- | ---: | ---: | ---: | --- |");
for (const r of rows)
  console.log(
    `| ${r.label} | ${r.entry} | ${r.ms.toFixed(1)} | ${r.cpuMs.toFixed(1)} | ${r.rssMiB.toFixed(1)} | ${r.packages.join(", ") || "none"} |`,
  );
if (baseline) {
  for (const entry of ["dist/index.js", "dist/notebook/index.js"]) {
    const now = rows.find((r) => r.label === "this checkout" && r.entry === entry);
    const old = rows.find((r) => r.label === "baseline" && r.entry === entry);
    console.log(
      `${entry}: time ${(now.ms / old.ms).toFixed(2)}x, CPU ${(now.cpuMs / old.cpuMs).toFixed(2)}x, RSS ${(now.rssMiB / old.rssMiB).toFixed(2)}x of the baseline`,
    );
  }
}
