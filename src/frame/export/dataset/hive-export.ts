// Hive-partitioned Parquet datasets: a folder with one sub-folder per value of a column
// (`lattice.type=FCC/part-0000.parquet`), and the `_SUCCESS` marker written last. The dataset
// appears at its target only complete: built under a hidden name and renamed, or (resumable) kept
// under a hidden name with its progress until a later run finishes it.
import * as fs from "node:fs";
import * as path from "node:path";
import type { Progress } from "../../../client/config/options";
import type { PlatformRecord } from "../../../client/platform-record";
import type { ResolvedIterateOptions } from "../../../client/config/validate-options";
import { afterId } from "../../../client/paging/partitions";
import { EmptyColumnError, OutputError, ResumeError, TargetExistsError, ValidationError } from "../../../errors";
import { describeWriteError, removeAtomicFile } from "../atomic/atomic-file";
import { openAtomicDir, placeDir } from "../atomic/atomic-dir";
import type { ExportTarget, PageSource } from "../export";
import type { PartitionedExportResult } from "../partitioned-export";
import {
  checkProgressDirectory,
  discardProgress,
  resumePaths,
  withOutputLock,
  type OutputLock,
} from "../resume/progress-files";
import { ResumableFile } from "../resume/resumable-file";
import { compareRequests, type ResumeRequest } from "../resume/resume-plan";
import { readSealedState, writeSealedState, type StateLayout } from "../resume/sealed-state";
import { CommittedCursor } from "./committed-cursor";
import { writeSuccessMarker } from "./success-marker";
import { routePartitions, type HivePlan, type PartitionWrite, type RouteOptions, type Routed } from "./hive-router";

/** Options of a hive-partitioned export, beside the format's own. */
export interface PartitionByOptions {
  /**
   * Write a dataset folder with one sub-folder per value of this column, named as Hive and Spark
   * name them (`lattice.type=FCC/part-0000.parquet`; null is `__HIVE_DEFAULT_PARTITION__`), and an
   * empty `_SUCCESS` file written last. DuckDB (`hive_partitioning`), Polars, Spark and Arrow read
   * it as one table, the column restored from the folder names, and skip the folders a filter
   * rules out. The column must be one of `columns`; the files do not repeat it. For columns of
   * few values (at most 100): `lattice.type`, `method.subtype`. Parquet only; not with `partitions`.
   * @default undefined: one file
   */
  partitionBy?: string;
}

/** The file in each partition's folder (one writer per value writes one file). */
const PART = "part-0000.parquet";

type Common = { force?: boolean; onProgress?: (progress: Progress) => void; strict?: RouteOptions<unknown>["strict"] };

/** Writes a hive-partitioned dataset from one walk, at `target` only when every partition is complete. */
export async function writeHive(
  pages: PageSource,
  target: ExportTarget,
  hive: HivePlan,
  write: PartitionWrite<string>,
  options: Common,
): Promise<PartitionedExportResult> {
  if (typeof target !== "string") {
    throw new ValidationError(
      "partitionBy",
      "A partitioned export writes a folder of partition folders: give a directory path as the target, not a stream.",
    );
  }
  const dir = openAtomicDir(target, { force: options.force });
  try {
    const routed = await routePartitions(pages, hive, {
      open: async (folder) => {
        await fs.promises.mkdir(path.join(dir.tempPath, folder));
        return { target: path.join(dir.tempPath, folder, PART) };
      },
      write,
      onProgress: options.onProgress,
      strict: options.strict,
    });
    await writeSuccessMarker(dir.tempPath, target);
    await dir.commit();
    return result(routed, dir.path);
  } catch (error) {
    await dir.abort();
    throw error;
  }
}

/** A hive dataset's saved progress: where the walk resumes, and the folders it has. */
interface HiveState {
  readonly request: ResumeRequest;
  /** The `_id` after which every record is committed in its partition's file; null: none yet. */
  readonly cursor: string | null;
  readonly folders: readonly string[];
}

const HIVE_STATE: StateLayout<HiveState> = {
  valid: (state) => Array.isArray(state.folders) && (state.cursor === null || typeof state.cursor === "string"),
  sealed: (state) => ({ cursor: state.cursor, folders: state.folders }),
};

/**
 * Writes (or continues) a hive-partitioned dataset whose progress is kept for a later run: each
 * partition's file is a resumable file, and the dataset's state says where the walk resumes. One
 * lock covers the whole folder, taken before anything of it is read or removed.
 */
export function writeHiveResumable(
  source: { walk(resolved: ResolvedIterateOptions): AsyncIterable<PlatformRecord[]> },
  walk: ResolvedIterateOptions,
  target: string,
  hive: HivePlan,
  request: ResumeRequest,
  options: Common & { restart: boolean },
  write: PartitionWrite<ResumableFile>,
): Promise<PartitionedExportResult> {
  return withOutputLock(target, target, (lock) =>
    writeLocked(source, walk, target, hive, request, options, write, lock),
  );
}

async function writeLocked(
  source: { walk(resolved: ResolvedIterateOptions): AsyncIterable<PlatformRecord[]> },
  walk: ResolvedIterateOptions,
  target: string,
  hive: HivePlan,
  request: ResumeRequest,
  options: Common & { restart: boolean },
  write: PartitionWrite<ResumableFile>,
  lock: OutputLock,
): Promise<PartitionedExportResult> {
  const final = path.resolve(target);
  if (fs.existsSync(final) && !options.force) throw new TargetExistsError(target);
  if (options.restart) await discardProgress(final, lock);
  const { partial: dir, state: statePath } = resumePaths(final);
  let state = await readSealedState(statePath, target, HIVE_STATE);
  if (state) {
    const differences = compareRequests(state.request, request);
    if (differences.length > 0) {
      throw new ResumeError(
        `The saved progress of ${target} is of another export: ${differences.join("; ")}. ` +
          "Run again with the same options to continue it, or pass --restart (restart: true) to discard it.",
        final,
      );
    }
    await checkProgressDirectory(dir, target, final);
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
            onCommit: (progress) => {
              tracker.committed(folder, progress.cursor);
              save();
            },
          },
        );
        return { target: part, after: part.resumed?.cursor };
      },
      onRouted: (folder, lastId) => tracker.routed(folder, lastId),
      write,
      onProgress: options.onProgress,
      ...(options.strict ? { strict: { ...options.strict, resumed: start !== undefined } } : {}),
    });
    await saving;
    if (saveFailure) throw saveFailure.error;
    await writeSuccessMarker(dir, target);
    await placeDir(dir, final, target, options.force ?? false);
    await removeAtomicFile(statePath);
    const kept = routed.parts.reduce((n, p) => n + (p.result.resumedFrom ?? 0), 0);
    return { ...result(routed, final), ...(kept > 0 ? { resumedFrom: kept } : {}) };
  } catch (error) {
    await saving;
    // Refusals about the data (too many values, a column empty with strict) would meet a second run again.
    if (error instanceof EmptyColumnError || (error instanceof ValidationError && error.option === "partitionBy"))
      await discardProgress(final, lock);
    throw error;
  }
}

function result(routed: Routed, dir: string): PartitionedExportResult {
  const parts = [...routed.parts].sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
  return {
    items: parts.reduce((n, p) => n + p.result.items, 0),
    pages: routed.pages,
    bytes: parts.reduce((n, p) => n + p.result.bytes, 0),
    path: dir,
    parts: parts.map((p) => ({ path: path.join(dir, p.folder, PART), items: p.result.items })),
    warnings: routed.warnings,
  };
}
