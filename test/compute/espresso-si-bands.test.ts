import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ComputeOutcome, computability } from "../../src/server/compute";
import { kpathOf } from "../../src/server/compute/k-points/k-path";
import { at, captured, defined } from "../support/checked";
import { bankWorkflow, bulkSilicon } from "./fixtures";
import { hasPw, job, MP_GGA_GAP_SI, property, schema, validate } from "./pw-runs";

// Bulk silicon's band structure (mp-149) computed for real with Debian's pw.x and bands.x
// through the bank's espresso "Band Structure" workflow (pw_scf, pw_bands along the platform's
// default FCC path, bands.x), then its "Recalculate Bands" in a folder holding the first job's
// self-consistent data, as the platform's child job gets its parent's. The band structure is
// checked against ESSE's schema, against bands.x's own text file (an independent reader of the
// same run), against the SCF's printed eigenvalues at Γ, against the literature's Si bands at X
// and L, and its gap against the Materials Project's.

const root = mkdtempSync(path.join(tmpdir(), "matframe-si-bands-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type BandStructure = { xDataArray: number[][]; yDataSeries: number[][]; spin: number[] };
type Vector = [number, number, number];

const dot = (u: readonly number[], v: readonly number[]) => u.reduce((sum, x, i) => sum + x * (v[i] ?? Number.NaN), 0);

/** CELL_PARAMETERS (Å) of a pw.x input, and pw.x's alat for them: the first vector's length. */
function cellOf(input: string): { vectors: Vector[]; alat: number } {
  const rows = captured(/CELL_PARAMETERS angstrom\n((?:.*\n){3})/, input, "CELL_PARAMETERS")
    .trim()
    .split("\n");
  const vectors = rows.map((row) => row.trim().split(/\s+/).map(Number) as Vector);
  return { vectors, alat: Math.hypot(...at(vectors, 0)) };
}

/** The crystal_b block of a pw.x input: each point's coordinates and steps. */
function crystalB(input: string): { coordinates: number[]; steps: number }[] {
  const [, count = "", rest = ""] = /K_POINTS crystal_b\n\s*(\d+)\n([\s\S]*)/.exec(input) ?? [];
  return rest
    .trim()
    .split("\n")
    .slice(0, Number(count))
    .map((line) => line.trim().split(/\s+/).map(Number))
    .map((n) => ({ coordinates: n.slice(0, 3), steps: n[3] ?? Number.NaN }));
}

/** bands.x's `filband` file: each k-point (cartesian, 2π/alat) with its bands (eV, three decimals). */
function bandsDat(text: string): { k: number[]; energies: number[] }[] {
  const nbnd = Number(captured(/nbnd=\s*(\d+)/, text, "nbnd"));
  const numbers = text
    .slice(text.indexOf("/") + 1)
    .trim()
    .split(/\s+/)
    .map(Number);
  const points: { k: number[]; energies: number[] }[] = [];
  for (let i = 0; i + 3 + nbnd <= numbers.length; i += 3 + nbnd)
    points.push({ k: numbers.slice(i, i + 3), energies: numbers.slice(i + 3, i + 3 + nbnd) });
  return points;
}

/** A unit's own path's first point, by coordinates (its others are by name). */
const OWN_PATH_START = { coordinates: [0, 0, 0], steps: 10 };

/** Each k-point pw.x printed (cartesian, 2π/alat) with its bands (eV, four decimals). */
function printedBands(output: string): { k: number[]; energies: number[] }[] {
  const blocks = output.matchAll(/k =([-\d. ]+?)\s*\(\s*\d+ PWs\)\s+bands \(ev\):\s*\n\s*\n([\s\S]*?)\n\s*\n/g);
  return [...blocks].map(([, k = "", energies = ""]) => ({
    k: (k.match(/-?\d+\.\d+/g) ?? []).map(Number),
    energies: energies.trim().split(/\s+/).map(Number),
  }));
}

/** The eigenvalues pw.x printed at k = (0, 0, 0). */
function printedAtGamma(output: string): number[] {
  return captured(/k = 0\.0000 0\.0000 0\.0000 \(\s*\d+ PWs\)\s+bands \(ev\):\s*\n\s*\n([\s\S]*?)\n\s*\n/, output)
    .trim()
    .split(/\s+/)
    .map(Number);
}

describe.runIf(hasPw)("Si's band structure computed with pw.x and bands.x", () => {
  let outcome: ComputeOutcome;
  let recalculated: ComputeOutcome;
  let refused: ComputeOutcome;
  let workDir: string;
  const read = (name: string) => readFileSync(path.join(workDir, name), "utf8");
  const bands = () => property(outcome, "band_structure") as unknown as BandStructure;

  beforeAll(async () => {
    const started = job(root, "band-structure", "Band Structure");
    workDir = started.workDir;
    outcome = await started.promise;
    // The child job: the parent's self-consistent data in its folder, as uploaded before a submit.
    const save = path.join("outdir", "__prefix__.save");
    // Its own path, short enough (21 k-points) for pw.x to print the bands it computes.
    recalculated = await job(root, "recalculate", "Recalculate Bands", {
      context: { kpath: [OWN_PATH_START, { point: "X", steps: 10 }, { point: "L", steps: 10 }] },
      prepare: (dir) => {
        mkdirSync(path.join(dir, save), { recursive: true });
        for (const file of ["data-file-schema.xml", "charge-density.dat"])
          copyFileSync(path.join(workDir, save, file), path.join(dir, save, file));
      },
    }).promise;
    refused = await job(root, "recalculate-alone", "Recalculate Bands").promise;
  }, 600_000);

  it("finishes with the files named as the platform names them, bands.x's among them", () => {
    expect(outcome).toMatchObject({ status: "finished" });
    expect(outcome.files.map((f) => `${f.kind}:${f.name}`)).toEqual([
      "input:pw_scf.in",
      "output:pw_scf.out",
      "input:pw_bands.in",
      "output:pw_bands.out",
      "input:bands.in",
      "output:bands.out",
      "output:bands.dat",
      "output:bands.dat.gnu",
    ]);
    expect(read("bands.out")).toMatch(/JOB DONE/);
    expect(outcome.notes.join("\n")).toContain(
      "pw_bands: k-points 101 along a path (the platform's default path for FCC, Γ–X–W–K–Γ–L–U–W–L–U–X, 10 steps between points)",
    );
  });

  it("gives a band_structure ESSE's schema accepts, tied to the pw_bands unit", () => {
    const units = at(
      bankWorkflow("Band Structure", "espresso").subworkflows as { units: Record<string, string>[] }[],
      0,
    ).units;
    const pwBands = defined(
      units.find((u) => u.name === "pw_bands"),
      "the pw_bands unit",
    );
    const found = outcome.properties.filter((p) => p.data.name === "band_structure");
    expect(found.map((p) => p.unitId)).toEqual([pwBands.flowchartId]);
    const data = at(found, 0).data;
    expect(validate(data, schema("properties_directory/non_scalar/band_structure.json"))).toMatchObject({
      isValid: true,
    });
    expect(data).toMatchObject({
      xAxis: { label: "kpoints", units: "crystal" },
      yAxis: { label: "energy", units: "eV" },
    });
    // Si's 8 valence electrons fill 4 bands; pw.x adds 4 empty ones (nbnd = 8).
    expect(bands().yDataSeries.length).toBe(8);
    expect(bands().spin).toEqual(Array(8).fill(0.5));
  });

  it("runs the path pw.x expands from crystal_b, starting at Γ, through X and L where they are", () => {
    const path = crystalB(read("pw_bands.in"));
    expect(path.length).toBe(11);
    const expanded = path.slice(0, -1).reduce((sum, p) => sum + p.steps, 1);
    const { xDataArray } = bands();
    expect(xDataArray.length).toBe(expanded);
    expect(Number(captured(/number of k points=\s*(\d+)/, read("pw_bands.out")))).toBe(expanded);
    for (const x of at(xDataArray, 0)) expect(Math.abs(x)).toBeLessThan(1e-9);
    // In the cell pw.x gets, X and L are where the conventional cube says: |X| = 2π/a and
    // |L| = √3π/a with a = √2 × the primitive vector's length (2π/alat units: 1/√2 and √3/(2√2)).
    const { vectors, alat } = cellOf(read("pw_bands.in"));
    const volume = dot(at(vectors, 0), cross(at(vectors, 1), at(vectors, 2)));
    const reciprocal = [
      cross(at(vectors, 1), at(vectors, 2)),
      cross(at(vectors, 2), at(vectors, 0)),
      cross(at(vectors, 0), at(vectors, 1)),
    ].map((b) => b.map((x) => (x * alat) / volume));
    const length = (crystal: number[]) =>
      Math.hypot(
        ...[0, 1, 2].map((j) => crystal.reduce((sum, c, i) => sum + c * (reciprocal[i]?.[j] ?? Number.NaN), 0)),
      );
    expect(length(at(xDataArray, 10))).toBeCloseTo(1 / Math.SQRT2, 4);
    expect(length(at(xDataArray, 50))).toBeCloseTo(Math.sqrt(3) / (2 * Math.SQRT2), 4);
  });

  it("gives the eigenvalues bands.x wrote for the same k-points, and the SCF's printed ones at Γ", () => {
    // At 101 k-points pw.x prints no bands at the template's low verbosity; bands.x's file has them all.
    expect(read("pw_bands.out")).toContain("set verbosity='high' to print the bands");
    const { vectors, alat } = cellOf(read("pw_bands.in"));
    const dat = bandsDat(read("bands.dat"));
    const { xDataArray, yDataSeries } = bands();
    expect(dat.length).toBe(xDataArray.length);
    let worst = 0;
    for (const [i, point] of dat.entries()) {
      const crystal = vectors.map((a) => dot(point.k, a) / alat);
      for (const [j, c] of crystal.entries())
        expect(Math.abs(c - (at(xDataArray, i)[j] ?? Number.NaN))).toBeLessThan(1e-5);
      for (const [b, e] of point.energies.entries()) worst = Math.max(worst, Math.abs(e - at(at(yDataSeries, b), i)));
    }
    // bands.dat prints three decimals.
    expect(worst).toBeLessThanOrEqual(0.0005 + 1e-9);
    const scf = printedAtGamma(read("pw_scf.out"));
    expect(scf.length).toBe(8);
    for (const [b, e] of scf.entries()) expect(Math.abs(e - at(at(yDataSeries, b), 0))).toBeLessThan(1e-3);
  });

  it("has Si's gap near the Materials Project's GGA value, and its bands at X and L where the literature has them", () => {
    const { yDataSeries } = bands();
    const valence = at(yDataSeries, 3);
    const conduction = at(yDataSeries, 4);
    const vbm = Math.max(...valence);
    const gap = Math.min(...conduction) - vbm;
    // The path's 10 steps per segment pass the conduction minimum (85% of Γ–X) at 80%: within 0.1 eV.
    expect(Math.abs(gap - MP_GGA_GAP_SI)).toBeLessThan(0.1);
    // The valence maximum is at Γ (the path passes Γ twice, at k-points 0 and 40).
    expect(vbm - at(valence, 0)).toBeLessThan(1e-3);
    // Si's DFT bands relative to the valence maximum at Γ (LDA/GGA, e.g. Hybertsen and Louie,
    // Phys. Rev. B 34, 5390 (1986)): X4v −2.9, X1c 0.7, L3'v −1.2, L1c 1.5, Γ15c 2.55 eV; a point
    // other than X or L would be off by an eV or more.
    const at_ = (band: number, k: number) => at(at(yDataSeries, band), k) - vbm;
    expect(Math.abs(at_(2, 10) - -2.85)).toBeLessThan(0.15);
    expect(Math.abs(at_(4, 10) - 0.7)).toBeLessThan(0.15);
    expect(Math.abs(at_(2, 50) - -1.2)).toBeLessThan(0.15);
    expect(Math.abs(at_(4, 50) - 1.5)).toBeLessThan(0.15);
    expect(Math.abs(at_(4, 0) - 2.55)).toBeLessThan(0.15);
  });

  it("recalculates from the parent's data along the unit's own path the bands pw.x prints, and the first job's", () => {
    expect(recalculated).toMatchObject({ status: "finished" });
    expect(recalculated.notes.join("\n")).toContain("pw_bands: k-points 21 along a path (the unit's own path)");
    const again = property(recalculated, "band_structure") as unknown as BandStructure;
    const dir = path.join(root, "recalculate");
    const printed = printedBands(readFileSync(path.join(dir, "pw_bands.out"), "utf8"));
    expect(printed.length).toBe(21);
    expect(again.xDataArray.length).toBe(21);
    const { vectors, alat } = cellOf(readFileSync(path.join(dir, "pw_bands.in"), "utf8"));
    for (const [i, point] of printed.entries()) {
      // pw.x prints k to four decimals and the bands to four.
      const crystal = vectors.map((a) => dot(point.k, a) / alat);
      for (const [j, c] of crystal.entries())
        expect(Math.abs(c - (at(again.xDataArray, i)[j] ?? Number.NaN))).toBeLessThan(3e-4);
      for (const [b, e] of point.energies.entries())
        expect(Math.abs(e - at(at(again.yDataSeries, b), i))).toBeLessThan(5e-5 + 1e-9);
    }
    // Γ, X and L of the own path are the default path's points 0, 10 and 50: the same bands.
    for (const [own, first] of [
      [0, 0],
      [10, 10],
      [20, 50],
    ] as const)
      for (const [b, series] of again.yDataSeries.entries())
        expect(Math.abs(at(series, own) - at(at(bands().yDataSeries, b), first))).toBeLessThan(1e-3);
  });

  it("ends Recalculate Bands without a parent's data in error, saying what is missing, before pw.x runs", () => {
    expect(refused).toMatchObject({
      status: "error",
      reason: expect.stringMatching(/^pw_bands recalculates the bands of a self-consistent run, and this job has none/),
    });
    expect(refused.files).toEqual([]);
  });
});

function cross(u: readonly number[], v: readonly number[]): number[] {
  const [u0 = 0, u1 = 0, u2 = 0] = u;
  const [v0 = 0, v1 = 0, v2 = 0] = v;
  return [u1 * v2 - u2 * v1, u2 * v0 - u0 * v2, u0 * v1 - u1 * v0];
}

describe("the path a bands unit's own context gives", () => {
  const si = bulkSilicon();

  it("takes coordinates and steps, or the lattice's point names, as numbers only", () => {
    const own = kpathOf(si, {
      kpath: [
        { point: "L", steps: 5 },
        { coordinates: [0, 0, 0], steps: 7 },
        { point: "X", steps: 1 },
      ],
    });
    expect(own).toMatchObject({
      fromUnit: true,
      kpath: [
        { coordinates: [0.5, 0.5, 0.5], steps: 5 },
        { coordinates: [0, 0, 0], steps: 7 },
        { coordinates: [0.5, 0, 0.5], steps: 1 },
      ],
    });
  });

  it("falls back to the default path, saying why, for text, fractions or a point the lattice lacks", () => {
    for (const [kpath, why] of [
      [
        [
          { point: "X\n/\n&SYSTEM", steps: 5 },
          { point: "L", steps: 5 },
        ],
        "its point 1 has neither",
      ],
      [
        [
          { point: "L", steps: 2.5 },
          { point: "X", steps: 5 },
        ],
        "its point 1 has no whole number of steps",
      ],
      [
        [
          { coordinates: ["0.5; x", 0, 0], steps: 5 },
          { point: "X", steps: 5 },
        ],
        "its point 1 has neither",
      ],
      [
        [
          { point: "H", steps: 5 },
          { point: "X", steps: 5 },
        ],
        "its point 1 has neither",
      ],
      [[{ point: "X", steps: 5 }], "it has 1 points"],
    ] as const) {
      const fallback = kpathOf(si, { kpath: kpath as unknown as unknown[] });
      expect(fallback).toMatchObject({
        fromUnit: false,
        note: expect.stringContaining(`the unit's own kpath is not used: ${why}`),
      });
    }
  });

  it("refuses the default path for a cell not in its type's standard setting, before anything runs", () => {
    const references = JSON.parse(
      readFileSync(path.join(__dirname, "..", "..", "data", "reference-materials.json"), "utf8"),
    ) as Record<string, any>[];
    const named = (suffix: string) =>
      defined(
        references.find((m) => String(m.name).endsWith(suffix)),
        suffix,
      );
    // WS2 (mp-224) is hexagonal with γ = 60° between a and b, not made's 120°: its K is elsewhere.
    const ws2 = named("mp-224");
    expect(ws2.lattice).toMatchObject({ type: "HEX" });
    expect(kpathOf(ws2, {})).toEqual({
      reason: expect.stringContaining("the material's cell is not the standard primitive cell of its lattice type HEX"),
    });
    // Named points are refused with it; coordinates the user gives for this cell are taken.
    expect(
      kpathOf(ws2, {
        kpath: [
          { point: "K", steps: 5 },
          { point: "M", steps: 5 },
        ],
      }),
    ).toEqual({
      reason: expect.stringContaining("the unit's own kpath is not used: its point 1 has neither"),
    });
    expect(
      kpathOf(ws2, {
        kpath: [
          { coordinates: [0, 0, 0], steps: 5 },
          { coordinates: [0.5, 0, 0], steps: 5 },
        ],
      }),
    ).toMatchObject({ fromUnit: true });
    // Every body-centred tetragonal cell of the reference data is in another primitive setting.
    const bct = references.filter((m) => m.lattice?.type === "BCT");
    expect(bct.length).toBeGreaterThan(50);
    for (const material of bct) expect(kpathOf(material, {})).toHaveProperty("reason");
    // Standard ones keep their path: every FCC but two, every CUB and BCC.
    for (const type of ["CUB", "BCC"])
      for (const material of references.filter((m) => m.lattice?.type === type))
        expect(kpathOf(material, {}), String(material.name)).toHaveProperty("kpath");
    // And the job stops before its SCF runs.
    const check = computability(bankWorkflow("Band Structure", "espresso"), ws2);
    expect(check).toEqual({
      runnable: false,
      reason: expect.stringMatching(/^Cannot compute pw_bands: the material's cell is not the standard primitive cell/),
    });
  });

  it("refuses a lattice without a default path, naming the type", () => {
    // MCLC-5 (γ < 90°, b/c cos α + b²/a² sin² α > 1): made's points for it are not numbers.
    const mclc5 = { type: "MCLC", a: 3, b: 4, c: 5, alpha: 70, beta: 90, gamma: 80 };
    expect(kpathOf({ ...si, lattice: mclc5 }, {})).toEqual({
      reason: expect.stringContaining('no default k-point path here for the lattice type "MCLC-5"'),
    });
    expect(kpathOf({ ...si, lattice: { ...mclc5, type: "XYZ" } }, {})).toEqual({
      reason: expect.stringContaining('no default k-point path here for the lattice type "XYZ"'),
    });
  });
});
