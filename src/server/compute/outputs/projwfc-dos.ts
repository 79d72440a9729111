// projwfc.x's density of states, as the platform's parsers (Exabyte-io/express: EspressoTXTParser.dos
// and the DensityOfStates property) make it: the energies and the total DOS from `PREFIX.pdos_tot`,
// then one partial DOS per element and orbital (`1s`, `2pz`, `2px` ...), summed over the atoms of that
// element, from the `PREFIX.pdos_atm#N(El)_wfc#M(orb)` files. projwfc.x writes them in the folder it
// runs in (its `filpdos` defaults to the prefix; the bank's template sets neither it nor `filproj`),
// which is the job's: only regular files at the top of that folder are read, never a link.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import type { UnitResults, UnitRun } from "../compute-types";
import { qeFailure } from "./pw-output";

/** The prefix of every bank template (`prefix = '__prefix__'`), which projwfc.x names its files by. */
const PREFIX = "__prefix__";

/** The total DOS file projwfc.x writes. */
const PDOS_TOTAL = `${PREFIX}.pdos_tot`;

/** A partial DOS file: atom number, element, wavefunction number, orbital letter (express's `pdos_file` regex, whole name). */
const PDOS_FILE = /^__prefix__\.pdos_atm#(\d+)\((\w+)\)_wfc#(\d+)\((\w)\)$/;

/**
 * The names express gives the components of each orbital, in projwfc.x's column order (express's
 * ORBITS; f, which express lacks, named and ordered as projwfc.x's documentation lists them:
 * INPUT_PROJWFC, "Orbital Order"). Files of QE 6.7 head every component's column `pdos(E)`.
 */
const COMPONENTS: Readonly<Record<string, readonly string[]>> = {
  s: [""],
  p: ["z", "x", "y"],
  d: ["z2", "zx", "zy", "x2-y2", "xy"],
  f: ["z3", "xz2", "yz2", "z(x2-y2)", "xyz", "x(x2-3y2)", "y(3x2-y2)"],
};

/** ESSE's axes of `density_of_states` (its manifest's defaults, which express prints). */
const X_AXIS = { label: "energy", units: "eV" } as const;
const Y_AXIS = { label: "density of states", units: "states/unitcell" } as const;

/**
 * A number as projwfc.x prints it, also where Fortran drops the `E` of a three-digit exponent
 * (`0.123-100`).
 */
function fortranNumber(token: string): number {
  const dropped = /^([-+]?\d*\.\d+)([-+]\d{3})$/.exec(token);
  return dropped ? Number(dropped[1]) * 10 ** Number(dropped[2]) : Number(token);
}

/** A projwfc.x table: its header's column names and its rows of numbers. */
interface Table {
  columns: string[];
  rows: number[][];
}

/**
 * The header (`#  E (eV)  dos(E)  pdos(E)`) and the rows that start with a number, as express
 * keeps them: a row whose energy overflowed its field (`*******`) is left out of every file alike.
 */
function readTable(file: string): Table {
  const text = readFileSync(file, "utf8");
  const header = /^#(.*)$/m.exec(text)?.[1] ?? "";
  const columns = header.replace("E (eV)", "E").trim().split(/\s+/);
  const rows = [...text.matchAll(/^ *[-+]?\d*\.\d+(?:[eE][-+]?\d+)?.*$/gm)].map(([line]) =>
    line.trim().split(/\s+/).map(fortranNumber),
  );
  return { columns, rows };
}

/** Whether `file` in `dir` is a regular file (a link, even to a file in the folder, is not read). */
function isPlainFile(dir: string, file: string): boolean {
  return lstatSync(path.join(dir, file), { throwIfNoEntry: false })?.isFile() === true;
}

/** The partial DOS files projwfc.x left in `dir`, sorted as express sorts them (by name). */
function pdosFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => PDOS_FILE.test(name) && isPlainFile(dir, name)).sort();
}

type Data = Record<string, unknown> & { name: string };

/** The `density_of_states` property data from projwfc.x's files in `dir`, or why there is none. */
export function densityOfStates(dir: string): { data: Data } | { reason: string } {
  if (!isPlainFile(dir, PDOS_TOTAL)) return { reason: `projwfc.x wrote no ${PDOS_TOTAL}` };
  const total = readTable(path.join(dir, PDOS_TOTAL));
  if (total.columns[1] !== "dos(E)")
    return { reason: "the density of states of spin-polarized or noncollinear runs is not read yet" };
  if (total.rows.length === 0 || total.rows.some((row) => row.length < 2 || row.some(Number.isNaN)))
    return { reason: `${PDOS_TOTAL} has no table of energies and densities` };
  const energies = total.rows.map((row) => row[0] as number);
  // Keyed as express keys them (`Si_2pz`), in the order each first appears.
  const partial = new Map<string, { element: string; electronicState: string; values: number[] }>();
  for (const file of pdosFiles(dir)) {
    const [, , element = "", wfc = "", orbital = ""] = PDOS_FILE.exec(file) ?? [];
    const components = COMPONENTS[orbital];
    if (!components) return { reason: `${file} is of an orbital (${orbital}) whose components are not known` };
    const table = readTable(path.join(dir, file));
    // E, ldos, then one column per component: a spin-polarized or noncollinear file has more.
    if (table.columns[1] !== "ldos(E)" || table.columns.length !== 2 + components.length)
      return { reason: "the density of states of spin-polarized or noncollinear runs is not read yet" };
    if (table.rows.length !== energies.length || table.rows.some((row, i) => row[0] !== energies[i]))
      return { reason: `${file} is not on the energies of ${PDOS_TOTAL}` };
    components.forEach((component, m) => {
      const electronicState = `${wfc}${orbital}${component}`;
      const key = `${element}_${electronicState}`;
      let series = partial.get(key);
      if (!series) {
        series = { element, electronicState, values: new Array<number>(energies.length).fill(0) };
        partial.set(key, series);
      }
      for (const [i, row] of table.rows.entries())
        series.values[i] = (series.values[i] as number) + (row[2 + m] ?? NaN);
    });
  }
  const series = [...partial.values()];
  if (series.some((s) => s.values.some(Number.isNaN)))
    return { reason: "a partial DOS file has a row without all its columns" };
  return {
    data: {
      name: "density_of_states",
      xAxis: { ...X_AXIS },
      yAxis: { ...Y_AXIS },
      // One array of energies in an array, as express gives it.
      xDataArray: [energies],
      yDataSeries: [total.rows.map((row) => row[1] as number), ...series.map((s) => s.values)],
      legend: [{}, ...series.map(({ element, electronicState }) => ({ element, electronicState }))],
    },
  };
}

/** The results a projwfc.x unit lists, from the files its run wrote in the job's folder. */
export function projwfcResults(run: UnitRun): UnitResults {
  const computed: UnitResults["computed"] = [];
  const notes: string[] = [];
  if (run.wanted.has("density_of_states")) {
    const dos = densityOfStates(run.workDir);
    if ("data" in dos) computed.push(dos.data);
    else notes.push(`${run.stem}: no density of states: ${dos.reason}.`);
  }
  return { computed, notes };
}

/** The files beyond STEM.out a projwfc.x run leaves for the reader: the total and partial DOS. */
export function projwfcFiles(dir: string): string[] {
  return [...(isPlainFile(dir, PDOS_TOTAL) ? [PDOS_TOTAL] : []), ...pdosFiles(dir)];
}

/**
 * Why projwfc.x stopped, in its words; where it stopped in d_matrix, what the user can do. That
 * happens when pw.x took the cell for more symmetric than it is: the bundled bulk silicon (mp-149)
 * has b = c = 3.866975 Å against a = 3.866976 Å, pw.x finds 12 operations within its tolerance,
 * and projwfc.x's rotation matrices of f orbitals then fail its orthogonality check.
 */
export function projwfcFailure(output: string): string | undefined {
  const failure = qeFailure("projwfc.x", output);
  if (failure === undefined || !/\bd_matrix\b/.test(failure)) return failure;
  return `${failure}. The material's cell is less symmetric than pw.x took it to be, by more than the rounding the engine undoes (lattice parameters that differ in their fifth digit, say): make it exact, or set the subworkflow's context NO_SYMMETRY_NO_INVERSION to true (pw_nscf then computes every k-point of its grid, which takes longer)`;
}
