// Crystal symmetry through moyo (spglib's successor, MIT/Apache-2.0), never a hand-written search.
// Symbols are spelt as pymatgen's SpacegroupAnalyzer spells them (spglib's `international`:
// `P6_3mc`, `Fd-3m`), which is moyo's short Hermann–Mauguin symbol without its spaces; the
// setting is spglib's (moyo's "Spglib" setting), so the Hall number, the standard cells and the
// Wyckoff letters are the ones spglib and pymatgen give.
import { StructureError, ValidationError } from "../errors";
import { LruCache } from "../lru-cache";
import type { Matrix3, Vector3 } from "./cell";
import { loadMoyo, rotationRows, type MoyoCell, type MoyoDataset } from "./moyo";
import { INDEX3, matrix } from "./operations/linear";
import { DEFAULT_ANGLE_TOLERANCE, DEFAULT_SYMPREC, moyoInput } from "./operations/moyo-input";
import { structureOf, toPlatform, who, type PlatformStructure, type StructureRecord } from "./structure";

export { DEFAULT_ANGLE_TOLERANCE, DEFAULT_SYMPREC, moyoInput } from "./operations/moyo-input";

/** The seven crystal systems, spelt as pymatgen's `get_crystal_system()` spells them. */
export type CrystalSystem =
  | "triclinic"
  | "monoclinic"
  | "orthorhombic"
  | "tetragonal"
  | "trigonal"
  | "hexagonal"
  | "cubic";

/** Options of a symmetry search. */
export interface SymmetryOptions {
  /**
   * Distance tolerance in Å, as spglib applies it: an operation is a symmetry when it moves every
   * atom closer than this to an atom of its species, and the lattice's vectors keep their lengths
   * within it (see docs/symmetry.md).
   * @default 0.01 (pymatgen's `SpacegroupAnalyzer` default)
   */
  symprec?: number;
  /**
   * Angle tolerance in degrees: how much the angles between the lattice's vectors may change under
   * a lattice symmetry. A negative value judges the angles as a distance against symprec instead
   * (spglib's own default, -1).
   * @default 5 (pymatgen's `SpacegroupAnalyzer` default)
   */
  angleTolerance?: number;
}

/** One site of the structure as symmetry sees it. */
export interface SymmetrySite {
  element: string;
  /** Wyckoff letter of the site in the standard setting, e.g. `"b"`. */
  wyckoff: string;
  /** Multiplicity of the Wyckoff position in the conventional cell. */
  multiplicity: number;
  /** Site-symmetry symbol, e.g. `"3m."`. */
  siteSymmetry: string;
  /** Index of the first site of the same orbit (symmetry-equivalent sites share it). */
  orbit: number;
}

/** One symmetry operation in the coordinates of a cell: `x' = rotation · x + translation`. */
export interface SymmetryOperation {
  rotation: [Vector3, Vector3, Vector3];
  translation: Vector3;
}

/** What the symmetry search finds for one structure. Shared by the cache: treat it as read-only (it is frozen). */
export interface Symmetry {
  /** International Tables number, 1 to 230. */
  spaceGroupNumber: number;
  /** Short Hermann–Mauguin symbol as pymatgen spells it: `"P6_3mc"`, `"Fd-3m"`, `"P2_1/c"`. */
  spaceGroupSymbol: string;
  /** Full Hermann–Mauguin symbol with spaces, e.g. `"P 6_3/m 2/m 2/c"`. */
  spaceGroupSymbolFull: string;
  /** Hall number (1 to 530) of the setting, spglib's choice. */
  hallNumber: number;
  crystalSystem: CrystalSystem;
  /** The platform's lattice type of the Bravais lattice: `CUB`, `FCC`, `BCC`, `TET`, `BCT`, `ORC`, `ORCC`, `ORCF`, `ORCI`, `HEX`, `RHL`, `MCL`, `MCLC`, `TRI`. */
  latticeType: string;
  /** Point group (geometric crystal class) in international notation, as pymatgen gives it: `"6mm"`, `"m-3m"`. */
  pointGroup: string;
  /** Pearson symbol, e.g. `"cF8"`. */
  pearsonSymbol: string;
  /** Each site of the structure, in the basis's order. */
  sites: SymmetrySite[];
  /** The operations of the space group in the structure's own cell. */
  operations: SymmetryOperation[];
  /** The conventional standard cell (spglib's `std_lattice`), platform-shaped. */
  conventional: PlatformStructure;
  /** The primitive standard cell, platform-shaped. */
  primitive: PlatformStructure;
  /** The distance tolerance asked for, in Å. */
  symprec: number;
  /** The angle tolerance asked for, in degrees. */
  angleTolerance: number;
}

const CRYSTAL_SYSTEMS: Record<string, CrystalSystem> = {
  Triclinic: "triclinic",
  Monoclinic: "monoclinic",
  Orthorhombic: "orthorhombic",
  Tetragonal: "tetragonal",
  Trigonal: "trigonal",
  Hexagonal: "hexagonal",
  Cubic: "cubic",
};

/** The platform's lattice type from the crystal system and the centring letter (as express does). */
function latticeTypeOf(system: CrystalSystem, centring: string): string {
  switch (system) {
    case "cubic":
      return centring === "F" ? "FCC" : centring === "I" ? "BCC" : "CUB";
    case "tetragonal":
      return centring === "I" ? "BCT" : "TET";
    case "orthorhombic":
      return centring === "F" ? "ORCF" : centring === "I" ? "ORCI" : centring === "P" ? "ORC" : "ORCC";
    case "hexagonal":
      return "HEX";
    case "trigonal":
      return centring === "R" ? "RHL" : "HEX";
    case "monoclinic":
      return centring === "P" ? "MCL" : "MCLC";
    default:
      return "TRI";
  }
}

interface GroupFacts {
  centring: string;
  symbol: string;
  full: string;
  system: CrystalSystem;
  latticeType: string;
  pointGroup: string;
  wyckoff: Map<string, { multiplicity: number }>;
}

const groupFacts = new Map<number, GroupFacts>();

/** The tables of one Hall number (a setting of a space group), read from moyo once. */
function factsOf(hallNumber: number): GroupFacts {
  const known = groupFacts.get(hallNumber);
  if (known) return known;
  const moyo = loadMoyo();
  const entry = moyo.hall_symbol_entry(hallNumber);
  const type = moyo.space_group_type(entry.number);
  const system = CRYSTAL_SYSTEMS[type.crystal_system];
  if (!system) throw new StructureError(`moyo named a crystal system matframe does not know: ${type.crystal_system}.`);
  const facts: GroupFacts = {
    centring: entry.centering,
    symbol: entry.hm_short.replace(/ /g, ""),
    full: entry.hm_full,
    system,
    latticeType: latticeTypeOf(system, entry.centering),
    pointGroup: type.geometric_crystal_class,
    wyckoff: new Map(moyo.wyckoff_positions(hallNumber).map((w) => [w.letter, { multiplicity: w.multiplicity }])),
  };
  groupFacts.set(hallNumber, facts);
  return facts;
}

/** Most structures whose symmetry is kept; the least recently used is forgotten first. */
const CACHE_SIZE = 10_000;
const cache = new LruCache<string, Symmetry>(CACHE_SIZE);

/** Forgets every cached result (for benchmarks that measure the analysis itself). */
export function clearSymmetryCache(): void {
  cache.clear();
}

/** Structures whose symmetry is cached now. @internal */
export function symmetryCacheSize(): number {
  return cache.size;
}

let analyses = 0;

/** How many times moyo has analysed a structure in this process (for tests of what needs it). @internal */
export function moyoAnalyses(): number {
  return analyses;
}

/** moyo's analysis of a structure made exactly symmetric; a StructureError when it finds no group. */
function analyzeCell(
  record: { name: string; id: string | undefined },
  json: string,
  exactSymprec: number,
  symprec: number,
): MoyoDataset {
  analyses++;
  try {
    return loadMoyo().analyze_cell(json, exactSymprec, "Spglib");
  } catch (error) {
    if (!(typeof error === "string" || error instanceof Error) || error instanceof TypeError) throw error;
    throw new StructureError(
      `${record.name}: no space group found with symprec ${symprec} Å (${String(error).replace(/^moyo error: /, "moyo: ")}); check for atoms closer than the tolerance, or try another symprec.`,
      record.id,
      { cause: error },
    );
  }
}

/** Pearson's letter of a crystal family. */
const FAMILY_LETTER: Record<CrystalSystem, string> = {
  triclinic: "a",
  monoclinic: "m",
  orthorhombic: "o",
  tetragonal: "t",
  trigonal: "h",
  hexagonal: "h",
  cubic: "c",
};
/** Lattice points in a conventional cell, by centring (R: the hexagonal triple cell, as moyo counts). */
const CENTRING_POINTS: Record<string, number> = { P: 1, A: 2, B: 2, C: 2, I: 2, F: 4, R: 3 };

/** The Pearson symbol: crystal family, centring (S for a base-centred orthorhombic cell), atoms in the conventional cell. */
function pearsonSymbol(facts: GroupFacts, primitiveAtoms: number): string {
  const c = facts.centring;
  const letter = c === "A" || c === "B" || c === "C" ? (facts.system === "orthorhombic" ? "S" : "C") : c;
  return `${FAMILY_LETTER[facts.system]}${letter}${primitiveAtoms * (CENTRING_POINTS[c] ?? Number.NaN)}`;
}

/** A value computed on its first request, then kept (frozen all the way down, as the cache shares it). */
function once<T>(compute: () => T): () => T {
  let value: T | undefined;
  return () => {
    if (value === undefined) value = deepFreeze(compute());
    return value;
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function checkSymprec(symprec: unknown): number {
  if (typeof symprec !== "number" || !(symprec > 0) || !Number.isFinite(symprec)) {
    throw new ValidationError(
      "symprec",
      `symprec must be a positive distance in Å (pymatgen's default is ${DEFAULT_SYMPREC}); got ${String(symprec)}.`,
    );
  }
  return symprec;
}

function checkAngleTolerance(angle: unknown): number {
  if (typeof angle !== "number" || angle === 0 || !Number.isFinite(angle) || angle >= 90) {
    throw new ValidationError(
      "angleTolerance",
      `angleTolerance must be an angle in degrees between 0 and 90, or negative to judge angles as a distance (pymatgen's default is ${DEFAULT_ANGLE_TOLERANCE}); got ${String(angle)}.`,
    );
  }
  return angle;
}

/** A lattice as moyo serializes it: the vectors a, b, c one after the other. */
const rows = ([a0, a1, a2, b0, b1, b2, c0, c1, c2]: MoyoCell["lattice"]["basis"]): Matrix3 => [
  [a0, a1, a2],
  [b0, b1, b2],
  [c0, c1, c2],
];

/**
 * The operations that map the cell's lattice onto itself (Rᵀ·G·R = G, G the metric). For a
 * supercell that breaks the lattice's symmetry, moyo also lists the crystal's other operations,
 * whose matrices in this basis are not integers (and come out truncated); spglib leaves them out.
 */
function latticeOperations(operations: SymmetryOperation[], cell: Matrix3, symprec: number): SymmetryOperation[] {
  const g = matrix((i, j) => cell[i][0] * cell[j][0] + cell[i][1] * cell[j][1] + cell[i][2] * cell[j][2]);
  const tolerance = 4 * symprec * Math.max(...cell.map((v) => Math.hypot(...v)));
  return operations.filter(({ rotation: r }) => {
    for (const i of INDEX3) {
      for (const j of INDEX3) {
        let sum = 0;
        for (const k of INDEX3) for (const l of INDEX3) sum += r[k][i] * g[k][l] * r[l][j];
        if (Math.abs(sum - g[i][j]) > tolerance) return false;
      }
    }
    return true;
  });
}

/** A moyo cell as a platform structure, with element symbols for moyo's species numbers. */
function platformCell(cell: MoyoCell, species: readonly string[], latticeType: string): PlatformStructure {
  const sites = cell.positions.map((p, i) => {
    // moyo numbers the species as it was given them: 1, 2, ... in order of first appearance.
    const element = species[(cell.numbers[i] ?? 0) - 1];
    if (element === undefined) throw new StructureError(`moyo gave site ${i + 1} a species it was not given.`);
    return { element, fractional: p.map((x) => (Math.abs(x) < 1e-12 ? 0 : x)) };
  });
  return toPlatform(rows(cell.lattice.basis), sites, latticeType);
}

/** The Hermann–Mauguin symbol, in pymatgen's spelling (`P6_3mc`), of the space group of a Hall number moyo found. */
export function spaceGroupSymbolOfHall(hallNumber: number): string {
  return factsOf(hallNumber).symbol;
}

/** The platform's lattice type (`HEX`, `FCC`, ...) of the Bravais lattice of a Hall number moyo found. */
export function latticeTypeOfHall(hallNumber: number): string {
  return factsOf(hallNumber).latticeType;
}

/**
 * The space group and standard cells of a material's structure (its `lattice` and `basis`), as
 * spglib and pymatgen's `SpacegroupAnalyzer` find them with the same tolerance. Results are cached
 * per structure and tolerance: a repeated structure costs one lookup.
 * Throws a StructureError for a structure that has none (no atoms, a flat cell, non-finite
 * numbers, atoms on top of each other) and a ValidationError for a bad `symprec`.
 * @example symmetryOf(record).spaceGroupSymbol // "P6_3mc"
 */
export function symmetryOf(record: StructureRecord, options: SymmetryOptions = {}): Symmetry {
  const symprec = checkSymprec(options.symprec ?? DEFAULT_SYMPREC);
  const angleTolerance = checkAngleTolerance(options.angleTolerance ?? DEFAULT_ANGLE_TOLERANCE);
  const { cell, sites } = structureOf(record);
  const key = `${symprec}|${angleTolerance}|${JSON.stringify(cell)}|${JSON.stringify(sites)}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const { json, exactSymprec, mirrored, species, identify, primitiveAtoms } = moyoInput(record, {
    symprec,
    angleTolerance,
  });
  // moyo's analysis of the structure made exactly symmetric (made only then), once: on first read
  // of the parts that need it (the sites, operations and standard cells), or now for a group whose
  // type the operations did not name; let go once all four are built.
  let analysis: MoyoDataset | undefined;
  let unbuilt = 4;
  const named = { name: who(record), id: record._id }; // not the record, which the cache would keep
  const analyze = (): MoyoDataset => {
    analysis ??= analyzeCell(named, json(), exactSymprec, symprec);
    return analysis;
  };
  const built = <T>(part: T): T => {
    if (--unbuilt === 0) analysis = undefined;
    return part;
  };
  const identified = identify();
  const type = identified ?? { number: analyze().number, hallNumber: analyze().hall_number };
  const facts = factsOf(type.hallNumber);
  // The parts most callers never read (a table's symmetry columns read the group's names) are
  // built on first read, and frozen then.
  const sitesOf = once(() => {
    const dataset = analyze();
    const { wyckoffs, site_symmetry_symbols: siteSymmetries, orbits } = dataset;
    if (wyckoffs.length !== sites.length || siteSymmetries.length !== sites.length || orbits.length !== sites.length)
      throw new StructureError(`moyo described ${wyckoffs.length} sites of a structure of ${sites.length}.`);
    return built(
      // One of each per site, checked above.
      sites.map((s, i) => ({
        element: s.element,
        wyckoff: wyckoffs[i]!,
        multiplicity: facts.wyckoff.get(wyckoffs[i]!)?.multiplicity ?? Number.NaN,
        siteSymmetry: siteSymmetries[i]!,
        orbit: orbits[i]!,
      })),
    );
  });
  const operationsOf = once(() =>
    built(
      latticeOperations(
        analyze().operations.map((op) => ({
          rotation: rotationRows(op.rotation),
          // moyo read a left-handed cell with its vectors reversed: x -> -x turns t into -t.
          translation: (mirrored ? op.translation.map((t) => (t === 0 ? 0 : 1 - t)) : [...op.translation]) as Vector3,
        })),
        cell,
        symprec,
      ),
    ),
  );
  const conventionalOf = once(() => built(platformCell(analyze().std_cell, species, facts.latticeType)));
  const primitiveOf = once(() => built(platformCell(analyze().prim_std_cell, species, facts.latticeType)));
  const result: Symmetry = Object.freeze({
    spaceGroupNumber: type.number,
    spaceGroupSymbol: facts.symbol,
    spaceGroupSymbolFull: facts.full,
    hallNumber: type.hallNumber,
    crystalSystem: facts.system,
    latticeType: facts.latticeType,
    pointGroup: facts.pointGroup,
    pearsonSymbol: identified ? pearsonSymbol(facts, primitiveAtoms) : analyze().pearson_symbol,
    get sites() {
      return sitesOf();
    },
    get operations() {
      return operationsOf();
    },
    get conventional() {
      return conventionalOf();
    },
    get primitive() {
      return primitiveOf();
    },
    symprec,
    angleTolerance,
  });
  cache.set(key, result);
  return result;
}

/**
 * Like {@link symmetryOf}, but a structure without a space group gives `null` and one warning
 * through `onWarning` (the reason, naming the record) instead of an error. A bad `symprec` still throws.
 * @example symmetryOrNull(record, { onWarning: console.warn })?.crystalSystem ?? "unknown"
 */
export function symmetryOrNull(
  record: StructureRecord,
  options: SymmetryOptions & { onWarning?: (message: string) => void } = {},
): Symmetry | null {
  checkSymprec(options.symprec ?? DEFAULT_SYMPREC);
  checkAngleTolerance(options.angleTolerance ?? DEFAULT_ANGLE_TOLERANCE);
  try {
    return symmetryOf(record, options);
  } catch (error) {
    if (!(error instanceof StructureError)) throw error;
    options.onWarning?.(error.message);
    return null;
  }
}

/** The space group's operations in the conventional standard cell (centring translations included). */
export function conventionalOperations(symmetry: Symmetry): SymmetryOperation[] {
  return loadMoyo()
    .operations_from_number(symmetry.spaceGroupNumber, { type: "HallNumber", value: symmetry.hallNumber }, false)
    .map((op) => ({ rotation: rotationRows(op.rotation), translation: [...op.translation] as Vector3 }));
}
