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
 * bands.x's files: `filband` (the bands by k-point) and the `.gnu` file beside it (energy against
 * the path's length, for plotting), when `filband` is a file directly in the job's folder.
 */
function bandsFiles(input: string, workDir: string): string[] {
  const filband = /^\s*filband\s*=\s*(['"])(.*?)\1/im.exec(input)?.[2];
  if (!filband) return [];
  const name = path.relative(workDir, path.resolve(workDir, filband));
  return /^[\w.-]+$/.test(name) && !/^\.+$/.test(name) ? [name, `${name}.gnu`] : [];
}

/** A program whose unit lists no results (q2r.x: its files are for the next unit). */
const noResults = (program: string): Executable => ({
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
