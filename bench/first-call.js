"use strict";
// The first call against the warm one, by hand (the `first` group of `npm run bench` does the same
// with more cases and repetitions):
//   node bench/first-call.js [--synthetic 100000] [--rounds 2]
// Each round starts a fresh `matframe serve --synthetic N` and a fresh client process for it
// (bench/cases/first-call.js), which times apart what a process pays once (the import of
// `matframe`, the load of danfojs-node, then of `matframe/notebook` with its HTTP transport) and `client.results.toDataFrame({ properties:
// ["band_gaps"] })` twice: the first call, those loaded, is what a notebook's user meets; the second what a
// warm-up buys. Then, on another fresh server, the first call from `require("matframe")` alone,
// which loads danfo and undici. Wall time and the client process's CPU time (which the load moves less).
const { onFreshServer } = require("./lib/first-call");
const os = require("node:os");

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const machineLoad = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const ms = (seconds) => `${(seconds * 1000).toFixed(0)} ms`;

async function main() {
  const synthetic = option("synthetic", 100_000);
  const rounds = option("rounds", 2);
  const out = (line) => process.stdout.write(`${line}\n`);
  out(`serve --synthetic ${synthetic}, a fresh server and client process per row; load ${machineLoad()}`);
  for (let round = 1; round <= rounds; round += 1) {
    const r = await onFreshServer(synthetic, { table: "results", entry: "notebook", label: "first" });
    const root = await onFreshServer(synthetic, { table: "results", entry: "root", idSamples: 0, label: "root" });
    out(`round ${round}:`);
    out(`  require('matframe')                        ${ms(r.importSeconds)}`);
    out(`  danfo load (once per process)              ${ms(r.danfoSeconds)} (CPU ${ms(r.danfoCpuSeconds)})`);
    out(`  matframe/notebook (transport included)     ${ms(r.notebookSeconds)}`);
    out(`  first call, those loaded                   ${ms(r.seconds)} (CPU ${ms(r.cpuSeconds)}), ${r.records} rows`);
    out(`  second call                                ${ms(r.warmSeconds)} (CPU ${ms(r.warmCpuSeconds)})`);
    out(`  first call from the root entry (loads both) ${ms(root.seconds)} (CPU ${ms(root.cpuSeconds)})`);
    out(
      `  _id $in 100 ids                            first ${r.idInFirstMs.toFixed(1)} ms, median ${r.idInMs.toFixed(1)} ms`,
    );
  }
  out(`load ${machineLoad()}`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
