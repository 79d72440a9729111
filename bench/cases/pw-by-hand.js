"use strict";
// The queue's baseline (the `compute` group): pw.x run by hand on the input the queue rendered,
// each run in a folder of its own (prepared before the clock: input, pseudopotentials, outdir),
// `running` at a time, back to back, as a shell loop would. Same environment as the runner's
// (one OpenMP thread, Open MPI's singleton alone, a session of its own), so only the queue's own
// work differs.
const { spawn } = require("node:child_process");
const { once } = require("node:events");
const { closeSync, openSync, readFileSync } = require("node:fs");
const path = require("node:path");
const { runCase, startClock } = require("../lib/case-kit");
const { pwWall } = require("../lib/pw-wall");

async function runPw(dir) {
  const stdin = openSync(path.join(dir, "pw_scf.in"), "r");
  const stdout = openSync(path.join(dir, "pw_scf.out"), "w");
  const child = spawn("pw.x", [], {
    cwd: dir,
    // In a session of its own, as the runner's pw.x (and a terminal user's) is: where Linux's
    // autogroup scheduling is on, a session is a scheduling group, and on a loaded machine a
    // pw.x in a fresh session got about 1.6 times the CPU of one left in this process's session.
    detached: true,
    stdio: [stdin, stdout, stdout],
    env: { ...process.env, OMP_NUM_THREADS: "1", OMPI_MCA_ess_singleton_isolated: "1" },
  });
  closeSync(stdin);
  closeSync(stdout);
  const [code, signal] = await once(child, "exit");
  if (code !== 0) throw new Error(`pw.x ended with ${signal ?? code} in ${dir}; see its pw_scf.out.`);
  return pwWall(readFileSync(path.join(dir, "pw_scf.out"), "utf8"));
}

runCase(async ({ dirs, running }) => {
  const waiting = [...dirs];
  const stop = startClock();
  let pwWallSeconds = 0;
  const lane = async () => {
    for (let dir = waiting.shift(); dir !== undefined; dir = waiting.shift()) {
      // Not `total += await ...`: that reads the total before the wait, and lanes would lose runs.
      const wall = await runPw(dir);
      pwWallSeconds += wall;
    }
  };
  await Promise.all(Array.from({ length: running }, lane));
  const timed = stop();
  return { ...timed, records: dirs.length, jobsPerMinute: (dirs.length / timed.seconds) * 60, pwWallSeconds };
});
