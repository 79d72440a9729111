import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cellOf,
  fromCif,
  fromPoscar,
  fromXyz,
  fractionalToCartesian,
  structureOf,
  toCif,
  toPoscar,
  toXyz,
  type Matrix3,
  type StructureRecord,
  type Vector3,
} from "../../src";
import { makeSyntheticMaterials } from "../../src/server/records/synthetic";
import { at, zip } from "./support/checked";
import { PYTHON, pythonImports } from "../support/python";

// Every file matframe writes is read by ASE (Debian's python3-ase), a reader we did not write,
// and compared with the record; every file ASE writes is read by matframe and compared with
// what ASE itself reads from it.

const SCRIPT = join(__dirname, "ase_io.py");
const hasAse = pythonImports("ase");
if (!hasAse && process.env.MATFRAME_REQUIRE_JUPYTER === "1")
  throw new Error("python3-ase is missing: apt-get install python3-ase");

interface AseAtoms {
  cell: Matrix3;
  positions: Vector3[];
  scaled: Vector3[];
  symbols: string[];
  /** a, b, c (Å), alpha, beta, gamma (degrees) */
  cellpar: [number, number, number, number, number, number];
}

function aseRead(format: string, files: string[]): AseAtoms[] {
  return JSON.parse(
    execFileSync(PYTHON, [SCRIPT, "read", format, ...files], { encoding: "utf8", maxBuffer: 64 << 20 }),
  );
}

const bundled = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as (StructureRecord & {
  _id: string;
})[];
const synthetic = makeSyntheticMaterials(40, bundled as never) as unknown as (StructureRecord & { _id: string })[];
const records = [...bundled, ...synthetic];

function expectClose(actual: number[][], expected: number[][], tolerance: number, what: string) {
  expect(actual.length, what).toBe(expected.length);
  actual.forEach((row, i) => {
    const wanted = at(expected, i, `the rows expected of ${what}`);
    row.forEach((x, k) => {
      const y = at(wanted, k, `row ${i} expected of ${what}`);
      expect(Math.abs(x - y), `${what} [${i}][${k}]: ${x} vs ${y}`).toBeLessThan(tolerance);
    });
  });
}

describe.runIf(hasAse)("files matframe writes, read by ASE", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "matframe-ase-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [format, aseFormat, write] of [
    ["poscar", "vasp", toPoscar],
    ["cif", "cif", toCif],
    ["xyz", "extxyz", toXyz],
  ] as const) {
    it(`${format}: cell, cartesian positions and species order of all ${bundled.length} bundled and ${synthetic.length} synthetic materials within 1e-6 Å`, () => {
      const files = records.map((r, i) => {
        const file = join(dir, `${i}.${format}`);
        writeFileSync(file, write(r));
        return file;
      });
      const read = aseRead(aseFormat, files);
      for (const [record, theirs] of zip(records, read, "the structures ASE read")) {
        const { cell, sites } = structureOf(record);
        expectClose(theirs.cell, cell, 1e-6, `${record._id} cell`);
        expectClose(
          theirs.positions,
          sites.map((s) => s.cartesian),
          1e-6,
          `${record._id} positions`,
        );
        expect(theirs.symbols).toEqual(record.basis.elements.map((e) => e.value));
      }
    });
  }

  it("xyz frames concatenate into one multi-frame file ASE reads frame by frame", () => {
    const file = join(dir, "all.xyz");
    writeFileSync(file, bundled.map((r) => toXyz(r)).join(""));
    const frames = JSON.parse(
      execFileSync(PYTHON, [SCRIPT, "frames", file], { encoding: "utf8", maxBuffer: 64 << 20 }),
    ) as AseAtoms[];
    expect(frames).toHaveLength(bundled.length);
    expect(frames.map((f) => f.symbols.length)).toEqual(bundled.map((r) => r.basis.elements.length));
  });

  it("the bundled lattices carry vectors that agree with their parameters", () => {
    for (const record of bundled) {
      expect(record.lattice.vectors, record._id).toBeDefined();
      const [a, b, c] = cellOf(record).map((v) => Math.hypot(...v));
      expect(a).toBeCloseTo(record.lattice.a, 5);
      expect(b).toBeCloseTo(record.lattice.b, 5);
      expect(c).toBeCloseTo(record.lattice.c, 5);
    }
  });
});

describe.runIf(hasAse)("files ASE writes, read by matframe", () => {
  const names = ["si", "mg", "mos2", "triclinic", "interleaved"] as const;
  let dir: string;
  let written: Record<(typeof names)[number], AseAtoms>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "matframe-ase-w-"));
    written = JSON.parse(execFileSync(PYTHON, [SCRIPT, "write", dir], { encoding: "utf8" }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [format, aseFormat, read] of [
    ["poscar", "vasp", fromPoscar],
    ["cif", "cif", fromCif],
    ["xyz", "extxyz", fromXyz],
  ] as const) {
    it(`${format}: cell parameters, species order and positions as ASE reads them (bulk, hcp, 2D with vacuum, triclinic, interleaved)`, () => {
      const fileOf = (name: string) => join(dir, `${name}.${format}`);
      const expected = aseRead(aseFormat, names.map(fileOf));
      for (const [name, theirs] of zip(names, expected, "the structures ASE read")) {
        const ours = read(readFileSync(fileOf(name), "utf8"));
        const l = ours.lattice;
        expectClose([[l.a, l.b, l.c, l.alpha, l.beta, l.gamma]], [theirs.cellpar], 1e-6, `${name} cell parameters`);
        expect(
          ours.basis.elements.map((e) => e.value),
          name,
        ).toEqual(theirs.symbols);
        // Positions compared in the frame of the file's own cell (CIF readers reorient it).
        const cell = [l.vectors.a, l.vectors.b, l.vectors.c] as [number[], number[], number[]];
        const ourCartesian = ours.basis.coordinates.map((c) => fractionalToCartesian(c.value, cell as never));
        const theirCartesian = theirs.scaled.map((f) => fractionalToCartesian(f, cell as never));
        expectClose(ourCartesian, theirCartesian, 1e-6, `${name} positions`);
      }
      expect(written.mos2.cellpar[2]).toBeGreaterThan(20); // the vacuum survived the trip
    });
  }

  it("a CIF with symmetry operations (wurtzite ZnO, P6_3mc) gives the atoms ASE gives", () => {
    const file = join(dir, "zno.cif");
    writeFileSync(file, WURTZITE_CIF);
    const theirs = at(aseRead("cif", [file]), 0, "the structures ASE read");
    const ours = fromCif(WURTZITE_CIF);
    expect(ours.basis.elements.map((e) => e.value).sort()).toEqual([...theirs.symbols].sort());
    const key = (element: string, f: number[]) =>
      `${element} ${f.map((x) => (((x % 1) + 1) % 1).toFixed(4)).join(" ")}`;
    const ourKeys = zip(ours.basis.elements, ours.basis.coordinates, "our coordinates")
      .map(([e, c]) => key(e.value, c.value))
      .sort();
    const theirKeys = zip(theirs.symbols, theirs.scaled, "ASE's positions")
      .map(([symbol, f]) => key(symbol, f))
      .sort();
    expect(ourKeys).toEqual(theirKeys);
  });
});

const WURTZITE_CIF = `data_ZnO
_cell_length_a 3.2495(1)
_cell_length_b 3.2495
_cell_length_c 5.2069
_cell_angle_alpha 90
_cell_angle_beta 90
_cell_angle_gamma 120
_symmetry_space_group_name_H-M 'P 63 m c'
loop_
_symmetry_equiv_pos_as_xyz
'x, y, z'
'-y, x-y, z'
'-x+y, -x, z'
'-x, -y, z+1/2'
'y, -x+y, z+1/2'
'x-y, x, z+1/2'
'-y, -x, z'
'-x+y, y, z'
'x, x-y, z'
'y, x, z+1/2'
'x-y, -y, z+1/2'
'-x, -x+y, z+1/2'
loop_
_atom_site_label
_atom_site_type_symbol
_atom_site_fract_x
_atom_site_fract_y
_atom_site_fract_z
_atom_site_occupancy
Zn1 Zn 0.33333 0.66667 0.0 1.0
O1 O 0.33333 0.66667 0.3821 1.0
`;
