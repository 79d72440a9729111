// The Quantum ESPRESSO programs the engine runs, each with what its run leaves as its unit's
// results: pw.x's from its output and data file, a post-processing program's (bands.x, projwfc.x
// ...) from the files it writes in the job's folder (projwfc.x's density of states). A program not
// in this table is refused before the job starts, with its name.
import type { UnitResults, UnitRun } from "./compute-types";
import { projwfcFailure, projwfcFiles, projwfcResults } from "./projwfc-dos";
import { pwResults } from "./pw-results";
import { qeFailure } from "./pw-output";

/** A program the engine runs. */
export interface Executable {
  /** Why the run failed, in the program's own words (QE's `Error in routine` block), if it did. */
  failure(output: string): string | undefined;
  /** The unit's results from its run. */
  results(run: UnitRun): UnitResults;
  /**
   * The files beyond STEM.out a run leaves in the job's folder for the reader (projwfc.x's
   * `__prefix__.pdos_*`), by their names there; none when absent.
   */
  outputs?(workDir: string): string[];
}

/** A program whose unit lists no results (bands.x: its files are for the reader). */
const noResults = (program: string): Executable => ({
  failure: (output) => qeFailure(program, output),
  results: () => ({ computed: [], notes: [] }),
});

const PROGRAMS: ReadonlyMap<string, Executable> = new Map<string, Executable>([
  ["pw.x", { failure: (output) => qeFailure("pw.x", output), results: pwResults }],
  ["bands.x", noResults("bands.x")],
  ["projwfc.x", { failure: projwfcFailure, results: projwfcResults, outputs: projwfcFiles }],
]);

/** The program a unit names, if the engine runs it. */
export function executableOf(name: string): Executable | undefined {
  return PROGRAMS.get(name);
}

/** The names of the programs the engine runs, for the messages that list them. */
export function executableNames(): string[] {
  return [...PROGRAMS.keys()];
}
