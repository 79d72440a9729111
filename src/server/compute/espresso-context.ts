// The context a pw.x unit's template is rendered with, as the platform's context providers give
// it (wode's QEPWXContextProvider, PlanewaveCutoffsContextProvider, PointsGridFormDataProvider):
// `input` (IBRAV 0 with CELL_PARAMETERS, NAT, NTYP, ATOMIC_SPECIES, ATOMIC_POSITIONS), `cutoffs`,
// `kgrid`, for a bands unit `kpath` (PointsPathFormDataProvider: ./k-points/k-path.ts), and the
// phonon units' `qgrid` and `igrid`; a unit's own context sets the grids, cutoffs and path where it
// gives them.
import { ATOMIC_WEIGHTS } from "../../structure/composition";
import { type StructureRecord, structureOf } from "../../structure/structure";
import { type KGrid, kGridOf, NSCF_KPPRA, SCF_KPPRA } from "./k-points/k-grid";
import { type CellParameters, exactCell, type Matrix3 } from "../../structure/cell";
import { type KPath, kpathOf } from "./k-points/k-path";

/**
 * The platform's espresso cutoffs (Ry) for a unit that sets none: wode's
 * PlanewaveCutoffsContextProvider, chosen for the GBRV ultrasoft set.
 */
export const DEFAULT_CUTOFFS = Object.freeze({ wavefunction: 40, density: 200 });

/** The parts of the context the engine chose, for the job's notes. */
export interface EspressoContext {
  context: Record<string, unknown>;
  kgrid: KGrid;
  /** ph.x's q-point grid and matdyn.x's interpolation grid (`qgrid`, `igrid`). */
  qgrid: KGrid;
  igrid: KGrid;
  cutoffs: { wavefunction: number; density: number };
  /** Whether the k-grid came from the unit's own context rather than the density default. */
  kgridFromUnit: boolean;
  /** The path through the Brillouin zone, for a unit whose template prints one (or why there is none). */
  kpath?: KPath;
  /** The material's cell as published and as given to pw.x, where its rounding was undone ({@link exactCell}). */
  exactCell?: { from: CellParameters; to: CellParameters };
}

/** A cutoff in Ry a unit's context may set: a finite positive number. */
function cutoff(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 && value <= 10_000 ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The `input` block of QEPWXContextProvider for one material; `pseudoFile` names each element's
 * UPF file, `cell` is the cell pw.x gets (the material's, made exact within its rounding).
 */
function pwxInput(
  material: StructureRecord,
  pseudoFile: (element: string) => string,
  cell: Matrix3,
): Record<string, unknown> {
  const structure = structureOf(material);
  const elements = [...new Set(structure.sites.map((site) => site.element))];
  const constraints = new Map<number, boolean[]>();
  const raw = (material as { basis?: { constraints?: { id: number; value: boolean[] }[] } }).basis?.constraints;
  if (Array.isArray(raw)) for (const c of raw) if (Array.isArray(c?.value)) constraints.set(c.id, c.value);
  const ids = material.basis.elements.map((e) => e.id);
  return {
    IBRAV: 0,
    // The platform restarts from a parent job's data; a local job has none, so it starts afresh.
    RESTART_MODE: "from_scratch",
    NAT: structure.sites.length,
    NTYP: elements.length,
    ATOMIC_SPECIES: elements.map((X) => ({ X, Mass_X: ATOMIC_WEIGHTS[X], PseudoPot_X: pseudoFile(X) })),
    ATOMIC_POSITIONS: structure.sites.map((site, i) => {
      const id = ids[i];
      const fixed = (id === undefined ? undefined : constraints.get(id)) ?? [true, true, true];
      return {
        X: site.element,
        x: site.fractional[0],
        y: site.fractional[1],
        z: site.fractional[2],
        "if_pos(1)": fixed[0] ? 1 : 0,
        "if_pos(2)": fixed[1] ? 1 : 0,
        "if_pos(3)": fixed[2] ? 1 : 0,
      };
    }),
    CELL_PARAMETERS: { v1: cell[0], v2: cell[1], v3: cell[2] },
  };
}

/**
 * A grid a unit's context sets (`kgrid`, `qgrid`, `igrid`), if it gives three whole dimensions
 * and 0/1 shifts: numbers only, as what it says is printed into the input as it is.
 */
function givenGrid(value: unknown, atoms: number): KGrid | undefined {
  if (!isRecord(value)) return undefined;
  const { dimensions } = value;
  const shifts = Array.isArray(value.shifts) ? (value.shifts as unknown[]) : [0, 0, 0];
  if (
    !Array.isArray(dimensions) ||
    dimensions.length !== 3 ||
    !dimensions.every((d) => Number.isInteger(d) && d >= 1 && d <= 200) ||
    shifts.length !== 3 ||
    !shifts.every((d) => d === 0 || d === 1)
  )
    return undefined;
  return {
    dimensions: dimensions as [number, number, number],
    shifts: shifts as [number, number, number],
    gridMetricType: "KPPRA",
    gridMetricValue: (dimensions as number[]).reduce((a, b) => a * b) * atoms,
  };
}

/**
 * The whole context of one pw.x unit. `calculation` is the template's (scf, nscf, relax,
 * vc-relax ...): a non-self-consistent one gets the denser grid its bands need.
 */
export function espressoContext(options: {
  material: StructureRecord;
  unit: Record<string, unknown>;
  subworkflow: Record<string, unknown>;
  pseudoFile: (element: string) => string;
  nonSelfConsistent: boolean;
  /** Whether the template prints a `kpath` (`K_POINTS crystal_b`): only then is it made. */
  withPath?: boolean;
}): EspressoContext {
  const { material, unit, subworkflow } = options;
  const unitContext = isRecord(unit.context) ? unit.context : {};
  const subworkflowContext = isRecord(subworkflow.context) ? subworkflow.context : {};
  const structure = structureOf(material);
  const exact = exactCell(structure.cell);
  const input = pwxInput(material, options.pseudoFile, exact?.cell ?? structure.cell);
  const atoms = structure.sites.length;
  const givenKgrid = givenGrid(unitContext.kgrid, atoms);
  const kgridFromUnit = givenKgrid !== undefined;
  const kgrid: KGrid = givenKgrid ?? kGridOf(structure.cell, atoms, options.nonSelfConsistent ? NSCF_KPPRA : SCF_KPPRA);
  // ph.x's q-points and matdyn.x's interpolation grid, as wode's QGrid and IGrid providers make
  // them from the k-point density: a fifth of it and five times it.
  const qgrid = givenGrid(unitContext.qgrid, atoms) ?? kGridOf(structure.cell, atoms, Math.floor(SCF_KPPRA / 5));
  const igrid = givenGrid(unitContext.igrid, atoms) ?? kGridOf(structure.cell, atoms, SCF_KPPRA * 5);
  const givenCutoffs = isRecord(unitContext.cutoffs) ? unitContext.cutoffs : {};
  const cutoffs = {
    wavefunction: cutoff(givenCutoffs.wavefunction) ?? DEFAULT_CUTOFFS.wavefunction,
    density: cutoff(givenCutoffs.density) ?? DEFAULT_CUTOFFS.density,
  };
  // The unit's context is the account's to edit: only its numbers (k-grid, cutoffs, path) are taken,
  // never text that would be printed into the input as it is.
  const context: Record<string, unknown> = { input, cutoffs, kgrid, qgrid, igrid, subworkflowContext };
  const kpath = options.withPath ? kpathOf(material as unknown as Record<string, unknown>, unitContext) : undefined;
  if (kpath && "kpath" in kpath) context.kpath = kpath.kpath;
  return {
    context,
    kgrid,
    qgrid,
    igrid,
    cutoffs,
    kgridFromUnit,
    ...(kpath ? { kpath } : {}),
    ...(exact ? { exactCell: { from: exact.from, to: exact.to } } : {}),
  };
}
