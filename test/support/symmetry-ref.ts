import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { structureOf, type StructureRecord } from "../../src";
import { toPlatform } from "../../src/structure/structure";
import { at } from "./checked";
import { PYTHON, pythonImports } from "./python";

// pymatgen, spglib and ASE (Debian's python3-pymatgen, python3-spglib, python3-ase) through
// test/structure/symmetry_ref.py: the references the symmetry and derived-property tests trust.

export { PYTHON };
export const REF = join(__dirname, "..", "structure", "symmetry_ref.py");
export const hasPymatgen = pythonImports("pymatgen.symmetry.analyzer, spglib, ase");
if (!hasPymatgen && process.env.MATFRAME_REQUIRE_JUPYTER === "1")
  throw new Error(
    "python3-pymatgen, python3-spglib or python3-ase is missing: apt-get install python3-pymatgen python3-spglib python3-ase",
  );

/** A structure as the Python references take it. */
export interface RefStructure {
  name?: string;
  /** The structure as ASE writes a POSCAR (the `ase` command only). */
  poscar?: string;
  cell: number[][];
  scaled: number[][];
  symbols: string[];
  symprec?: number;
  angleTolerance?: number;
}

export interface Reference {
  /** The Setyawan–Curtarolo lattice type pymatgen's KPathSetyawanCurtarolo names (the platform's `lattice.type`). */
  latticeType: string | null;
  symbol: string;
  number: number;
  crystalSystem: string;
  pointGroup: string;
  volume: number;
  /** pymatgen's len(structure). */
  nsites: number;
  density: number;
  ratios: [string, number][];
  spglib: {
    number: number;
    operations: number;
    international: string;
    pointgroup: string;
    wyckoffs: string[];
    siteSymmetries: string[];
    equivalent: number[];
    stdVolume: number;
    stdAtoms: number;
  };
  conventional: { volume: number; atoms: number; abc: number[] };
  primitive: { volume: number; atoms: number };
}

export function python(args: string[], input?: string): any {
  return JSON.parse(execFileSync(PYTHON, [REF, ...args], { input, encoding: "utf8", maxBuffer: 256 << 20 }));
}

export function refOf(record: StructureRecord): RefStructure {
  const { cell, sites } = structureOf(record);
  return { name: record.name, cell, scaled: sites.map((s) => s.fractional), symbols: sites.map((s) => s.element) };
}

export function recordOf(ref: RefStructure): StructureRecord {
  return {
    name: ref.name,
    ...toPlatform(
      ref.cell as never,
      ref.symbols.map((element, i) => ({ element, fractional: at(ref.scaled, i, "a scaled position") })),
    ),
  };
}
