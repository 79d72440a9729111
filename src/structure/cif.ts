import { StructureError } from "../errors";
import { parametersToVectors, vectorsToParameters, wrapFractional, type Matrix3, type Vector3 } from "./cell";
import { num } from "./format";
import { MAX_ATOMS, structureOf, toPlatform, type PlatformStructure, type StructureRecord } from "./structure";

/** A CIF string value, quoted when it has to be. */
export function quote(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  if (!clean.includes("'")) return `'${clean}'`;
  if (!clean.includes('"')) return `"${clean}"`;
  return `'${clean.replace(/'/g, "`")}'`;
}

/** `Zn2 O2`: the cell's content, in order of first appearance. */
function formulaSum(elements: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const e of elements) counts.set(e, (counts.get(e) ?? 0) + 1);
  return [...counts].map(([e, n]) => (n === 1 ? e : `${e}${n}`)).join(" ");
}

/** A CIF's data block line and the lines that name the material and give its cell (of `cell`, holding `sites`). */
export function cifHeader(record: StructureRecord, cell: Matrix3, sites: readonly { element: string }[]): string[] {
  const p = vectorsToParameters(cell);
  const block = (record._id ?? record.formula ?? "structure").replace(/[^A-Za-z0-9_.-]/g, "_");
  return [
    `data_${block}`,
    `_chemical_name_common ${quote(record.name ?? record.formula ?? block)}`,
    ...(record.formula ? [`_chemical_formula_structural ${quote(record.formula)}`] : []),
    `_chemical_formula_sum ${quote(formulaSum(sites.map((s) => s.element)))}`,
    ...(record._id ? [`_database_code_matframe ${quote(record._id)}`] : []),
    `_cell_length_a ${num(p.a, 0)}`,
    `_cell_length_b ${num(p.b, 0)}`,
    `_cell_length_c ${num(p.c, 0)}`,
    `_cell_angle_alpha ${num(p.alpha, 0)}`,
    `_cell_angle_beta ${num(p.beta, 0)}`,
    `_cell_angle_gamma ${num(p.gamma, 0)}`,
  ];
}

/**
 * A material as a CIF in space group P 1: the cell parameters (from the cell vectors, so they agree
 * with them), one `_atom_site_` row per atom of the basis in its order with fractional
 * coordinates, the record's name, formula and id. Readers orient the cell with a along x and b
 * in the xy plane, as matframe's vectors are.
 */
export function toCif(record: StructureRecord): string {
  const { cell, sites } = structureOf(record);
  const label = new Map<string, number>();
  const lines = [
    `# written by matframe`,
    ...cifHeader(record, cell, sites),
    `_symmetry_space_group_name_H-M 'P 1'`,
    `_symmetry_Int_Tables_number 1`,
    "loop_",
    "_symmetry_equiv_pos_as_xyz",
    "  'x, y, z'",
    "loop_",
    "_atom_site_label",
    "_atom_site_type_symbol",
    "_atom_site_fract_x",
    "_atom_site_fract_y",
    "_atom_site_fract_z",
    "_atom_site_occupancy",
    ...sites.map((s) => {
      const n = (label.get(s.element) ?? 0) + 1;
      label.set(s.element, n);
      return `  ${`${s.element}${n}`.padEnd(6)} ${s.element.padEnd(3)}${s.fractional.map((x) => num(x)).join("")}  1`;
    }),
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * CIF tokens: bare words, quoted strings (quotes removed), `;` text fields; comments dropped. A
 * scanner, not a regular expression: V8's regex engine recurses per character of a quoted
 * string, and a 10 MB name overflowed the stack. Linear in the text.
 */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith(";")) {
      const field = [line.slice(1)];
      while (++i < lines.length && !lines[i]!.startsWith(";")) field.push(lines[i]!);
      tokens.push(field.join("\n").trim());
      continue;
    }
    scanLine(line, tokens);
  }
  return tokens;
}

const SPACE = /\s/;

function scanLine(line: string, tokens: string[]): void {
  let at = 0;
  while (at < line.length) {
    while (at < line.length && SPACE.test(line.charAt(at))) at++;
    if (at >= line.length || line[at] === "#") return;
    const quote = line[at];
    if (quote === "'" || quote === '"') {
      // A quote closes a string only when whitespace (or the line's end) follows it.
      let end = line.indexOf(quote, at + 1);
      while (end !== -1 && end + 1 < line.length && !SPACE.test(line.charAt(end + 1)))
        end = line.indexOf(quote, end + 1);
      if (end !== -1) {
        tokens.push(line.slice(at + 1, end));
        at = end + 1;
        continue;
      }
    }
    let end = at;
    while (end < line.length && !SPACE.test(line.charAt(end))) end++;
    tokens.push(line.slice(at, end));
    at = end;
  }
}

interface CifBlock {
  tags: Map<string, string>;
  loops: Map<string, string[]>[];
}

/** The first data block: its single tags and its loops (each loop: tag -> column). */
function parseBlock(text: string): CifBlock {
  const tokens = tokenize(text);
  const start = tokens.findIndex((t) => /^data_/i.test(t));
  if (start < 0) throw new StructureError("The CIF has no data_ block.");
  const tags = new Map<string, string>();
  const loops: Map<string, string[]>[] = [];
  let i = start + 1;
  // The token at i, or "" past the last one (which no test below matches).
  const token = (at: number): string => tokens[at] ?? "";
  while (i < tokens.length && !/^data_/i.test(token(i))) {
    const t = token(i);
    if (/^loop_$/i.test(t)) {
      const names: string[] = [];
      i++;
      while (i < tokens.length && token(i).startsWith("_")) names.push(token(i++).toLowerCase());
      const columns = names.map((): string[] => []);
      let k = 0;
      while (i < tokens.length && !token(i).startsWith("_") && !/^(loop_|data_)/i.test(token(i))) {
        columns[k % names.length]?.push(token(i++));
        k++;
      }
      const loop = new Map<string, string[]>(names.map((n, c) => [n, columns[c] ?? []]));
      if (names.length && k % names.length !== 0)
        throw new StructureError(
          `A CIF loop (${names[0]}, ...) has ${k} values, not a multiple of its ${names.length} columns.`,
        );
      loops.push(loop);
    } else if (t.startsWith("_")) {
      tags.set(t.toLowerCase(), tokens[i + 1] ?? "");
      i += 2;
    } else {
      i++;
    }
  }
  return { tags, loops };
}

/** A CIF number, without its standard uncertainty: `5.431(2)` -> 5.431. */
function cifNumber(value: string | undefined, what: string): number {
  const n = Number((value ?? "").replace(/\(\d+\)$/, ""));
  if (value === undefined || !Number.isFinite(n))
    throw new StructureError(
      `The CIF's ${what} is ${value === undefined ? "missing" : `not a number (${JSON.stringify(value)})`}.`,
    );
  return n;
}

/** One symmetry operation, `"-x+1/2, y, z"`, as a function of fractional coordinates. */
export function parseSymmetryOperation(op: string): (f: Vector3) => Vector3 {
  const parts = op.toLowerCase().replace(/\s+/g, "").split(",");
  if (parts.length !== 3)
    throw new StructureError(`The CIF symmetry operation ${JSON.stringify(op)} does not have three parts.`);
  const rows = parts.map((part) => {
    const row = { x: 0, y: 0, z: 0, t: 0 };
    const terms = part.match(/[+-]?[^+-]+/g);
    if (!terms) throw new StructureError(`The CIF symmetry operation ${JSON.stringify(op)} has an empty part.`);
    for (const term of terms) {
      const m = /^([+-]?)(\d+(?:\.\d*)?(?:\/\d+)?)?\*?([xyz])?(?:\/(\d+))?$/.exec(term);
      if (!m || (!m[2] && !m[3]))
        throw new StructureError(
          `The CIF symmetry operation ${JSON.stringify(op)} has a term "${term}" it cannot read.`,
        );
      const sign = m[1] === "-" ? -1 : 1;
      const [num = 1, den = 1] = (m[2] ?? "1").split("/").map(Number);
      const value = (sign * num) / den / (m[4] ? Number(m[4]) : 1);
      if (m[3]) row[m[3] as "x" | "y" | "z"] += value;
      else row.t += value;
    }
    return row;
  });
  return (f) => rows.map((r) => r.x * f[0] + r.y * f[1] + r.z * f[2] + r.t) as Vector3;
}

const SYMOP_TAGS = ["_symmetry_equiv_pos_as_xyz", "_space_group_symop_operation_xyz"] as const;

/** How close (in fractional coordinates, each axis) two positions are to be one site. */
const SAME_SITE = 1e-4;

/** Whether two fractional positions are the same site of the periodic crystal. */
function samePosition(p: Vector3, q: Vector3): boolean {
  const near = (x: number, y: number) => {
    const d = Math.abs(x - y) % 1;
    return Math.min(d, 1 - d) < SAME_SITE;
  };
  return near(p[0], q[0]) && near(p[1], q[1]) && near(p[2], q[2]);
}

/** Grid cells per axis: each cell is wider than SAME_SITE, so a match is in a neighbouring cell. */
const GRID = Math.floor(1 / (2 * SAME_SITE));

/**
 * The sites placed so far, in a periodic grid over the cell: whether a new position repeats one
 * is a look at 27 neighbouring cells, not a scan of every site (which made an import of 4,000
 * atoms with 10 operations take 10 s).
 */
class SiteGrid {
  private readonly cells = new Map<string, { element: string; position: Vector3 }[]>();

  private static cellOf([x, y, z]: Vector3): Vector3 {
    const cell = (v: number) => Math.floor((((v % 1) + 1) % 1) * GRID) % GRID;
    return [cell(x), cell(y), cell(z)];
  }

  has(element: string, position: Vector3): boolean {
    const [i, j, k] = SiteGrid.cellOf(position);
    for (let di = -1; di <= 1; di++) {
      for (let dj = -1; dj <= 1; dj++) {
        for (let dk = -1; dk <= 1; dk++) {
          const key = `${(i + di + GRID) % GRID},${(j + dj + GRID) % GRID},${(k + dk + GRID) % GRID}`;
          for (const site of this.cells.get(key) ?? [])
            if (site.element === element && samePosition(site.position, position)) return true;
        }
      }
    }
    return false;
  }

  add(element: string, position: Vector3): void {
    const key = SiteGrid.cellOf(position).join(",");
    const list = this.cells.get(key);
    if (list) list.push({ element, position });
    else this.cells.set(key, [{ element, position }]);
  }
}

/**
 * A CIF's first data block as a platform-shaped `lattice` and `basis` (crystal coordinates):
 * the cell from `_cell_length_*`/`_cell_angle_*`, the atoms from `_atom_site_fract_*` (the symbol
 * from `_atom_site_type_symbol`, else the label), expanded by the symmetry operations of
 * `_symmetry_equiv_pos_as_xyz` or `_space_group_symop_operation_xyz` (positions wrapped into the
 * cell, duplicates merged). Partial occupancy and cartesian-only sites are refused with a
 * StructureError.
 */
export function fromCif(text: string): PlatformStructure & { name: string } {
  const { tags, loops } = parseBlock(text);
  const p = {
    a: cifNumber(tags.get("_cell_length_a"), "_cell_length_a"),
    b: cifNumber(tags.get("_cell_length_b"), "_cell_length_b"),
    c: cifNumber(tags.get("_cell_length_c"), "_cell_length_c"),
    alpha: cifNumber(tags.get("_cell_angle_alpha") ?? "90", "_cell_angle_alpha"),
    beta: cifNumber(tags.get("_cell_angle_beta") ?? "90", "_cell_angle_beta"),
    gamma: cifNumber(tags.get("_cell_angle_gamma") ?? "90", "_cell_angle_gamma"),
  };
  let cell: Matrix3;
  try {
    cell = parametersToVectors(p);
  } catch (error) {
    throw new StructureError(`The CIF's cell: ${(error as Error).message}`);
  }
  const atoms = loops.find((l) => l.has("_atom_site_fract_x"));
  if (!atoms) {
    const cartesian = loops.some((l) => l.has("_atom_site_cartn_x"));
    throw new StructureError(
      `The CIF has no _atom_site_fract_x/y/z loop${cartesian ? " (only cartesian _atom_site_Cartn_*, which is not supported)" : ""}.`,
    );
  }
  const symopLoop = loops.find((l) => SYMOP_TAGS.some((t) => l.has(t)));
  const symops = symopLoop
    ? SYMOP_TAGS.map((t) => symopLoop.get(t)).find(Boolean)!
    : [tags.get(SYMOP_TAGS[0]) ?? tags.get(SYMOP_TAGS[1]) ?? "x,y,z"];
  const operations = symops.map(parseSymmetryOperation);
  const labels = atoms.get("_atom_site_label");
  const symbols = atoms.get("_atom_site_type_symbol") ?? labels;
  if (!symbols)
    throw new StructureError("The CIF's atom sites have neither _atom_site_type_symbol nor _atom_site_label.");
  const occupancy = atoms.get("_atom_site_occupancy");
  const sites: { element: string; fractional: Vector3 }[] = [];
  const placedSites = new SiteGrid();
  const declared = atoms.get("_atom_site_fract_x")!.length;
  if (declared * operations.length > MAX_ATOMS * 64) {
    throw new StructureError(
      `The CIF has ${declared} atom sites and ${operations.length} symmetry operations, more than the ${MAX_ATOMS.toLocaleString("en-US")} atoms a structure may have can come from.`,
    );
  }
  atoms.get("_atom_site_fract_x")!.forEach((x, i) => {
    const symbol = symbols[i] ?? "";
    const element = /^[A-Z][a-z]?/.exec(symbol)?.[0];
    if (!element) throw new StructureError(`The CIF's atom site ${symbol} has no element symbol.`);
    const occ = occupancy?.[i];
    if (occ !== undefined && occ !== "." && occ !== "?" && Math.abs(cifNumber(occ, "occupancy") - 1) > 1e-6) {
      throw new StructureError(
        `The CIF's atom site ${labels?.[i] ?? element} has occupancy ${occ}; only fully occupied sites (1) are supported.`,
      );
    }
    const f: Vector3 = [
      cifNumber(x, "_atom_site_fract_x"),
      cifNumber(atoms.get("_atom_site_fract_y")?.[i], "_atom_site_fract_y"),
      cifNumber(atoms.get("_atom_site_fract_z")?.[i], "_atom_site_fract_z"),
    ];
    for (const op of operations) {
      const image = op(f);
      const placed = (operations.length > 1 ? image.map(wrapFractional) : image) as Vector3;
      if (placedSites.has(element, placed)) continue;
      placedSites.add(element, placed);
      sites.push({ element, fractional: placed });
      if (sites.length > MAX_ATOMS)
        throw new StructureError(
          `The CIF expands to more than ${MAX_ATOMS.toLocaleString("en-US")} atoms, the most a structure may have.`,
        );
    }
  });
  const name = tags.get("_chemical_name_common") ?? tags.get("_chemical_formula_sum") ?? "";
  return { ...toPlatform(cell, sites), name };
}
