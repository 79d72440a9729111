import { fractionalToCartesian, vectorsToParameters, type Matrix3, type Vector3 } from "../../structure/cell";
import type { StructureRecord } from "../../structure/structure";
import { cellToDraw } from "./conventional-cell";
import { elementStyle } from "./element-style";
import { escapeHtml } from "../tables/escape-html";
import { Picture } from "./picture";
import { inNotebook } from "../kernel/kernel";
import { ValidationError } from "../../errors";

/** Options of {@link structureView}. */
export interface StructureViewOptions {
  /**
   * The cell drawn: for a centred lattice (FCC, BCC, base-centred, rhombohedral), the conventional
   * standard cell of the material's space group (spglib's and pymatgen's, found from the structure,
   * not from `lattice.type`), or the record's own (primitive) cell.
   * @default "conventional"
   */
  cell?: "conventional" | "primitive";
  /**
   * The direction the picture looks along, as a lattice direction [u, v, w] of the drawn cell
   * (the vector u·a + v·b + w·c points at the viewer), e.g. [0, 0, 1] looks down the c axis.
   * @default an oblique view from the front, a little to the right and above
   */
  view?: [number, number, number];
  /**
   * Draw bonds between atoms closer than the sum of their covalent radii plus {@link bondTolerance}.
   * @default true
   */
  bonds?: boolean;
  /**
   * Allowance on top of the two covalent radii for a bond, as a fraction of their sum.
   * @default 0.15
   */
  bondTolerance?: number;
  /**
   * Width of the picture in pixels (the drawing is square, the legend beside it).
   * @default 420
   */
  width?: number;
  /**
   * Title above the picture.
   * @default the record's formula and the cell drawn, e.g. "Si: conventional cubic cell"
   */
  title?: string;
}

/** An atom as drawn: its element and cartesian position in Å. */
interface DrawnAtom {
  element: string;
  position: Vector3;
}

// Oblique default: mostly along a, then b and c a little, so that three faces of a box show.
const DEFAULT_VIEW_CARTESIAN: Vector3 = [1, 0.42, 0.28];
const LEGEND_WIDTH = 120;
const TITLE_HEIGHT = 44;
/** Drawn atom radius as a fraction of the covalent radius: small enough that bonds show. */
const ATOM_SCALE = 0.42;
/** Fractional coordinates this close to 0 put an atom on a face, edge or corner of the cell. */
const ON_FACE = 1e-4;

/**
 * A picture of a crystal structure (SVG drawn in Node, no network). Displayed like a chart: a PNG
 * with a text fallback in notebooks, `svg` to save.
 */
export class StructureView extends Picture {
  constructor(
    /** The SVG document, starting with `<svg`. */
    readonly svg: string,
    /** The cell drawn: "conventional cubic" (or tetragonal, orthorhombic), "primitive" or "unit". */
    readonly cellKind: string,
    /** The drawn cell's lattice parameters (Å, degrees). */
    readonly parameters: { a: number; b: number; c: number; alpha: number; beta: number; gamma: number },
    /** Atoms drawn, counting the copies on the cell's faces, edges and corners. */
    readonly atoms: number,
    /** Bonds drawn. */
    readonly bonds: number,
    /** Element symbols, in legend order. */
    readonly elements: string[],
  ) {
    super();
  }

  summary(): string {
    const { a, b, c } = this.parameters;
    const lengths = [a, b, c].map((x) => x.toFixed(3)).join(" × ");
    return `[structure view: ${this.elements.join(", ")}, ${this.cellKind} cell ${lengths} Å, ${this.atoms} atoms, ${this.bonds} bonds]`;
  }
}

/**
 * Draws the unit cell of a material record (its `lattice` and `basis`): the cell's edges, atoms in
 * Jmol's element colours sized by covalent radius (Cordero et al. 2008), atoms on faces, edges and
 * corners repeated on the opposite side, bonds by covalent radii, and a legend. For a centred lattice
 * (FCC, BCC, ...) it draws the conventional standard cell of the space group found from the
 * structure: silicon's cube of 5.43 Å rather than its 3.87 Å primitive rhombohedron. Displays it in a notebook and returns it.
 *
 * @throws StructureError when the record has no usable lattice or basis.
 * @example
 * const [si] = await client.materials.list({ query: { formula: "Si", "lattice.type": "FCC" } });
 * structureView(si, { view: [1, 0, 0] });
 */
export function structureView(material: StructureRecord, options: StructureViewOptions = {}): StructureView {
  const drawn = cellToDraw(material, options.cell ?? "conventional");
  const sites = drawn.kind.startsWith("conventional") ? originOnAtom(drawn.sites) : drawn.sites;
  const atoms = withBoundaryCopies(sites, drawn.cell);
  const bonds = options.bonds === false ? [] : findBonds(atoms, options.bondTolerance ?? 0.15);
  const elements = [...new Set(drawn.sites.map((s) => s.element))];
  const parameters = vectorsToParameters(drawn.cell);
  const title = options.title ?? `${material.formula ?? elements.join("")}: ${drawn.kind} cell`;
  const svg = drawSvg({ cell: drawn.cell, atoms, bonds, elements, parameters, title, options });
  const view = new StructureView(svg, drawn.kind, parameters, atoms.length, bonds.length, elements);
  if (inNotebook()) view.display();
  return view;
}

/**
 * The sites with the origin moved onto the first atom when no atom sits at a corner, as textbooks
 * draw a conventional cell (diamond's usual setting, origin choice 2, has none there); the crystal
 * is the same.
 */
function originOnAtom(sites: { element: string; fractional: Vector3 }[]): { element: string; fractional: Vector3 }[] {
  const atCorner = (f: Vector3) => f.every((x) => Math.abs(x) < ON_FACE);
  if (sites.some((s) => atCorner(s.fractional))) return sites;
  const first = sites[0];
  if (!first) return sites;
  const [x0, y0, z0] = first.fractional;
  const wrap = (x: number) => {
    const w = x - Math.floor(x);
    return w > 1 - ON_FACE || w < ON_FACE ? 0 : w;
  };
  return sites.map(({ element, fractional: [x, y, z] }) => ({
    element,
    fractional: [wrap(x - x0), wrap(y - y0), wrap(z - z0)],
  }));
}

/** Every site, plus its copies at 1 along each axis where it sits at 0 (faces, edges, corners). */
function withBoundaryCopies(sites: { element: string; fractional: Vector3 }[], cell: Matrix3): DrawnAtom[] {
  const atoms: DrawnAtom[] = [];
  for (const site of sites) {
    const copies = (x: number) => (Math.abs(x) < ON_FACE ? [0, 1] : [0]);
    const [x, y, z] = site.fractional;
    for (const i of copies(x))
      for (const j of copies(y))
        for (const k of copies(z)) {
          const f = [x + i, y + j, z + k];
          atoms.push({ element: site.element, position: fractionalToCartesian(f, cell) });
        }
  }
  return atoms;
}

/** Pairs of atoms closer than their covalent radii plus the tolerance (and not on top of each other). */
function findBonds(atoms: DrawnAtom[], tolerance: number): [number, number][] {
  const bonds: [number, number][] = [];
  for (const [i, a] of atoms.entries()) {
    for (const [j, b] of atoms.entries()) {
      if (j <= i) continue;
      const [p, q] = [a.position, b.position];
      const d = Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
      const limit = (elementStyle(a.element).radius + elementStyle(b.element).radius) * (1 + tolerance);
      if (d > 0.4 && d <= limit) bonds.push([i, j]);
    }
  }
  return bonds;
}

const norm = (v: Vector3) => Math.hypot(v[0], v[1], v[2]);
const unit = (v: Vector3): Vector3 => {
  const n = norm(v);
  return [v[0] / n, v[1] / n, v[2] / n];
};
const cross = (u: Vector3, v: Vector3): Vector3 => [
  u[1] * v[2] - u[2] * v[1],
  u[2] * v[0] - u[0] * v[2],
  u[0] * v[1] - u[1] * v[0],
];
const dot = (u: Vector3, v: Vector3) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];

/** An orthographic camera looking along -toward: screen x, screen y (up) and depth (toward the viewer). */
function camera(cell: Matrix3, view: StructureViewOptions["view"]) {
  let toward: Vector3;
  if (view === undefined) toward = DEFAULT_VIEW_CARTESIAN;
  else {
    if (view.length !== 3 || !view.every(Number.isFinite) || view.every((x) => x === 0)) {
      throw new ValidationError(
        "view",
        `structureView(): view must be a lattice direction [u, v, w] of three numbers, not all 0; got ${JSON.stringify(view)}`,
      );
    }
    toward = fractionalToCartesian(view, cell);
  }
  const w = unit(toward);
  // "Up" is the c axis projected on the screen, or b when looking down c.
  const cAxis = unit(cell[2]);
  const upHint = Math.abs(dot(cAxis, w)) > 0.95 ? unit(cell[1]) : cAxis;
  const u = unit(cross(upHint, w));
  const v = cross(w, u);
  return (p: Vector3) => ({ x: dot(p, u), y: -dot(p, v), depth: dot(p, w) });
}

const CORNERS = [0, 1].flatMap((i) => [0, 1].flatMap((j) => [0, 1].map((k): Vector3 => [i, j, k])));
/** The cell's edges: pairs of corners one step apart. */
const EDGES = CORNERS.flatMap((p, i) =>
  CORNERS.flatMap((q, j): [Vector3, Vector3][] =>
    j > i && Math.abs(p[0] - q[0]) + Math.abs(p[1] - q[1]) + Math.abs(p[2] - q[2]) === 1 ? [[p, q]] : [],
  ),
);

const fmt = (x: number) => Number(x.toFixed(2)).toString();

function drawSvg(input: {
  cell: Matrix3;
  atoms: DrawnAtom[];
  bonds: [number, number][];
  elements: string[];
  parameters: { a: number; b: number; c: number; alpha: number; beta: number; gamma: number };
  title: string;
  options: StructureViewOptions;
}): string {
  const { cell, atoms, bonds, elements, parameters, title, options } = input;
  const width = options.width ?? 420;
  if (!(Number.isFinite(width) && width >= 160))
    throw new ValidationError("width", `structureView(): width must be at least 160 pixels; got ${String(width)}`);
  const project = camera(cell, options.view);
  const corners = CORNERS.map((f) => project(fractionalToCartesian(f, cell)));
  const placed = atoms.map((a) => ({
    ...project(a.position),
    radius: elementStyle(a.element).radius * ATOM_SCALE,
    element: a.element,
  }));
  const xs = [...corners.map((c) => c.x), ...placed.flatMap((p) => [p.x - p.radius, p.x + p.radius])];
  const ys = [...corners.map((c) => c.y), ...placed.flatMap((p) => [p.y - p.radius, p.y + p.radius])];
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const drawing = width - LEGEND_WIDTH;
  const margin = 12;
  const scale = Math.min((drawing - 2 * margin) / (maxX - minX), (drawing - 2 * margin) / (maxY - minY));
  const height = Math.ceil(TITLE_HEIGHT + (maxY - minY) * scale + 2 * margin);
  const px = (p: { x: number; y: number }) => ({
    x: margin + (p.x - minX) * scale + (drawing - 2 * margin - (maxX - minX) * scale) / 2,
    y: TITLE_HEIGHT + margin + (p.y - minY) * scale,
  });

  const parts: string[] = [];
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  parts.push(`<text x="8" y="18" font-size="14" font-family="sans-serif" fill="#000">${escapeHtml(title)}</text>`);
  parts.push(
    `<text x="8" y="36" font-size="11" font-family="sans-serif" fill="#444">${escapeHtml(cellLine(parameters))}</text>`,
  );

  // Cell edges behind everything, then bonds and atoms from the back to the front.
  const corner = (f: Vector3) => px(project(fractionalToCartesian(f, cell)));
  const edgeLines = EDGES.map(([from, to]) => {
    const [p, q] = [corner(from), corner(to)];
    return `<line x1="${fmt(p.x)}" y1="${fmt(p.y)}" x2="${fmt(q.x)}" y2="${fmt(q.y)}"/>`;
  });
  parts.push(`<g class="cell" stroke="#333" stroke-width="1.2" fill="none">${edgeLines.join("")}</g>`);
  const items: { depth: number; svg: string }[] = [];
  for (const [i, j] of bonds) {
    const [a, b] = [placed[i], placed[j]];
    if (!a || !b) continue; // bonds are pairs of the atoms placed
    const [p, q] = [px(a), px(b)];
    const mid = { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
    // Each half in its atom's colour, as ball-and-stick models do, drawn just behind its atom,
    // which then hides the part of the stick inside the sphere.
    for (const [end, atom] of [
      [p, a],
      [q, b],
    ] as const) {
      items.push({
        depth: atom.depth - 1e-3,
        svg: `<line class="bond" x1="${fmt(end.x)}" y1="${fmt(end.y)}" x2="${fmt(mid.x)}" y2="${fmt(mid.y)}" stroke="${shade(elementStyle(atom.element).colour)}" stroke-width="${fmt(Math.max(2, 0.16 * scale))}" stroke-linecap="round"/>`,
      });
    }
  }
  for (const atom of placed) {
    const p = px(atom);
    items.push({
      depth: atom.depth,
      svg: sphere(atom.element, p.x, p.y, atom.radius * scale, ` class="atom" data-element="${atom.element}"`),
    });
  }
  items.sort((p, q) => p.depth - q.depth);
  parts.push(...items.map((item) => item.svg));
  parts.push(axesGlyph(cell, project, { x: drawing + 24, y: height - 24 }));
  parts.push(legend(elements, drawing, TITLE_HEIGHT + margin));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(title)}">${parts.join("")}</svg>\n`;
}

/** "a = b = c = 5.431 Å, α = β = γ = 90°", or each value when they differ. */
function cellLine(p: { a: number; b: number; c: number; alpha: number; beta: number; gamma: number }): string {
  const group = (names: string[], values: number[], digits: number, unit: string) => {
    const texts = values.map((v) => v.toFixed(digits));
    return texts.every((t) => t === texts[0])
      ? `${names.join(" = ")} = ${texts[0]}${unit}`
      : names.map((n, i) => `${n} = ${texts[i]}${unit}`).join(", ");
  };
  return `${group(["a", "b", "c"], [p.a, p.b, p.c], 3, " Å")}; ${group(["α", "β", "γ"], [p.alpha, p.beta, p.gamma], 1, "°")}`;
}

/** A small a, b, c axes glyph under the legend, so the viewing direction can be read. */
function axesGlyph(cell: Matrix3, project: ReturnType<typeof camera>, at: { x: number; y: number }): string {
  const origin = project([0, 0, 0]);
  const names = ["a", "b", "c"];
  const lines = cell.map((vector, i) => {
    const tip = project(unit(vector));
    const [dx, dy] = [(tip.x - origin.x) * 22, (tip.y - origin.y) * 22];
    return `<line x1="${at.x + 6}" y1="${at.y - 6}" x2="${fmt(at.x + 6 + dx)}" y2="${fmt(at.y - 6 + dy)}" stroke="#666"/><text x="${fmt(at.x + 6 + dx * 1.3)}" y="${fmt(at.y - 2 + dy * 1.3)}" font-size="10" font-family="sans-serif" fill="#444" text-anchor="middle">${names[i]}</text>`;
  });
  return `<g class="axes">${lines.join("")}</g>`;
}

/** One row per element: its colour, symbol and covalent radius. */
function legend(elements: string[], left: number, top: number): string {
  const rows = elements.map((element, i) => {
    const { radius } = elementStyle(element);
    const y = top + 14 + i * 24;
    return `${sphere(element, left + 12, y, 8, "")}<text x="${left + 26}" y="${y + 4}" font-size="12" font-family="sans-serif" fill="#000">${element}  <tspan fill="#555" font-size="10">r = ${radius.toFixed(2)} Å</tspan></text>`;
  });
  const note = `<text x="${left}" y="${top + 14 + elements.length * 24}" font-size="9" font-family="sans-serif" fill="#777">covalent radii:</text><text x="${left}" y="${top + 25 + elements.length * 24}" font-size="9" font-family="sans-serif" fill="#777">Cordero et al. 2008</text>`;
  return `<g class="legend">${rows.join("")}${note}</g>`;
}

/**
 * An atom: a disc in the element's colour with a soft highlight to the upper left. Flat fills
 * rather than a radial gradient keep the PNG small (a gradient's smooth ramps compress poorly:
 * the rock-salt picture was 3 times larger).
 */
function sphere(element: string, x: number, y: number, r: number, attributes: string): string {
  const { colour } = elementStyle(element);
  return (
    `<circle${attributes} cx="${fmt(x)}" cy="${fmt(y)}" r="${fmt(r)}" fill="${colour}" stroke="${shade(colour)}" stroke-width="1"/>` +
    `<circle cx="${fmt(x - 0.32 * r)}" cy="${fmt(y - 0.32 * r)}" r="${fmt(0.32 * r)}" fill="#fff" fill-opacity="0.55"/>`
  );
}

/** A darker shade of a "#RRGGBB" colour, for sphere rims and bonds. */
function shade(colour: string): string {
  const n = parseInt(colour.slice(1), 16);
  const channel = (shift: number) =>
    Math.round(((n >> shift) & 255) * 0.6)
      .toString(16)
      .padStart(2, "0");
  return `#${channel(16)}${channel(8)}${channel(0)}`;
}
