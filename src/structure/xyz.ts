import { StructureError } from "../errors";
import { cartesianToFractional, type Matrix3 } from "./cell";
import { num, titleOf } from "./format";
import { structureOf, toPlatform, type PlatformStructure, type StructureRecord } from "./structure";

/** An extended-XYZ value, quoted (inner quotes and backslashes escaped). */
function xyzString(text: string): string {
  return `"${text
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')}"`;
}

/**
 * A material as one extended-XYZ frame: the atom count, a comment line with `Lattice="..."` (the
 * cell vectors, Å), `Properties=species:S:1:pos:R:3`, `pbc="T T T"` and the record's name, id and
 * formula, then one line per atom with cartesian positions in Å, in the basis's order.
 * Frames concatenate into a multi-frame file.
 */
export function toXyz(record: StructureRecord): string {
  const { cell, sites } = structureOf(record);
  const info = [
    `Lattice="${cell
      .flat()
      .map((x) => num(x, 0))
      .join(" ")}"`,
    "Properties=species:S:1:pos:R:3",
    'pbc="T T T"',
    ...(record._id ? [`material_id=${xyzString(record._id)}`] : []),
    ...(record.formula ? [`formula=${xyzString(record.formula)}`] : []),
    `name=${xyzString(titleOf(record))}`,
  ];
  const lines = [
    String(sites.length),
    info.join(" "),
    ...sites.map((s) => `${s.element.padEnd(3)}${s.cartesian.map((x) => num(x)).join("")}`),
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * The first frame of an extended-XYZ text as a platform-shaped `lattice` and `basis`. It needs a
 * `Lattice="..."` (a periodic structure) and `species` and `pos` as the first two properties (as
 * ASE writes by default); other properties are ignored.
 */
export function fromXyz(text: string): PlatformStructure {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const count = Number(lines[0]?.trim());
  if (!Number.isInteger(count) || count < 1)
    throw new StructureError(
      `XYZ line 1 must be the number of atoms; got ${JSON.stringify((lines[0] ?? "").slice(0, 40))}.`,
    );
  const comment = lines[1] ?? "";
  const lattice = /Lattice\s*=\s*"([^"]*)"/i.exec(comment);
  if (!lattice)
    throw new StructureError(
      'The XYZ comment line has no Lattice="..." (a plain XYZ file describes no cell); write it as extended XYZ.',
    );
  const values = (lattice[1] ?? "").trim().split(/\s+/).map(Number);
  if (values.length !== 9 || values.some((v) => !Number.isFinite(v)))
    throw new StructureError("The XYZ Lattice must be nine numbers.");
  const cell = [values.slice(0, 3), values.slice(3, 6), values.slice(6, 9)] as Matrix3;
  const properties = /Properties\s*=\s*(\S+)/i.exec(comment)?.[1] ?? "species:S:1:pos:R:3";
  if (!/^species:S:1:pos:R:3/i.test(properties))
    throw new StructureError(`The XYZ Properties must start with species:S:1:pos:R:3; got ${properties}.`);
  const sites = Array.from({ length: count }, (_, i) => {
    const fields = (lines[2 + i] ?? "").trim().split(/\s+/);
    const position = fields.slice(1, 4).map(Number);
    if (!fields[0] || position.length < 3 || position.some((v) => !Number.isFinite(v))) {
      throw new StructureError(`XYZ line ${3 + i}: expected a species and three coordinates.`);
    }
    return { element: fields[0], fractional: cartesianToFractional(position, cell) };
  });
  return toPlatform(cell, sites);
}
