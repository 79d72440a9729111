// The symmetrized CIF (as Materials Project offers it beside the P1 one): the conventional
// standard cell, the space group's operations in it and one atom per orbit (the asymmetric unit),
// which CIF readers (ASE, pymatgen) expand back into the whole cell.
import { wrapFractional, type Vector3 } from "./cell";
import { cifHeader, quote } from "./cif";
import { num } from "./format";
import { loadMoyo } from "./moyo";
import { INDEX3, mulV } from "./operations/linear";
import { structureOf, type StructureRecord } from "./structure";
import { conventionalOperations, symmetryOf, type SymmetryOperation, type SymmetryOptions } from "./symmetry";

/** `1/2`, `-1/3`: a translation as the fraction it is (denominators up to 12), else a decimal. */
function fraction(x: number): string {
  for (let den = 1; den <= 12; den++) {
    const n = Math.round(x * den);
    if (Math.abs(n / den - x) < 1e-6) return den === 1 ? String(n) : `${n}/${den}`;
  }
  return x.toFixed(6);
}

/** `-x+y, y, z+1/2`: one operation as CIF writes it. */
export function operationXyz({ rotation, translation }: SymmetryOperation): string {
  return INDEX3.map((i) => {
    let term = "";
    for (const k of INDEX3) {
      const [c, v] = [rotation[i][k], "xyz".charAt(k)];
      if (c === 0) continue;
      term += c === 1 ? (term ? `+${v}` : v) : c === -1 ? `-${v}` : `${c > 0 && term ? "+" : ""}${c}*${v}`;
    }
    const t = translation[i] - Math.floor(translation[i] + 1e-9);
    if (Math.abs(t) > 1e-9) term += `+${fraction(t)}`;
    return term || "0";
  }).join(", ");
}

function apply({ rotation, translation }: SymmetryOperation, f: Vector3): Vector3 {
  const [x, y, z] = mulV(rotation, f);
  return [x + translation[0], y + translation[1], z + translation[2]];
}

function same(p: Vector3, q: Vector3, tolerance: number): boolean {
  return INDEX3.every((k) => {
    const d = Math.abs(p[k] - q[k]) % 1;
    return Math.min(d, 1 - d) < tolerance;
  });
}

/**
 * A material as a symmetrized CIF: its conventional standard cell, the space group's symbol and
 * number (`_space_group_name_H-M_alt`, `_space_group_IT_number`, and the older
 * `_symmetry_space_group_name_H-M`, `_symmetry_Int_Tables_number`), the operations
 * (`_space_group_symop_operation_xyz`) and one atom site per orbit, with its Wyckoff letter and
 * multiplicity. Throws a StructureError when the structure has no space group.
 * @example toSymmetrizedCif(silicon) // ... _space_group_IT_number 227 ... one Si site
 */
export function toSymmetrizedCif(record: StructureRecord, options: SymmetryOptions = {}): string {
  const symmetry = symmetryOf(record, options);
  const { cell, sites } = structureOf(symmetry.conventional);
  const operations = conventionalOperations(symmetry);
  const conventional = symmetryOf(symmetry.conventional, options);
  // One site per orbit: the first site not yet reached by an operation from an earlier one.
  const reached = new Array<boolean>(sites.length).fill(false);
  const unique: { element: string; fractional: Vector3; multiplicity: number; wyckoff: string }[] = [];
  const tolerance = 1e-4;
  sites.forEach((site, i) => {
    if (reached[i]) return;
    let multiplicity = 0;
    for (const [j, other] of sites.entries()) {
      if (other.element !== site.element) continue;
      if (operations.some((op) => same(apply(op, site.fractional), other.fractional, tolerance))) {
        if (!reached[j]) multiplicity++;
        reached[j] = true;
      }
    }
    unique.push({
      element: site.element,
      fractional: site.fractional.map(wrapFractional) as Vector3,
      multiplicity,
      // The same cell's sites, in the same order ("?" is CIF's unknown value).
      wyckoff: conventional.sites[i]?.wyckoff ?? "?",
    });
  });
  // The short symbol with the spaces CIF readers split it by: `P 6_3 m c`.
  const hm = loadMoyo().hall_symbol_entry(symmetry.hallNumber).hm_short;
  const label = new Map<string, number>();
  const lines = [
    `# written by matframe (symmetrized: conventional standard cell, symprec ${symmetry.symprec} Å)`,
    ...cifHeader(record, cell, sites),
    `_space_group_name_H-M_alt ${quote(hm)}`,
    `_space_group_IT_number ${symmetry.spaceGroupNumber}`,
    `_symmetry_space_group_name_H-M ${quote(hm)}`,
    `_symmetry_Int_Tables_number ${symmetry.spaceGroupNumber}`,
    `_space_group_crystal_system ${symmetry.crystalSystem}`,
    "loop_",
    "_space_group_symop_id",
    "_space_group_symop_operation_xyz",
    ...operations.map((op, i) => `  ${i + 1} '${operationXyz(op)}'`),
    "loop_",
    "_atom_site_label",
    "_atom_site_type_symbol",
    "_atom_site_symmetry_multiplicity",
    "_atom_site_Wyckoff_symbol",
    "_atom_site_fract_x",
    "_atom_site_fract_y",
    "_atom_site_fract_z",
    "_atom_site_occupancy",
    ...unique.map((s) => {
      const n = (label.get(s.element) ?? 0) + 1;
      label.set(s.element, n);
      return `  ${`${s.element}${n}`.padEnd(6)} ${s.element.padEnd(3)} ${String(s.multiplicity).padStart(3)} ${s.wyckoff} ${s.fractional.map((x) => num(x)).join("")}  1`;
    }),
  ];
  return `${lines.join("\n")}\n`;
}
