// A hive-partitioned dataset whose progress is kept for a later run. Its guarantee: killed at any
// moment (SIGKILL included) and run again, it holds every record exactly once, and a kill never
// makes the next run refuse to continue. How:
// - each value's file is a resumable file committing its own row groups; the dataset's state says
//   where the walk resumes, and only ever passes records committed in every file (committed-cursor.ts);
// - the files are finished (footer written, fsynced) but not renamed, then the dataset's state
//   says it is complete (each file's count), and only then are the files renamed, `_SUCCESS`
//   written and the folder renamed. A run that finds the state complete repeats those renames,
//   each safe to repeat; a run killed before it continues every file from its last row group.
import * as fs from "node:fs";
import * as path from "node:path";
import type { PlatformRecord } from "../../../client/platform-record";
import type { ResolvedIterateOptions } from "../../../client/config/validate-options";
import { afterId } from "../../../client/paging/partitions";
import { EmptyColumnError, OutputError, ResumeError, TargetExistsError, ValidationError } from "../../../errors";
import { describeWriteError, removeAtomicFile } from "../atomic/atomic-file";
import { placeDir } from "../atomic/atomic-dir";
import type { PartitionedExportResult } from "../partitioned-export";
import { commitPoint } from "../resume/commit-points";
import {
  checkProgressDirectory,
  discardProgress,
  resumePaths,
  withOutputLock,
  type OutputLock,
} from "../resume/progress-files";
import { placeFinished, ResumableFile } from "../resume/resumable-file";
import { compareRequests, type ResumeRequest } from "../resume/resume-plan";
import { readSealedState, writeSealedState, type StateLayout } from "../resume/sealed-state";
import { CommittedCursor } from "./committed-cursor";
import { datasetResult, PART, type HiveCommon } from "./hive-export";
import { routePartitions, type HivePlan, type PartitionWrite } from "./hive-router";
import { SUCCESS_MARKER, writeSuccessMarker } from "./success-marker";

/** One finished folder of a complete dataset: what the result reports for it. */
interface FinishedPart {
  readonly folder: string;
  readonly items: number;
  readonly bytes: number;
}

/** A hive dataset's saved progress: where the walk resumes, and the folders it has. */
interface HiveState {
  readonly request: ResumeRequest;
  /** The `_id` after which every record is committed in its partition's file; null: none yet. */
  readonly cursor: string | null;
  readonly folders: readonly string[];
  /** Set once every file is finished: what remains is to place them (and the walk's page count). */
  readonly complete?: { readonly parts: readonly FinishedPart[]; readonly pages: number };
}

const HIVE_STATE: StateLayout<HiveState> = {
  valid: (state) =>
    Array.isArray(state.folders) &&
    (state.cursor === null || typeof state.cursor === "string") &&
    (state.complete === undefined || Array.isArray(state.complete?.parts)),
  sealed: (state) => ({
    cursor: state.cursor,
    folders: state.folders,
    ...(state.complete ? { complete: state.complete } : {}),
  }),
};

type Source = { walk(resolved: ResolvedIterateOptions): AsyncIterable<PlatformRecord[]> };

/**
 * Writes (or continues) a hive-partitioned dataset whose progress is kept for a later run: each
 * partition's file is a resumable file, and the dataset's state says where the walk resumes. One
 * lock covers the whole folder, taken before anything of it is read or removed.
 */
export function writeHiveResumable(
  source: Source,
  walk: ResolvedIterateOptions,
  target: string,
  hive: HivePlan,
  request: ResumeRequest,
  options: HiveCommon & { restart: boolean },
  write: PartitionWrite<ResumableFile>,
): Promise<PartitionedExportResult> {
  return withOutputLock(target, target, (lock) =>
    writeLocked(source, walk, target, hive, request, options, write, lock),
  );
}

async function writeLocked(
  source: Source,
  walk: ResolvedIterateOptions,
  target: string,
  hive: HivePlan,
  request: ResumeRequest,
  options: HiveCommon & { restart: boolean },
  write: PartitionWrite<ResumableFile>,
  lock: OutputLock,
): Promise<PartitionedExportResult> {
  const final = path.resolve(target);
  const { partial: dir, state: statePath } = resumePaths(final);
  let state = options.restart ? undefined : await readSealedState(statePath, target, HIVE_STATE);
  if (state) {
    const differences = compareRequests(state.request, request);
    if (differences.length > 0) {
      throw new ResumeError(
        `The saved progress of ${target} is of another export: ${differences.join("; ")}. ` +
          "Run again with the same options to continue it.",
        final,
        { to: "to discard it" },
      );
    }
    // Killed after the folder took its name, before its state was removed: the dataset is whole.
    if (state.complete && !fs.existsSync(dir) && fs.existsSync(path.join(final, SUCCESS_MARKER))) {
      await removeAtomicFile(statePath);
      return { ...completeResult(state.complete, final), resumedFrom: countOf(state.complete) };
    }
  }
  if (fs.existsSync(final) && !options.force) throw new TargetExistsError(target);
  if (options.restart) await discardProgress(final, lock);
  if (state) {
    await checkProgressDirectory(dir, target, final);
    if (state.complete) {
      await place(state.complete, dir, final, statePath, target, options.force ?? false);
      return { ...completeResult(state.complete, final), resumedFrom: countOf(state.complete) };
    }
  } else {
    await fs.promises.rm(dir, { recursive: true, force: true });
    try {
      await fs.promises.mkdir(dir);
    } catch (error) {
      throw new OutputError(`Cannot create ${target}: ${describeWriteError(error, path.dirname(final))}`, final, {
        cause: error,
      });
    }
    state = { request, cursor: null, folders: [] };
    await writeSealedState(statePath, state, HIVE_STATE);
  }

  const start = state.cursor ?? undefined;
  const tracker = new CommittedCursor(start);
  const folders = new Set(state.folders);
  // Saved one at a time, in order, so a later state never lands before an earlier one.
  let saving = Promise.resolve();
  let saveFailure: { error: unknown } | undefined;
  const save = (): void => {
    const next: HiveState = { request, cursor: tracker.cursor ?? null, folders: [...folders] };
    saving = saving
      .then(() => writeSealedState(statePath, next, HIVE_STATE))
      .catch((error: unknown) => void (saveFailure ??= { error }));
  };
  const pages = start === undefined ? source.walk(walk) : source.walk({ ...walk, query: afterId(walk.query, start) });
  try {
    const routed = await routePartitions(pages, hive, {
      opened: state.folders,
      open: async (folder) => {
        const file = path.join(dir, folder, PART);
        await fs.promises.mkdir(path.dirname(file), { recursive: true });
        folders.add(folder);
        const part = await ResumableFile.open(
          file,
          { ...request, options: { ...request.options, partition: folder } },
          {
            label: `${target} (${folder})`,
            force: true,
            lock,
            placeLater: true,
            onCommit: (progress) => {
              tracker.committed(folder, progress.cursor);
              save();
            },
          },
        );
        return { target: part, after: part.resumed?.cursor };
      },
      onRouted: (folder, lastId) => tracker.routed(folder, lastId),
      onPageRouted: (lastId) => tracker.pageRouted(lastId),
      write,
      onProgress: options.onProgress,
      ...(options.strict ? { strict: { ...options.strict, resumed: start !== undefined } } : {}),
    });
    await saving;
    if (saveFailure) throw saveFailure.error;
    const complete = {
      parts: routed.parts.map((p) => ({ folder: p.folder, items: p.result.items, bytes: p.result.bytes })),
      pages: routed.pages,
    };
    await writeSealedState(
      statePath,
      { request, cursor: tracker.cursor ?? null, folders: [...folders], complete },
      HIVE_STATE,
    );
    await place(complete, dir, final, statePath, target, options.force ?? false);
    const kept = routed.parts.reduce((n, p) => n + (p.result.resumedFrom ?? 0), 0);
    return {
      ...completeResult(complete, final),
      warnings: routed.warnings,
      ...(kept > 0 ? { resumedFrom: kept } : {}),
    };
  } catch (error) {
    await saving;
    // Refusals about the data (too many values, a column empty with strict) would meet a second run again.
    if (error instanceof EmptyColumnError || (error instanceof ValidationError && error.option === "partitionBy"))
      await discardProgress(final, lock);
    throw error;
  }
}

/**
 * The last steps of a complete dataset, each safe to repeat after a kill: every file renamed to
 * its name (and its state removed), `_SUCCESS`, the folder renamed to the target, its state removed.
 */
async function place(
  complete: NonNullable<HiveState["complete"]>,
  dir: string,
  final: string,
  statePath: string,
  target: string,
  force: boolean,
): Promise<void> {
  for (const part of complete.parts)
    await placeFinished(path.join(dir, part.folder, PART), `${target} (${part.folder})`);
  await writeSuccessMarker(dir, target);
  await placeDir(dir, final, target, force);
  commitPoint("placed", final);
  await removeAtomicFile(statePath);
  commitPoint("cleared", statePath);
}

/** The result of a complete dataset, from what its state says of each folder. */
function completeResult(complete: NonNullable<HiveState["complete"]>, final: string): PartitionedExportResult {
  return datasetResult(complete.parts, complete.pages, final);
}

function countOf(complete: NonNullable<HiveState["complete"]>): number {
  return complete.parts.reduce((n, p) => n + p.items, 0);
}
