import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { type ComputeOutcome, computeJob } from "../../src/server/compute";
import { findOnPath } from "../../src/server/compute/run-executable";
import { bankWorkflow, bulkSilicon } from "./fixtures";

// What the pw.x tests share: whether pw.x is here, ESSE's validator and property schemas, a job
// in a folder of its own, and the same input run by hand with pw.x.

export const hasPw = findOnPath("pw.x") !== undefined;
if (!hasPw)
  console.warn("Skipping the pw.x runs: pw.x is not on PATH (apt install quantum-espresso quantum-espresso-data).");

export const { validate } = require("@mat3ra/esse/dist/js/utils/ajv") as {
  validate: (data: object, schema: object) => { isValid: boolean; errors: unknown };
};
const ESSE = path.dirname(require.resolve("@mat3ra/esse/dist/js/schema/material.json"));
export const SCHEMAS: Record<string, string> = {
  total_energy: "properties_directory/scalar/total_energy.json",
  fermi_energy: "properties_directory/scalar/fermi_energy.json",
  pressure: "properties_directory/scalar/pressure.json",
  total_force: "properties_directory/scalar/total_force.json",
  total_energy_contributions: "properties_directory/non_scalar/total_energy_contributions.json",
  stress_tensor: "properties_directory/non_scalar/stress_tensor.json",
  band_gaps: "properties_directory/non_scalar/band_gaps.json",
  atomic_forces: "properties_directory/structural/atomic_forces.json",
};
export const schema = (file: string) => JSON.parse(readFileSync(path.join(ESSE, file), "utf8")) as object;

/** The Materials Project's GGA band gap of Si, mp-149 (eV). */
export const MP_GGA_GAP_SI = 0.61;

const run = promisify(execFile);

/**
 * A job in a fresh folder of `root`; `kgrid` and `context` (`qgrid`, `igrid` ...) go into every
 * unit's context, as a user sets them.
 */
export function job(
  root: string,
  name: string,
  workflowName: string,
  options: {
    signal?: AbortSignal;
    onLog?: (line: string) => void;
    material?: Record<string, unknown>;
    kgrid?: { dimensions: number[]; shifts: number[] };
    /** Goes into every unit's context, as a user sets it (a bands unit's `kpath` ...). */
    context?: Record<string, unknown>;
    /** Fills the job's folder before the job starts (as files uploaded before a submit). */
    prepare?: (workDir: string) => void;
  } = {},
) {
  const workDir = path.join(root, name);
  mkdirSync(workDir);
  options.prepare?.(workDir);
  const workflow = bankWorkflow(workflowName, "espresso");
  const context = { ...options.context, ...(options.kgrid ? { kgrid: options.kgrid } : {}) };
  for (const subworkflow of workflow.subworkflows as { units: { context: Record<string, unknown> }[] }[])
    for (const unit of subworkflow.units) unit.context = { ...unit.context, ...context };
  const promise = computeJob({
    jobId: name,
    workflow,
    material: options.material ?? bulkSilicon(),
    workDir,
    signal: options.signal ?? new AbortController().signal,
    onLog: options.onLog,
  });
  return { workDir, promise };
}

/** The job's input run by hand with pw.x in a folder of its own (its pseudopotentials copied). */
export async function byHand(root: string, jobDir: string, inputName: string): Promise<string> {
  const dir = path.join(root, `hand-${path.basename(jobDir)}-${inputName}`);
  mkdirSync(path.join(dir, "pseudo"), { recursive: true });
  for (const file of readdirSync(path.join(jobDir, "pseudo")))
    copyFileSync(path.join(jobDir, "pseudo", file), path.join(dir, "pseudo", file));
  const input = readFileSync(path.join(jobDir, inputName), "utf8").replaceAll(jobDir, dir);
  writeFileSync(path.join(dir, inputName), input);
  const { stdout } = await run("sh", ["-c", `pw.x < '${inputName}'`], {
    cwd: dir,
    env: { ...process.env, OMP_NUM_THREADS: "1", OMPI_MCA_ess_singleton_isolated: "1" },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

export function property(outcome: ComputeOutcome, name: string): Record<string, unknown> {
  const found = outcome.properties.find((p) => p.data.name === name);
  if (!found) throw new Error(`No ${name} in ${outcome.properties.map((p) => p.data.name).join(", ")}`);
  return found.data;
}
