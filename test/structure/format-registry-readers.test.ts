import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { standardCell, structureOf, type StructureRecord } from "../../src";
import { STRUCTURE_FILE_FORMATS, type StructureFormat } from "../../src/structure/formats";
import { hasPymatgen, PYTHON } from "../support/symmetry-ref";

// Every format of the registry, written by matframe and read by readers we did not write
// (ASE for all, pymatgen where it reads the format), must give back the same crystal. A format
// added to the registry fails here until it names its readers below.

/** How ASE and pymatgen name each registered format (null: pymatgen has no reader for it). */
const READERS: Record<StructureFormat, { ase: string; pymatgen: "poscar" | "cif" | null }> = {
  poscar: { ase: "vasp", pymatgen: "poscar" },
  cif: { ase: "cif", pymatgen: "cif" },
  "cif-symmetrized": { ase: "cif", pymatgen: "cif" },
  xyz: { ase: "extxyz", pymatgen: null },
};

interface ReadBack {
  ase: { atoms: number; same: boolean };
  pymatgen?: { atoms: number; same: boolean };
}

const bundled = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as (StructureRecord & {
  _id: string;
})[];
const dir = mkdtempSync(join(tmpdir(), "matframe-formats-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(hasPymatgen)("every registered structure format, read by ASE and pymatgen", () => {
  it("names the readers of every registered format", () => {
    expect(Object.keys(READERS).sort()).toEqual(STRUCTURE_FILE_FORMATS.map((f) => f.name).sort());
  });

  for (const format of STRUCTURE_FILE_FORMATS) {
    const readers = READERS[format.name];
    it(`${format.name}: the same crystal and atom count for all ${bundled.length} bundled materials`, () => {
      const items = bundled.map((record, i) => {
        const path = join(dir, `${i}-${format.name}.${format.extension}`);
        writeFileSync(path, format.write(record));
        const { cell, sites } = structureOf(record);
        const structure = { cell, scaled: sites.map((s) => s.fractional), symbols: sites.map((s) => s.element) };
        return { structure, path, ase: readers.ase, pymatgen: readers.pymatgen };
      });
      const read = JSON.parse(
        execFileSync(PYTHON, [join(__dirname, "format_readers.py"), "read"], {
          input: JSON.stringify(items),
          encoding: "utf8",
          maxBuffer: 64 << 20,
        }),
      ) as ReadBack[];
      bundled.forEach((record, i) => {
        // A format that cannot write the primitive cell writes the conventional one (cif-symmetrized).
        const written = (format.cells as readonly string[]).includes("primitive")
          ? record
          : standardCell(record, "conventional");
        const atoms = structureOf(written).sites.length;
        expect(read[i]!.ase, `${record._id} (ASE)`).toEqual({ atoms, same: true });
        if (readers.pymatgen) expect(read[i]!.pymatgen, `${record._id} (pymatgen)`).toEqual({ atoms, same: true });
      });
    });
  }
});
