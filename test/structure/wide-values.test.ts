import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromCif, fromPoscar, structureOf, toCif, toPoscar, toXyz, type StructureRecord } from "../../src";
import { at, zip } from "./support/checked";
import { PYTHON, pythonImports } from "../support/python";

// Wide numbers (a 1,000,000 Å cell is accepted by create) must stay separate fields: they once ran
// together as `0.00000000001000000.0000000000`, which no reader could split.

const SCRIPT = join(__dirname, "ase_io.py");
const hasAse = pythonImports("ase.io");
if (!hasAse && process.env.MATFRAME_REQUIRE_JUPYTER === "1")
  throw new Error("python3-ase is missing: apt-get install python3-ase");

function cubic(a: number, name: string): StructureRecord & { _id: string } {
  return {
    _id: name,
    name,
    formula: "NaCl",
    lattice: { a, b: a, c: a, alpha: 90, beta: 90, gamma: 90, vectors: { a: [a, 0, 0], b: [0, a, 0], c: [0, 0, -a] } },
    basis: {
      units: "crystal",
      elements: [
        { id: 0, value: "Na" },
        { id: 1, value: "Cl" },
      ],
      coordinates: [
        { id: 0, value: [0, 0, 0] },
        { id: 1, value: [0.5, 0.5, 0.5] },
      ],
    },
  };
}

const wide = cubic(1_000_000, "wide");
const plain = cubic(5.64, "plain");
const records = [wide, cubic(123_456_789.125, "wider"), plain];

function expectCellClose(actual: number[][], expected: number[][], what: string) {
  actual.forEach((row, i) => {
    const wanted = at(expected, i, `the rows expected of ${what}`);
    row.forEach((x, k) => {
      const y = at(wanted, k, `row ${i} expected of ${what}`);
      expect(Math.abs(x - y), `${what} [${i}][${k}]: ${x} vs ${y}`).toBeLessThan(1e-6);
    });
  });
}

describe("wide values in structure files", () => {
  it("are separated by at least one space on every POSCAR line", () => {
    const text = toPoscar(wide);
    expect(text).not.toMatch(/\d\.\d{10}\d/);
    expect(at(text.split("\n"), 2, "the POSCAR's lines").trim().split(/\s+/)).toEqual([
      "1000000.0000000000",
      "0.0000000000",
      "0.0000000000",
    ]);
  });

  it("read back by matframe from POSCAR and CIF", () => {
    for (const record of records) {
      const { cell } = structureOf(record);
      expectCellClose(structureOf({ ...record, ...fromPoscar(toPoscar(record)) }).cell, cell, `${record._id} POSCAR`);
      const cif = fromCif(toCif(record));
      expect(cif.lattice.a).toBeCloseTo(record.lattice.a, 6);
    }
  });

  it("leave narrow values byte for byte as before", () => {
    expect(at(toPoscar(plain).split("\n"), 2, "the POSCAR's lines")).toBe(
      "      5.6400000000      0.0000000000      0.0000000000",
    );
  });

  describe.runIf(hasAse)("read by ASE", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "matframe-wide-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    for (const [format, aseFormat, write] of [
      ["poscar", "vasp", toPoscar],
      ["cif", "cif", toCif],
      ["xyz", "extxyz", toXyz],
    ] as const) {
      it(`${format}: the cell and positions of a 1,000,000 Å and a 123,456,789 Å cell`, () => {
        const files = records.map((record) => {
          const file = join(dir, `${record._id}.${format}`);
          writeFileSync(file, write(record));
          return file;
        });
        const read = JSON.parse(execFileSync(PYTHON, [SCRIPT, "read", aseFormat, ...files], { encoding: "utf8" })) as {
          cell: number[][];
          positions: number[][];
        }[];
        for (const [record, back] of zip(records, read, "the structures ASE read")) {
          const { cell, sites } = structureOf(record);
          // CIF carries cell parameters, not vectors: ASE builds its own orientation from them.
          if (format !== "cif") expectCellClose(back.cell, cell, `${record._id} cell`);
          else expect(Math.abs(Math.hypot(...at(back.cell, 0, "ASE's cell")) - record.lattice.a)).toBeLessThan(1e-6);
          if (format !== "cif")
            expectCellClose(
              back.positions,
              sites.map((s) => s.cartesian),
              `${record._id} positions`,
            );
        }
      });
    }
  });
});
