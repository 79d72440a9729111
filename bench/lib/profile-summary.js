#!/usr/bin/env node
"use strict";
// Summarises a .cpuprofile (from `npm run bench -- --cpu-prof`, written to bench/profiles/):
// self time per function, and time inside named functions, counted from the first sample whose
// stack contains `--from NAME` (so module loading before the timed work is left out).
//
//   node bench/lib/profile-summary.js FILE.cpuprofile [--from toDataFrame] [--top 25] [--inside a,b,c]
const { readFileSync } = require("node:fs");
const { parseArgs } = require("node:util");

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { from: { type: "string" }, top: { type: "string", default: "25" }, inside: { type: "string" } },
});
if (positionals.length !== 1) {
  process.stderr.write(
    "usage: node bench/lib/profile-summary.js FILE.cpuprofile [--from NAME] [--top N] [--inside a,b]\n",
  );
  process.exit(1);
}
const profile = JSON.parse(readFileSync(positionals[0], "utf8"));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
const where = (n) =>
  n.callFrame.url
    .replace(/^.*node_modules\//, "")
    .replace(/^.*\/(dist|bench)\//, "$1/")
    .replace(/^.*\/\.matframe-tmp-bench-dist-\d+\//, "dist/")
    .replace(/^file:\/\//, "");
const label = (n) =>
  `${n.callFrame.functionName || "(anonymous)"} ${where(n)}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ""}`;
const stackNames = (id) => {
  const names = [];
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) names.push(nodes.get(cur).callFrame.functionName);
  return names;
};

let counting = !values.from;
const self = new Map();
const inside = new Map(
  (values.inside ?? "")
    .split(",")
    .filter(Boolean)
    .map((name) => [name, 0]),
);
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  const micros = profile.timeDeltas[i] ?? 0;
  const names = stackNames(id);
  if (!counting && names.includes(values.from)) counting = true;
  if (!counting) continue;
  const key = label(nodes.get(id));
  if (key.startsWith("(idle)")) continue;
  total += micros;
  self.set(key, (self.get(key) ?? 0) + micros);
  for (const name of inside.keys()) if (names.includes(name)) inside.set(name, inside.get(name) + micros);
}
const ms = (micros) => String(Math.round(micros / 1000)).padStart(6);
process.stdout.write(
  `busy (not idle) ${values.from ? `from the first sample in ${values.from}` : "in the whole profile"}: ${ms(total).trim()} ms\n\nself ms  function\n`,
);
for (const [key, micros] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  process.stdout.write(`${ms(micros)}  ${key}\n`);
}
if (inside.size > 0) {
  process.stdout.write("\ninside ms  function (inclusive)\n");
  for (const [name, micros] of inside) process.stdout.write(`${ms(micros)}     ${name}\n`);
}
