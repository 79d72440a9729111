import { execFile } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ComputeOutcome, computeJob } from "../../src/server/compute";
import { finalCoordinates, finalEnergyRy, RYDBERG_EV } from "../../src/server/compute/pw-output";
import { findOnPath } from "../../src/server/compute/run-executable";
import { bankWorkflow, bulkSilicon } from "./fixtures";

// Bulk silicon (mp-149) computed for real with Debian's pw.x through the bank's own espresso
// workflows: each job runs once per file, and its results are checked against its own output,
// against the same input run by hand with pw.x, against the Materials Project's GGA band gap, and
// against ESSE's property schemas (the platform's own validator).

const hasPw = findOnPath("pw.x") !== undefined;
if (!hasPw)
  console.warn("Skipping the pw.x runs: pw.x is not on PATH (apt install quantum-espresso quantum-espresso-data).");

const { validate } = require("@mat3ra/esse/dist/js/utils/ajv") as {
  validate: (data: object, schema: object) => { isValid: boolean; errors: unknown };
};
const ESSE = path.dirname(require.resolve("@mat3ra/esse/dist/js/schema/material.json"));
const SCHEMAS: Record<string, string> = {
  total_energy: "properties_directory/scalar/total_energy.json",
  fermi_energy: "properties_directory/scalar/fermi_energy.json",
  pressure: "properties_directory/scalar/pressure.json",
  total_force: "properties_directory/scalar/total_force.json",
  total_energy_contributions: "properties_directory/non_scalar/total_energy_contributions.json",
  stress_tensor: "properties_directory/non_scalar/stress_tensor.json",
  band_gaps: "properties_directory/non_scalar/band_gaps.json",
  atomic_forces: "properties_directory/structural/atomic_forces.json",
};
const schema = (file: string) => JSON.parse(readFileSync(path.join(ESSE, file), "utf8")) as object;

/** The Materials Project's GGA band gap of Si, mp-149 (eV). */
const MP_GGA_GAP_SI = 0.61;

const run = promisify(execFile);
const root = mkdtempSync(path.join(tmpdir(), "matframe-si-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A job in a fresh folder of `root`. */
function job(
  name: string,
  workflowName: string,
  signal = new AbortController().signal,
  onLog?: (line: string) => void,
) {
  const workDir = path.join(root, name);
  mkdirSync(workDir);
  const promise = computeJob({
    jobId: name,
    workflow: bankWorkflow(workflowName, "espresso"),
    material: bulkSilicon(),
    workDir,
    signal,
    onLog,
  });
  return { workDir, promise };
}

/** The job's input run by hand with pw.x in a folder of its own (its pseudopotentials copied). */
async function byHand(jobDir: string, inputName: string): Promise<string> {
  const dir = path.join(root, `hand-${path.basename(jobDir)}-${inputName}`);
  mkdirSync(path.join(dir, "pseudo"), { recursive: true });
  for (const file of readdirSync(path.join(jobDir, "pseudo")))
    copyFileSync(path.join(jobDir, "pseudo", file), path.join(dir, "pseudo", file));
  const input = readFileSync(path.join(jobDir, inputName), "utf8").replaceAll(jobDir, dir);
  writeFileSync(path.join(dir, inputName), input);
  const { stdout } = await run("sh", ["-c", `pw.x < '${inputName}'`], {
    cwd: dir,
    env: { ...process.env, OMP_NUM_THREADS: "1" },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

function property(outcome: ComputeOutcome, name: string): Record<string, unknown> {
  const found = outcome.properties.find((p) => p.data.name === name);
  if (!found) throw new Error(`No ${name} in ${outcome.properties.map((p) => p.data.name).join(", ")}`);
  return found.data;
}

describe.runIf(hasPw)("Si's band gap and total energy computed with pw.x", () => {
  let outcome: ComputeOutcome;
  let workDir: string;
  let handScf: string;

  beforeAll(async () => {
    const started = job("band-gap", "Band Gap");
    workDir = started.workDir;
    outcome = await started.promise;
    handScf = await byHand(workDir, "pw_scf.in");
  }, 600_000);

  it("finishes with the files named as the platform names them", () => {
    expect(outcome).toMatchObject({ status: "finished" });
    expect(outcome.files.map((f) => `${f.kind}:${f.name}`)).toEqual([
      "input:pw_scf.in",
      "output:pw_scf.out",
      "input:pw_nscf.in",
      "output:pw_nscf.out",
    ]);
    expect(outcome.notes.join("\n")).toMatch(/Si\.pbe-nl-rrkjus_psl\.1\.0\.0\.UPF[\s\S]*6×6×6[\s\S]*12×12×12/);
  });

  it("gives total_energy equal to the final energy of its own pw_scf.out, and of pw.x run by hand", () => {
    const energyEv = property(outcome, "total_energy").value as number;
    const own = finalEnergyRy(readFileSync(path.join(workDir, "pw_scf.out"), "utf8"))!;
    expect(Math.abs(energyEv / RYDBERG_EV - own)).toBeLessThan(1e-6);
    expect(Math.abs(energyEv / RYDBERG_EV - finalEnergyRy(handScf)!)).toBeLessThan(1e-6);
  });

  it("gives an indirect gap within 0.15 eV of the Materials Project's GGA value", () => {
    const gaps = property(outcome, "band_gaps").values as { type: string; value: number }[];
    const indirect = gaps.find((g) => g.type === "indirect")!;
    expect(Math.abs(indirect.value - MP_GGA_GAP_SI)).toBeLessThan(0.15);
    expect(gaps.find((g) => g.type === "direct")!.value).toBeGreaterThan(indirect.value);
  });

  it("gives properties ESSE's schemas accept, each tied to its unit", () => {
    const flowchartIds = new Set(
      (bankWorkflow("Band Gap", "espresso").subworkflows as { units: { flowchartId: string }[] }[])[0].units.map(
        (u) => u.flowchartId,
      ),
    );
    for (const { unitId, data } of outcome.properties) {
      expect(flowchartIds).toContain(unitId);
      const result = validate(data, schema(SCHEMAS[data.name]));
      expect({ name: data.name, ...result }).toMatchObject({ name: data.name, isValid: true });
    }
    expect(new Set(outcome.properties.map((p) => p.data.name))).toEqual(new Set([...Object.keys(SCHEMAS)]));
  });
});

describe.runIf(hasPw)("Si's lattice relaxed with pw.x", () => {
  let outcome: ComputeOutcome;
  let hand: string;

  beforeAll(async () => {
    const started = job("vc-relax", "Variable-cell Relaxation");
    outcome = await started.promise;
    hand = await byHand(started.workDir, "pw_vc_relax.in");
  }, 600_000);

  it("gives a final_structure whose lattice is within 1% of a vc-relax run by hand", () => {
    expect(outcome).toMatchObject({ status: "finished" });
    const final = property(outcome, "final_structure") as {
      lattice: { a: number; b: number; c: number; alpha: number; vectors: { a: number[] } };
      basis: unknown;
    };
    const byHandCell = finalCoordinates(hand)!.cell;
    const handA = Math.hypot(...byHandCell[0]);
    for (const length of [final.lattice.a, final.lattice.b, final.lattice.c])
      expect(Math.abs(length / handA - 1)).toBeLessThan(0.01);
    expect(final.lattice.alpha).toBeCloseTo(60, 1);
    const lattice = validate(final.lattice, schema("properties_directory/structural/lattice.json"));
    const basis = validate(final.basis as object, schema("properties_directory/structural/basis.json"));
    expect([lattice.isValid, basis.isValid]).toEqual([true, true]);
  });
});

/** Processes whose working folder is `dir` (pw.x of a job runs there). */
function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

describe.runIf(hasPw)("a job stopped while pw.x runs", () => {
  it("ends pw.x's whole process group within 1 s and says why", async () => {
    const controller = new AbortController();
    const started = job("aborted", "Band Gap", controller.signal);
    await vi.waitFor(() => expect(processesIn(started.workDir).length).toBeGreaterThan(0), { timeout: 30_000 });
    const abortedAt = performance.now();
    controller.abort();
    const outcome = await started.promise;
    // The promise: terminate ends pw.x within 1 s (a kill of the group, not a polite wait).
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(processesIn(started.workDir)).toEqual([]);
    expect(outcome).toMatchObject({ status: "error", reason: expect.stringMatching(/stopped while pw_scf ran/) });
  });
});
