// The Quantum ESPRESSO programs the engine runs, each with what its run leaves as its unit's
// results: pw.x's from its output and data file, ph.x's from its output (run on pw.x's data in the
// shared outdir), a post-processing program's (bands.x, projwfc.x, q2r.x, matdyn.x ...) from the
// files it writes in the job's folder. A program not in this table is refused before the job
// starts, with its name.
import * as path from "node:path";
import type { UnitResults, UnitRun } from "./compute-types";
import { projwfcFailure, projwfcFiles, projwfcResults } from "./outputs/projwfc-dos";
import { pwResults } from "./outputs/pw-results";
import { matdynResults } from "./outputs/matdyn-results";
import { phFailure, phResults } from "./outputs/ph-output";
import { qeFailure } from "./outputs/pw-output";

/** A program the engine runs. */
export interface Executable {
  /** Why the run failed, in the program's own words (QE's `Error in routine` block), if it did. */
  failure(output: string): string | undefined;
  /** The unit's results from its run. */
  results(run: UnitRun): UnitResults;
  /**
   * The files beside `STEM.out` its run writes for the user (bands.x's `filband`, projwfc.x's
   * `__prefix__.pdos_*`: names in the job's folder), from its rendered input; listed as the unit's
   * outputs where they exist.
   */
  outputs?(input: string, workDir: string): string[];
}

/**
 * The file an input names under `key` (`filband = 'bands.dat'`), or `fallback` where it names
 * none, when that is a plain name directly in the job's folder.
 */
function namedFile(input: string, workDir: string, key: string, fallback?: string): string | undefined {
  const given = new RegExp(`^\\s*${key}\\s*=\\s*(['"])(.*?)\\1`, "im").exec(input)?.[2] ?? fallback;
  if (!given) return undefined;
  const name = path.relative(workDir, path.resolve(workDir, given));
  return /^[\w.-]+$/.test(name) && !/^\.+$/.test(name) ? name : undefined;
}

const present = (...names: (string | undefined)[]): string[] => names.filter((n): n is string => n !== undefined);

/**
 * bands.x's files: `filband` (the bands by k-point) and the `.gnu` file beside it (energy against
 * the path's length, for plotting).
 */
function bandsFiles(input: string, workDir: string): string[] {
  const filband = namedFile(input, workDir, "filband");
  return filband ? [filband, `${filband}.gnu`] : [];
}

/**
 * ph.x's dynamical matrices: `fildyn` (default `matdyn`) at Γ alone, and on a q-grid `fildyn0`
 * (the grid's q-points) and one `fildynN` per irreducible q-point, which q2r.x reads.
 */
function phFiles(input: string, workDir: string): string[] {
  const fildyn = namedFile(input, workDir, "fildyn", "matdyn");
  return fildyn ? [fildyn, ...Array.from({ length: 100 }, (_, i) => `${fildyn}${i}`)] : [];
}

/** q2r.x's interatomic force constants (`flfrc`). */
const q2rFiles = (input: string, workDir: string): string[] => present(namedFile(input, workDir, "flfrc"));

/** matdyn.x's frequencies (`flfrq` and its `.gp`), modes (`flvec`), eigenvectors (`fleig`) and DOS (`fldos`). */
function matdynFiles(input: string, workDir: string): string[] {
  const frequencies = namedFile(input, workDir, "flfrq", "matdyn.freq");
  return present(
    frequencies,
    frequencies && `${frequencies}.gp`,
    namedFile(input, workDir, "flvec", "matdyn.modes"),
    namedFile(input, workDir, "fleig", "matdyn.eig"),
    namedFile(input, workDir, "fldos"),
  );
}

/** A program whose unit lists no results (q2r.x: its files are for the next unit). */
const noResults = (program: string): Pick<Executable, "failure" | "results"> => ({
  failure: (output) => qeFailure(program, output),
  results: () => ({ computed: [], notes: [] }),
});

const PROGRAMS: ReadonlyMap<string, Executable> = new Map<string, Executable>([
  ["pw.x", { failure: (output) => qeFailure("pw.x", output), results: pwResults }],
  // bands.x's unit lists no results: its files are for the reader.
  [
    "bands.x",
    {
      failure: (output) => qeFailure("bands.x", output),
      results: () => ({ computed: [], notes: [] }),
      outputs: bandsFiles,
    },
  ],
  [
    "projwfc.x",
    { failure: projwfcFailure, results: projwfcResults, outputs: (_input, workDir) => projwfcFiles(workDir) },
  ],
  ["ph.x", { failure: phFailure, results: phResults, outputs: phFiles }],
  ["q2r.x", { ...noResults("q2r.x"), outputs: q2rFiles }],
  ["matdyn.x", { failure: (output) => qeFailure("matdyn.x", output), results: matdynResults, outputs: matdynFiles }],
]);

/** The program a unit names, if the engine runs it. */
export function executableOf(name: string): Executable | undefined {
  return PROGRAMS.get(name);
}

/** The names of the programs the engine runs, for the messages that list them. */
export function executableNames(): string[] {
  return [...PROGRAMS.keys()];
}
