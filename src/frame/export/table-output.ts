// Where a table writer (CSV, NDJSON, Parquet) puts its bytes: a new file made atomically, the
// partial file of a resumable export, or the caller's stream. One shape for the three, so the
// writers do not ask which one they have.
import type { Writable } from "node:stream";
import { openAtomicFile } from "./atomic/atomic-file";
import { ResumableFile } from "./resume/resumable-file";
import { sweepWarnings } from "./atomic/stale-partials";
import { reportWarnings, type WarningHandler } from "../table/warnings";
import type { Checkpoint, SavedProgress } from "./resume/resume-plan";

/** An opened output. */
export interface TableOutput {
  readonly stream: Writable;
  /** The absolute target path; undefined for a stream. */
  readonly path: string | undefined;
  /** Progress an earlier run saved, which this run continues; undefined when it starts afresh. */
  readonly resumed: SavedProgress | undefined;
  /** True when an interrupted run keeps what it wrote for a later run (a resumable export). */
  readonly keepsProgress: boolean;
  /** Records how far the output got, for a resumable export; otherwise does nothing. */
  checkpoint(progress: Checkpoint, now?: boolean): Promise<void>;
  /** Places the finished file at its target (nothing for a stream). */
  commit(): Promise<void>;
  /** Stops after a failure: a resumable export keeps its last checkpoint, a new file is removed. */
  abort(): Promise<void>;
  /** Stops after a failure that a second run would meet again: nothing is kept. */
  discard(): Promise<void>;
}

const none = (): Promise<void> => Promise.resolve();

/**
 * Opens the output of a table export before the first page is asked for, so that an existing
 * target fails fast.
 */
export async function openTableOutput(
  target: string | Writable | ResumableFile,
  force: boolean | undefined,
  onWarning?: WarningHandler,
): Promise<TableOutput> {
  if (target instanceof ResumableFile) {
    return {
      stream: target.stream,
      path: target.path,
      resumed: target.resumed,
      keepsProgress: true,
      checkpoint: (progress, now) => target.checkpoint(progress, now),
      commit: () => target.commit(),
      abort: () => target.abort(),
      discard: () => target.discard(),
    };
  }
  if (typeof target !== "string")
    return {
      stream: target,
      path: undefined,
      resumed: undefined,
      keepsProgress: false,
      checkpoint: none,
      commit: none,
      abort: none,
      discard: none,
    };
  const file = await openAtomicFile(target, { force });
  reportWarnings(sweepWarnings(file.swept, target), onWarning);
  return {
    stream: file.stream,
    path: file.path,
    resumed: undefined,
    keepsProgress: false,
    checkpoint: none,
    commit: file.commit,
    abort: file.abort,
    discard: file.abort,
  };
}
