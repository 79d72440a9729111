import { StructureError } from "../errors";
import { cartesianToFractional, cellVolume, type Matrix3, type Vector3 } from "./cell";
import { num, runs, titleOf } from "./format";
import { MAX_ATOMS, structureOf, toPlatform, type PlatformStructure, type StructureRecord } from "./structure";

/**
 * A material as a VASP 5 POSCAR: title (name and id), scale 1, the cell vectors in Å, the species
 * line and counts (runs of the basis's order, so the order of atoms is kept exactly), `Direct`
 * coordinates.
 * @example writeFileSync("POSCAR", toPoscar(await client.materials.get(id)));
 */
export function toPoscar(record: StructureRecord): string {
  const { cell, sites } = structureOf(record);
  const groups = runs(sites.map((s) => s.element));
  const lines = [
    titleOf(record),
    "1.0",
    ...cell.map((v) => v.map((x) => num(x, 18)).join("")),
    groups.map(([e]) => e.padStart(5)).join(""),
    groups.map(([, n]) => String(n).padStart(5)).join(""),
    "Direct",
    ...sites.map((s) => `${s.fractional.map((x) => num(x)).join("")}   ${s.element}`),
  ];
  return `${lines.join("\n")}\n`;
}

function numbers(line: string | undefined, count: number, what: string, lineNo: number): number[] {
  const values = (line ?? "").trim().split(/\s+/).slice(0, count).map(Number);
  if (values.length < count || values.some((v) => !Number.isFinite(v))) {
    throw new StructureError(
      `POSCAR line ${lineNo}: expected ${count} numbers (${what}); got ${JSON.stringify((line ?? "").trim().slice(0, 80))}.`,
    );
  }
  return values;
}

/** Three numbers from a line, as {@link numbers} reads them. */
function three(line: string | undefined, what: string, lineNo: number): Vector3 {
  const [x, y, z] = numbers(line, 3, what, lineNo);
  return [x!, y!, z!]; // numbers() has checked there are three
}

/**
 * A POSCAR/CONTCAR (VASP 5, with the species line) as a platform-shaped `lattice` and `basis`
 * (crystal coordinates). A negative scale is read as the cell volume, as VASP does; `Selective
 * dynamics` flags are dropped. VASP 4 files (no species line) are refused: they do not say
 * which element is which.
 */
export function fromPoscar(text: string): PlatformStructure & { name: string } {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const name = (lines[0] ?? "").trim();
  let scale = numbers(lines[1], 1, "the scale factor", 2)[0]!; // numbers() has checked there is one
  let cell: Matrix3 = [
    three(lines[2], "a cell vector", 3),
    three(lines[3], "a cell vector", 4),
    three(lines[4], "a cell vector", 5),
  ];
  if (scale < 0) {
    scale = Math.cbrt(-scale / Math.abs(cellVolume(cell)));
  }
  if (!(Number.isFinite(scale) && scale > 0))
    throw new StructureError(
      "POSCAR line 2: the scale factor (or the volume it gives) makes no cell: the cell vectors may be flat.",
    );
  cell = cell.map((v) => v.map((x) => x * scale)) as Matrix3;
  const speciesLine = (lines[5] ?? "").trim();
  if (/^[\d\s]+$/.test(speciesLine)) {
    throw new StructureError(
      "POSCAR line 6 has counts but no species line before them (a VASP 4 file): add a line with the element symbols, as VASP 5 writes.",
    );
  }
  const species = speciesLine.split(/\s+/).map((s) => s.replace(/[_/].*$/, ""));
  const counts = numbers(lines[6], species.length, "one count per species", 7);
  if (counts.some((n) => !Number.isInteger(n) || n < 0))
    throw new StructureError("POSCAR line 7: counts must be whole numbers.");
  // Checked before any array of that size is made: the counts are the file's word, not its content.
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total > MAX_ATOMS)
    throw new StructureError(
      `POSCAR line 7 declares ${total.toLocaleString("en-US")} atoms; a structure may have at most ${MAX_ATOMS.toLocaleString("en-US")}.`,
    );
  if (total === 0) throw new StructureError("POSCAR line 7 declares no atoms.");
  let at = 7;
  if (/^s/i.test((lines[at] ?? "").trim())) at += 1; // Selective dynamics
  const mode = (lines[at] ?? "").trim();
  const cartesian = /^[ck]/i.test(mode);
  if (!cartesian && !/^d/i.test(mode))
    throw new StructureError(
      `POSCAR line ${at + 1}: expected "Direct" or "Cartesian"; got ${JSON.stringify(mode.slice(0, 40))}.`,
    );
  const available = lines.slice(at + 1).filter((line) => line.trim() !== "").length;
  if (available < total)
    throw new StructureError(
      `POSCAR line 7 declares ${total.toLocaleString("en-US")} atoms, but the file has ${available} coordinate lines after line ${at + 1}.`,
    );
  if (cartesian && !(Math.abs(cellVolume(cell)) > 1e-12))
    throw new StructureError(
      "POSCAR: the cell vectors are linearly dependent (a flat cell), so cartesian coordinates cannot be placed in it.",
    );
  const elements = species.flatMap((e, i) => Array<string>(counts[i]!).fill(e)); // one count per species, checked
  const sites = elements.map((element, i) => {
    const value = three(lines[at + 1 + i], `the coordinates of atom ${i + 1}`, at + 2 + i);
    const fractional = cartesian
      ? cartesianToFractional(
          value.map((x) => x * scale),
          cell,
        )
      : value;
    return { element, fractional };
  });
  return { ...toPlatform(cell, sites), name };
}
