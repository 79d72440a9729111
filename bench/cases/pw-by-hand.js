"use strict";
// The queue's baseline (the `compute` group): pw.x run by hand on the input the queue rendered,
// each run in a folder of its own (prepared before the clock: input, pseudopotentials, outdir),
// `running` at a time, back to back, as a shell loop would. Same environment as the runner's
// (one OpenMP thread, Open MPI's singleton alone), so only the queue's own work differs.
const { spawn } = require("node:child_process");
const { once } = require("node:events");
const { closeSync, openSync } = require("node:fs");
const path = require("node:path");
const { runCase, startClock } = require("../lib/case-kit");

async function runPw(dir) {
  const stdin = openSync(path.join(dir, "pw_scf.in"), "r");
  const stdout = openSync(path.join(dir, "pw_scf.out"), "w");
  const child = spawn("pw.x", [], {
    cwd: dir,
    stdio: [stdin, stdout, stdout],
    env: { ...process.env, OMP_NUM_THREADS: "1", OMPI_MCA_ess_singleton_isolated: "1" },
  });
  closeSync(stdin);
  closeSync(stdout);
  const [code, signal] = await once(child, "exit");
  if (code !== 0) throw new Error(`pw.x ended with ${signal ?? code} in ${dir}; see its pw_scf.out.`);
}

runCase(async ({ dirs, running }) => {
  const waiting = [...dirs];
  const stop = startClock();
  const lane = async () => {
    for (let dir = waiting.shift(); dir !== undefined; dir = waiting.shift()) await runPw(dir);
  };
  await Promise.all(Array.from({ length: running }, lane));
  const timed = stop();
  return { ...timed, records: dirs.length, jobsPerMinute: (dirs.length / timed.seconds) * 60 };
});
