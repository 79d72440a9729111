import { StructureError } from "../errors";

/**
 * Standard atomic weights in g/mol: IUPAC/CIAAW 2021, abridged to five significant figures (for
 * elements given as an interval, the conventional value). scripts/build-dataset.js computes the
 * bundled materials' formulas and densities with this module too. Elements without a stable
 * isotope (Tc, Pm, Po to Ac, Np and beyond) have no standard atomic weight and are left out on
 * purpose: a density from one isotope's mass number would be a guess presented as a fact.
 */
export const ATOMIC_WEIGHTS: Readonly<Record<string, number>> = Object.freeze({
  H: 1.008,
  He: 4.0026,
  Li: 6.94,
  Be: 9.0122,
  B: 10.81,
  C: 12.011,
  N: 14.007,
  O: 15.999,
  F: 18.998,
  Ne: 20.18,
  Na: 22.99,
  Mg: 24.305,
  Al: 26.982,
  Si: 28.085,
  P: 30.974,
  S: 32.06,
  Cl: 35.45,
  Ar: 39.95,
  K: 39.098,
  Ca: 40.078,
  Sc: 44.956,
  Ti: 47.867,
  V: 50.942,
  Cr: 51.996,
  Mn: 54.938,
  Fe: 55.845,
  Co: 58.933,
  Ni: 58.693,
  Cu: 63.546,
  Zn: 65.38,
  Ga: 69.723,
  Ge: 72.63,
  As: 74.922,
  Se: 78.971,
  Br: 79.904,
  Kr: 83.798,
  Rb: 85.468,
  Sr: 87.62,
  Y: 88.906,
  Zr: 91.224,
  Nb: 92.906,
  Mo: 95.95,
  Ru: 101.07,
  Rh: 102.91,
  Pd: 106.42,
  Ag: 107.87,
  Cd: 112.41,
  In: 114.82,
  Sn: 118.71,
  Sb: 121.76,
  Te: 127.6,
  I: 126.9,
  Xe: 131.29,
  Cs: 132.91,
  Ba: 137.33,
  La: 138.91,
  Ce: 140.12,
  Pr: 140.91,
  Nd: 144.24,
  Sm: 150.36,
  Eu: 151.96,
  Gd: 157.25,
  Tb: 158.93,
  Dy: 162.5,
  Ho: 164.93,
  Er: 167.26,
  Tm: 168.93,
  Yb: 173.05,
  Lu: 174.97,
  Hf: 178.49,
  Ta: 180.95,
  W: 183.84,
  Re: 186.21,
  Os: 190.23,
  Ir: 192.22,
  Pt: 195.08,
  Au: 196.97,
  Hg: 200.59,
  Tl: 204.38,
  Pb: 207.2,
  Bi: 208.98,
  Th: 232.04,
  Pa: 231.04,
  U: 238.03,
});

/**
 * Pauling electronegativities, used only to order the elements of a formula: least
 * electronegative first, as pymatgen (and so Materials Project) writes formulas (`GaAs`,
 * `Al2O3`). Ties keep alphabetical order.
 */
export const ELECTRONEGATIVITY: Readonly<Record<string, number>> = Object.freeze({
  H: 2.2,
  Li: 0.98,
  Be: 1.57,
  B: 2.04,
  C: 2.55,
  N: 3.04,
  O: 3.44,
  F: 3.98,
  Na: 0.93,
  Mg: 1.31,
  Al: 1.61,
  Si: 1.9,
  P: 2.19,
  S: 2.58,
  Cl: 3.16,
  K: 0.82,
  Ca: 1.0,
  Sc: 1.36,
  Ti: 1.54,
  V: 1.63,
  Cr: 1.66,
  Mn: 1.55,
  Fe: 1.83,
  Co: 1.88,
  Ni: 1.91,
  Cu: 1.9,
  Zn: 1.65,
  Ga: 1.81,
  Ge: 2.01,
  As: 2.18,
  Se: 2.55,
  Br: 2.96,
  Rb: 0.82,
  Sr: 0.95,
  Y: 1.22,
  Zr: 1.33,
  Nb: 1.6,
  Mo: 2.16,
  Ru: 2.2,
  Rh: 2.28,
  Pd: 2.2,
  Ag: 1.93,
  Cd: 1.69,
  In: 1.78,
  Sn: 1.96,
  Sb: 2.05,
  Te: 2.1,
  I: 2.66,
  Cs: 0.79,
  Ba: 0.89,
  La: 1.1,
  Hf: 1.3,
  Ta: 1.5,
  W: 2.36,
  Re: 1.9,
  Os: 2.2,
  Ir: 2.2,
  Pt: 2.28,
  Au: 2.54,
  Hg: 2.0,
  Tl: 1.62,
  Pb: 2.33,
  Bi: 2.02,
});

/** Avogadro's number times 1e-24 (Å³ to cm³): g/mol per Å³ to g/cm³. */
const AMU_PER_A3_TO_G_PER_CM3 = 1 / 0.602214076;

/** What a record's composition gives, as the bundled materials carry it. */
export interface Composition {
  /** Reduced formula, e.g. `Si` or `Al2O3`. */
  formula: string;
  /** Formula of the cell as given, e.g. `Si2`. */
  unitCellFormula: string;
  /** Mass of the cell's atoms in g/mol. */
  mass: number;
}

/** What each table leaves out, said when an element is not in it. */
const TABLE_LIMITS = new Map<Readonly<Record<string, number>>, string>([
  [
    ATOMIC_WEIGHTS,
    "every element with a standard atomic weight; those without a stable isotope (Tc, Pm, Po to Ac, Np and beyond) have none",
  ],
  [ELECTRONEGATIVITY, "H to Bi, without most lanthanides and noble gases"],
]);

function tableEntry(table: Readonly<Record<string, number>>, what: string, element: string): number {
  const value = Object.hasOwn(table, element) ? table[element] : undefined;
  if (value === undefined) {
    throw new StructureError(
      `No ${what} is known for the element "${element}"; matframe knows ${Object.keys(table).length} elements (${TABLE_LIMITS.get(table)}).`,
    );
  }
  return value;
}

/** Whether `element` has a standard atomic weight here (see {@link ATOMIC_WEIGHTS}). */
export function hasAtomicWeight(element: string): boolean {
  return Object.hasOwn(ATOMIC_WEIGHTS, element);
}

/** Mass of the atoms `elements` (one symbol per site) in g/mol; a StructureError for an element without an atomic weight. */
export function cellMass(elements: readonly string[]): number {
  return elements.reduce((sum, element) => sum + tableEntry(ATOMIC_WEIGHTS, "atomic weight", element), 0);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * pymatgen writes these reduced formulas whole rather than reduced to `LiO` or `O`: peroxides and
 * the diatomic elements (`Composition.special_formulas` in pymatgen/core/composition.py).
 */
const SPECIAL_FORMULAS: Readonly<Record<string, string>> = Object.freeze({
  LiO: "Li2O2",
  NaO: "Na2O2",
  KO: "K2O2",
  HO: "H2O2",
  CsO: "Cs2O2",
  RbO: "Rb2O2",
  O: "O2",
  N: "N2",
  F: "F2",
  Cl: "Cl2",
  H: "H2",
});

/**
 * pymatgen groups the two most electronegative elements of a formula of three or more as a
 * polyanion, `Ba(NO3)2`, when their electronegativities differ by less than this and the group
 * reduces by a factor other than 1 (`reduce_formula` in pymatgen/core/composition.py).
 */
const POLYANION_ELECTRONEGATIVITY_GAP = 1.65;

function byElectronegativity(x: string, y: string): number {
  const dx = tableEntry(ELECTRONEGATIVITY, "electronegativity", x);
  const dy = tableEntry(ELECTRONEGATIVITY, "electronegativity", y);
  return dx - dy || (x < y ? -1 : x > y ? 1 : 0);
}

function written(symbols: readonly string[], counts: ReadonlyMap<string, number>, by: number): string {
  return symbols.map((e) => (counts.get(e)! / by === 1 ? e : `${e}${counts.get(e)! / by}`)).join("");
}

/**
 * The reduced formula as pymatgen's `Composition.reduced_formula` writes it, so that a formula
 * here equals the one Materials Project shows: elements by electronegativity, divided by their
 * greatest common divisor, a polyanion in brackets (`Ni(AsO3)2`), peroxides and diatomic elements
 * whole (`Li2O2`, `O2`).
 */
export function reducedFormula(counts: ReadonlyMap<string, number>): string {
  const ordered = [...counts.keys()].sort(byElectronegativity);
  const divisor = [...counts.values()].reduce(gcd);
  let polyanion = "";
  if (ordered.length >= 3) {
    const [second, last] = ordered.slice(-2) as [string, string];
    const gap = ELECTRONEGATIVITY[last]! - ELECTRONEGATIVITY[second]!;
    const groupFactor = gcd(counts.get(second)! / divisor, counts.get(last)! / divisor);
    if (gap < POLYANION_ELECTRONEGATIVITY_GAP && groupFactor !== 1) {
      polyanion = `(${written([second, last], counts, divisor * groupFactor)})${groupFactor}`;
      ordered.splice(-2);
    }
  }
  const formula = written(ordered, counts, divisor) + polyanion;
  return Object.hasOwn(SPECIAL_FORMULAS, formula) ? SPECIAL_FORMULAS[formula]! : formula;
}

/** Formula, unit-cell formula and mass of the atoms `elements` (one symbol per site). */
export function compositionOf(elements: readonly string[]): Composition {
  if (elements.length === 0) throw new StructureError("The structure has no atoms.");
  const counts = new Map<string, number>();
  for (const element of elements) counts.set(element, (counts.get(element) ?? 0) + 1);
  const mass = [...counts].reduce(
    (sum, [element, n]) => sum + n * tableEntry(ATOMIC_WEIGHTS, "atomic weight", element),
    0,
  );
  const ordered = [...counts.keys()].sort(byElectronegativity);
  return { formula: reducedFormula(counts), unitCellFormula: written(ordered, counts, 1), mass };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The `volume` entry of `derivedProperties` (Å³, to 1e-6): it needs no masses. */
export function volumeProperty(volume: number): { name: "volume"; value: number; units: "angstrom^3" } {
  return { name: "volume", value: round(volume, 6), units: "angstrom^3" };
}

/** `derivedProperties` as the bundled materials carry them: volume (Å³) and density (g/cm³), to 1e-6. */
export function derivedProperties(
  mass: number,
  volume: number,
): [{ name: "volume"; value: number; units: "angstrom^3" }, { name: "density"; value: number; units: "g/cm^3" }] {
  return [
    volumeProperty(volume),
    { name: "density", value: round((mass / volume) * AMU_PER_A3_TO_G_PER_CM3, 6), units: "g/cm^3" },
  ];
}
