#!/usr/bin/env node
"use strict";
// What `require("matframe")` costs a program that only wants the client (issue 10): the time of
// the require and the resident memory it adds over a bare Node, median of N fresh processes, for
// the root entry and for `matframe/notebook`. With `--baseline DIR` (a checkout of another commit,
// built), the same figures for that commit, measured in the same run, and the ratios.
//
//   node bench/import-cost.js [--runs 9] [--baseline /path/to/old/checkout]

const { execFileSync } = require("node:child_process");
const path = require("node:path");

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1]) || 9;
const baseline = args.includes("--baseline") ? path.resolve(args[args.indexOf("--baseline") + 1]) : undefined;

const PROBE = `
const t = process.hrtime.bigint();
const before = process.memoryUsage().rss;
require(process.argv[1]);
const ms = Number(process.hrtime.bigint() - t) / 1e6;
const modules = Object.keys(require.cache).filter((k) => k.includes("node_modules")).map((k) => k.split("node_modules/").pop().split("/")[0]);
process.stdout.write(JSON.stringify({ ms, rssMiB: (process.memoryUsage().rss - before) / 2 ** 20, packages: [...new Set(modules)] }));
`;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(entry) {
  const samples = [];
  for (let i = 0; i < runs; i++)
    samples.push(JSON.parse(execFileSync(process.execPath, ["-e", PROBE, entry], { encoding: "utf8" })));
  return {
    ms: median(samples.map((s) => s.ms)),
    rssMiB: median(samples.map((s) => s.rssMiB)),
    packages: samples[0].packages,
  };
}

const rows = [];
for (const [label, dir] of [
  ["this checkout", path.join(__dirname, "..")],
  ...(baseline ? [["baseline", baseline]] : []),
]) {
  for (const entry of ["dist/index.js", "dist/notebook/index.js"]) {
    const m = measure(path.join(dir, entry));
    rows.push({ label, entry, ...m });
  }
}

console.log(`require() cost, median of ${runs} fresh processes (Node ${process.version})`);
console.log("| build | entry | ms | RSS added (MiB) | npm packages loaded |");
console.log("| --- | --- | ---: | ---: | --- |");
for (const r of rows)
  console.log(
    `| ${r.label} | ${r.entry} | ${r.ms.toFixed(1)} | ${r.rssMiB.toFixed(1)} | ${r.packages.join(", ") || "none"} |`,
  );
if (baseline) {
  for (const entry of ["dist/index.js", "dist/notebook/index.js"]) {
    const now = rows.find((r) => r.label === "this checkout" && r.entry === entry);
    const old = rows.find((r) => r.label === "baseline" && r.entry === entry);
    console.log(
      `${entry}: time ${(now.ms / old.ms).toFixed(2)}x, RSS ${(now.rssMiB / old.rssMiB).toFixed(2)}x of the baseline`,
    );
  }
}
