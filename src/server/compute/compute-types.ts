// What the queue and the engine hand each other: plain records, a folder, and the outcome.

/** What the queue hands the engine for one job. */
export interface ComputeJobInput {
  jobId: string;
  /** The job record's workflow (subworkflows with units, as the bank's). */
  workflow: Record<string, unknown>;
  /** The job's material record (lattice, basis, name, formula ...). */
  material: Record<string, unknown>;
  /** An empty folder of this job: inputs, outputs, outdir, pseudo/ go here. */
  workDir: string;
  /** Aborted on terminate, time limit, server close: the child's whole process group is killed at once. */
  signal: AbortSignal;
  /** Optional progress lines (unit started, pseudopotential chosen ...). */
  onLog?: (line: string) => void;
  /**
   * Called as each unit starts and as it ends, with the unit's results when it finished, so the
   * caller can keep them then, as the platform does: a job stopped later keeps what its finished
   * units computed. The run waits for the promise a `finished` report returns before the next
   * unit starts (the results are kept before anyone can see the next unit run); it waits for no
   * other.
   */
  onUnit?: (report: UnitReport) => void | Promise<void>;
}

/** A unit of the job starting (`active`) or ending (`finished` with its results, or `error`). */
export interface UnitReport {
  /** The unit's flowchartId. */
  unitId: string;
  /** ESSE's unit statuses a run moves through. */
  status: "active" | "finished" | "error";
  /** What the unit computed: empty unless `finished`. */
  properties: ComputedProperty[];
}

/** ESSE property data, e.g. `{ name: "total_energy", value, units: "eV" }`; `unitId` is the unit's flowchartId. */
export interface ComputedProperty {
  unitId: string;
  data: Record<string, unknown> & { name: string };
}

/** A file the job wrote, named as the platform names them: pw_scf.in, pw_scf.out (STEM.out). */
export interface ComputedFile {
  name: string;
  relativePath: string;
  kind: "input" | "output";
  unitId: string;
}

/** One finished run of a unit's program, as its results are read from it. */
export interface UnitRun {
  /** The job's folder: `outdir/` holds pw.x's data (`__prefix__.save`), the programs write beside it. */
  workDir: string;
  /** The unit's template stem: `pw_scf` for `pw_scf.in`. */
  stem: string;
  /** The program's standard output (`STEM.out`). */
  output: string;
  /** The results the unit lists (`unit.results[].name`): only these are kept. */
  wanted: ReadonlySet<string>;
  /** The job's material record. */
  material: Record<string, unknown>;
}

/** What a run computed (those of its unit's results it found) and why any is missing. */
export interface UnitResults {
  computed: ComputedProperty["data"][];
  notes: string[];
}

/** What every outcome holds besides its status. */
interface ComputedParts {
  properties: ComputedProperty[];
  files: ComputedFile[];
  notes: string[];
  /** The Quantum ESPRESSO version that ran (`6.7`, from pw.x's `Program PWSCF v.6.7MaX` line), once pw.x ran. */
  engineVersion?: string;
}

/** How a job ended; `notes` say which pseudopotentials, k-grid and why. */
export type ComputeOutcome =
  | ({ status: "finished" } & ComputedParts)
  | ({ status: "error"; reason: string } & ComputedParts);
