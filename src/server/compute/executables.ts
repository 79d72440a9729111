// The Quantum ESPRESSO programs the engine runs, each with what its run leaves as its unit's
// results: pw.x's from its output and data file, ph.x's from its output (run on pw.x's data in the
// shared outdir), a post-processing program's (bands.x, q2r.x, matdyn.x ...) from the files it
// writes in the job's folder. A program not in this table is refused before the job starts, with its name.
import type { UnitResults, UnitRun } from "./compute-types";
import { pwResults } from "./pw-results";
import { matdynResults } from "./matdyn-results";
import { phFailure, phResults } from "./ph-output";
import { qeFailure } from "./pw-output";

/** A program the engine runs. */
export interface Executable {
  /** Why the run failed, in the program's own words (QE's `Error in routine` block), if it did. */
  failure(output: string): string | undefined;
  /** The unit's results from its run. */
  results(run: UnitRun): UnitResults;
}

/** A program whose unit lists no results (bands.x, q2r.x: their files are for the reader or the next unit). */
const noResults = (program: string): Executable => ({
  failure: (output) => qeFailure(program, output),
  results: () => ({ computed: [], notes: [] }),
});

const PROGRAMS: ReadonlyMap<string, Executable> = new Map<string, Executable>([
  ["pw.x", { failure: (output) => qeFailure("pw.x", output), results: pwResults }],
  ["bands.x", noResults("bands.x")],
  ["ph.x", { failure: phFailure, results: phResults }],
  ["q2r.x", noResults("q2r.x")],
  ["matdyn.x", { failure: (output) => qeFailure("matdyn.x", output), results: matdynResults }],
]);

/** The program a unit names, if the engine runs it. */
export function executableOf(name: string): Executable | undefined {
  return PROGRAMS.get(name);
}

/** The names of the programs the engine runs, for the messages that list them. */
export function executableNames(): string[] {
  return [...PROGRAMS.keys()];
}
