import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputeOutcome } from "../../src/server/compute";
import { computability } from "../../src/server/compute/run-job";
import { findOnPath } from "../../src/server/compute/run-executable";
import { at } from "../support/checked";
import { bankWorkflow } from "./fixtures";
import { hasPw, job, property, schema, validate } from "./pw-runs";

// Bulk silicon's (mp-149) phonon density of states computed for real through the bank's espresso
// "Phonon Density of States": pw.x, ph.x on a 2×2×2 q-grid, q2r.x, matdyn.x. Its phonon_dos
// against matdyn.x's file read by numpy, against the sum rule of a DOS (3 modes per atom) and
// against Si's optical frequencies at Γ; the data against ESSE's schema.

const hasPhonons = hasPw && ["ph.x", "q2r.x", "matdyn.x"].every((p) => findOnPath(p) !== undefined);
if (hasPw && !hasPhonons) console.warn("Skipping the phonon DOS run: ph.x, q2r.x or matdyn.x is not on PATH.");

const root = mkdtempSync(path.join(tmpdir(), "matframe-si-dos-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const execute = promisify(execFile);

describe.runIf(hasPhonons)("Si's phonon density of states computed with ph.x, q2r.x and matdyn.x", () => {
  let outcome: ComputeOutcome;
  let workDir: string;

  beforeAll(async () => {
    // Coarser than the platform's defaults (6×6×6 k-points, 4×4×4 q-points, 40/200 Ry: minutes
    // of ph.x), set in the units' context as a user would: 4×4×4 k-points, 2×2×2 q-points and
    // 25/100 Ry cutoffs (35 s here instead of minutes; at 120 Ry for the density ph.x finds its
    // FFT grid incompatible with silicon's fractional translations, at 100 it does not).
    const started = job(root, "dos", "Phonon Density of States", {
      kgrid: { dimensions: [4, 4, 4], shifts: [0, 0, 0] },
      context: {
        qgrid: { dimensions: [2, 2, 2], shifts: [0, 0, 0] },
        cutoffs: { wavefunction: 25, density: 100 },
      },
    });
    workDir = started.workDir;
    const startedAt = performance.now();
    outcome = await started.promise;
    console.info(`Si's phonon DOS job took ${((performance.now() - startedAt) / 1000).toFixed(1)} s.`);
  }, 900_000);

  it("finishes with each unit's input and output, the grids said in its notes", () => {
    expect(outcome).toMatchObject({ status: "finished" });
    expect(outcome.files.map((f) => f.name)).toEqual([
      "pw_scf.in",
      "pw_scf.out",
      "ph_grid.in",
      "ph_grid.out",
      // ph.x's dynamical matrices (the q-grid, then one per irreducible q-point), which q2r.x reads.
      "dyn0",
      "dyn1",
      "dyn2",
      "dyn3",
      "dyn4",
      "q2r.in",
      "q2r.out",
      "force_constants.fc",
      "matdyn_grid.in",
      "matdyn_grid.out",
      "frequencies.freq",
      "frequencies.freq.gp",
      "matdyn.modes",
      // The file the phonon_dos property is read from.
      "phonon_dos.out",
    ]);
    const notes = outcome.notes.join("\n");
    expect(notes).toContain("ph_grid: q-points 2×2×2.");
    // The platform's interpolation grid: five times the k-point density, 1000 points per atom,
    // which for mp-149 lands on 10 along each axis; the cell's printed digits tip two over.
    expect(notes).toContain("matdyn_grid: interpolated on 10×11×11 q-points.");
  });

  it("gives a phonon_dos ESSE's schema accepts, tied to the matdyn.x unit, equal to numpy's read of its file", async () => {
    const units = at(
      bankWorkflow("Phonon Density of States", "espresso").subworkflows as {
        units: { flowchartId: string; name: string }[];
      }[],
      0,
    ).units;
    const found = outcome.properties.filter((p) => p.data.name === "phonon_dos");
    expect(found.map((p) => p.unitId)).toEqual([units.find((u) => u.name === "matdyn_grid")?.flowchartId]);
    const data = property(outcome, "phonon_dos");
    expect(validate(data, schema("properties_directory/non_scalar/phonon_dos.json"))).toMatchObject({ isValid: true });
    const { stdout } = await execute("python3", [
      "-c",
      "import json, sys, numpy; d = numpy.loadtxt(sys.argv[1], usecols=(0, 1)); print(json.dumps([d[:, 0].tolist(), d[:, 1].tolist()]))",
      path.join(workDir, "phonon_dos.out"),
    ]);
    const [frequency, total] = JSON.parse(stdout) as [number[], number[]];
    expect(data.xDataArray).toEqual([frequency]);
    expect(data.yDataSeries).toEqual([total]);
  });

  it("holds 3 modes per atom, and ends at Si's optical frequencies", () => {
    const data = property(outcome, "phonon_dos") as { xDataArray: number[][]; yDataSeries: number[][] };
    const x = at(data.xDataArray, 0);
    const y = at(data.yDataSeries, 0);
    let integral = 0;
    for (let i = 1; i < x.length; i++) integral += ((at(y, i) + at(y, i - 1)) / 2) * (at(x, i) - at(x, i - 1));
    // Two atoms: six modes; the histogram of a 10×11×11 interpolation, within 2%.
    expect(Math.abs(integral - 6)).toBeLessThan(0.12);
    // The highest frequency with weight: Si's optical modes near Γ (504 cm-1 at Γ here, as the
    // zero-point energy's test finds; Raman 520.7 cm-1).
    const top = Math.max(...x.filter((_, i) => at(y, i) > 1e-6));
    console.info(`Si's phonon DOS: ${integral.toFixed(3)} modes, highest frequency ${top} cm-1.`);
    expect(top).toBeGreaterThan(490);
    expect(top).toBeLessThan(530);
  });
});

describe("the phonon dispersions", () => {
  it("are refused before anything runs: the engine makes no q-point path yet", () => {
    expect(computability(bankWorkflow("Phonon Dispersions", "espresso"))).toEqual({
      runnable: false,
      reason: expect.stringMatching(/unit "matdyn_path" needs a path of q-points .*\(ipath\)/),
    });
  });
});
