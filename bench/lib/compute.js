"use strict";
// The local platform's job queue against pw.x by hand (the `compute` group). Per repetition and
// per running limit R (1 and 2): a fresh `matframe serve --max-running-jobs R` computes N Si
// total-energy jobs (bench/cases/compute-queue.js), then the input its runner rendered runs N
// times by hand, R at a time (bench/cases/pw-by-hand.js), each in a folder of its own with the
// pseudopotentials the job used. Queue and hand runs alternate, so drift in the machine's load
// hits both alike. The ratio is the queue's time over the hand runs' time for the same N jobs.
const {
  accessSync,
  constants,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} = require("node:fs");
const { tmpdir } = require("node:os");
const path = require("node:path");
const { startServerProcess } = require("./server-process");
const { login } = require("./api");
const { runNodeCase } = require("./case-runner");

const RUNNING = [1, 2];

/** Where pw.x is on PATH, or undefined. */
function findPw() {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, "pw.x"), constants.X_OK);
      return path.join(dir, "pw.x");
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The run's sizes: the full run computes the bank's Si total energy as a user would (its 6×6×6
 * k-points, ~5 s of pw.x on one core); the quick one (CI) a 2×2×2 grid, two jobs per limit.
 */
function computeSizes(settings) {
  return settings.quick
    ? { jobs: 2, kgrid: { dimensions: [2, 2, 2], shifts: [0, 0, 0] } }
    : { jobs: 4, kgrid: undefined };
}

/** The job's folder named by its rendered input (its pseudo_dir), or an error saying so. */
function jobFolderOf(input) {
  const jobDir = /pseudo_dir\s*=\s*'([^']+)\/pseudo'/.exec(input)?.[1];
  if (!jobDir) throw new Error("The job's pw_scf.in names no pseudo_dir: cannot run it by hand.");
  return jobDir;
}

/** Copies the job's input and pseudopotentials into `keep` (its folder goes with its server). */
function keepJobInput(input, keep) {
  const jobDir = jobFolderOf(input);
  mkdirSync(path.join(keep, "pseudo"), { recursive: true });
  for (const file of readdirSync(path.join(jobDir, "pseudo")))
    copyFileSync(path.join(jobDir, "pseudo", file), path.join(keep, "pseudo", file));
  writeFileSync(path.join(keep, "pw_scf.in"), input.replaceAll(jobDir, keep));
}

/** Folders for the hand runs: the kept input with its folder replaced, and its pseudopotentials. */
function handFolders(root, keep, count) {
  const input = readFileSync(path.join(keep, "pw_scf.in"), "utf8");
  const dirs = [];
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, `hand-${i}`);
    mkdirSync(path.join(dir, "pseudo"), { recursive: true });
    mkdirSync(path.join(dir, "outdir"));
    for (const file of readdirSync(path.join(keep, "pseudo")))
      copyFileSync(path.join(keep, "pseudo", file), path.join(dir, "pseudo", file));
    writeFileSync(path.join(dir, "pw_scf.in"), input.replaceAll(keep, dir));
    dirs.push(dir);
  }
  return dirs;
}

const LABEL = {
  queue: (r, n) => `matframe serve --max-running-jobs ${r}: ${n} Si total-energy jobs, first submit to last finished`,
  hand: (r, n) => `pw.x by hand on the same input, ${n} runs, ${r} at a time`,
};

/** One queue run on a fresh server; keeps the input its runner rendered in `keep`. */
async function queueRun({ r, jobs, kgrid, keep, label }) {
  const server = await startServerProcess({ synthetic: 0, args: ["--max-running-jobs", String(r)] });
  try {
    const inputFile = path.join(path.dirname(keep), `${label}.in`);
    const result = await runNodeCase("compute-queue.js", {
      baseUrl: server.baseUrl,
      credentials: await login(server.baseUrl),
      jobs,
      kgrid,
      inputFile,
      label,
    });
    // The job's folder (and its pseudopotentials) lives as long as the server: copy first.
    keepJobInput(readFileSync(inputFile, "utf8"), keep);
    return result;
  } finally {
    await server.stop();
  }
}

async function measureCompute({ settings, runs, failures, labels, progress }) {
  const { jobs, kgrid } = computeSizes(settings);
  if (!findPw()) {
    const skip = "pw.x is not on PATH (apt install quantum-espresso quantum-espresso-data)";
    progress(`compute queue skipped: ${skip}`);
    return { skip };
  }
  progress(
    `compute queue: ${jobs} Si total-energy jobs (k-points ${kgrid ? kgrid.dimensions.join("×") : "the bank's"}) per limit, against pw.x by hand`,
  );
  for (const r of RUNNING) {
    labels.push({ id: `compute.queue.r${r}`, label: LABEL.queue(r, jobs) });
    labels.push({ id: `compute.hand.r${r}`, label: LABEL.hand(r, jobs) });
  }
  // The input the runner rendered, kept per limit: every other repetition runs the hand runs
  // first, so that a load that rises or falls through the run does not always favour one side.
  const kept = mkdtempSync(path.join(tmpdir(), "matframe-bench-compute-input-"));
  try {
    for (let rep = 1; rep <= settings.reps; rep++) {
      for (const r of RUNNING) {
        const queueId = `compute.queue.r${r}`;
        const handId = `compute.hand.r${r}`;
        if (failures[queueId] || failures[handId]) continue;
        const keep = path.join(kept, `r${r}`);
        const handFirst = rep % 2 === 0;
        const root = mkdtempSync(path.join(tmpdir(), "matframe-bench-compute-"));
        try {
          const byHand = () =>
            runNodeCase("pw-by-hand.js", { dirs: handFolders(root, keep, jobs), running: r, label: handId });
          const hand = handFirst ? await byHand() : undefined;
          const queued = await queueRun({ r, jobs, kgrid, keep, label: queueId });
          const after = hand ?? (await byHand());
          (runs[queueId] ??= []).push(queued);
          (runs[handId] ??= []).push(after);
          progress(
            `  [${rep}/${settings.reps}] ${r} running${handFirst ? " (by hand first)" : ""}: queue ${queued.seconds.toFixed(2)} s (${queued.jobsPerMinute.toFixed(1)} jobs/min), by hand ${after.seconds.toFixed(2)} s (${after.jobsPerMinute.toFixed(1)} jobs/min)`,
          );
        } catch (error) {
          failures[queueId] = error.message;
          progress(`  FAILED compute queue at ${r} running: ${error.message}`);
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }
    }
  } finally {
    rmSync(kept, { recursive: true, force: true });
  }
  return { jobs, kgrid: kgrid?.dimensions ?? "the bank's (6×6×6)", running: RUNNING };
}

module.exports = { measureCompute, findPw };
