// A partitioned export that can be resumed part by part: the dataset directory is filled under a
// hidden name beside the target, finished parts stay, and each unfinished part continues from its
// own cursor. The `_id` ranges are saved with the first run, so a resumed run splits the same way
// even when the collection changed in between.
import * as fs from "node:fs";
import * as path from "node:path";
import { describeWriteError, removeAtomicFile } from "./atomic/atomic-file";
import type { Progress } from "../../client/config/options";
import type { IdPartition } from "../../client/paging/partitions";
import type { ResolvedIterateOptions } from "../../client/config/validate-options";
import { OutputError, ResumeError, TargetExistsError } from "../../errors";
import { placeDir } from "./atomic/atomic-dir";
import type { ExportResult, PageSource } from "./export";
import type { PartitionedExportResult } from "./partitioned-export";
import type { PlatformRecord } from "../../client/platform-record";
import {
  checkProgressDirectory,
  discardProgress,
  resumePaths,
  withOutputLock,
  type OutputLock,
} from "./resume/progress-files";
import { placeFinished, ResumableFile } from "./resume/resumable-file";
import { compareRequests, type ResumeRequest } from "./resume/resume-plan";
import { readSealedState, writeSealedState, type StateLayout } from "./resume/sealed-state";
import { SUCCESS_MARKER, writeSuccessMarker } from "./dataset/success-marker";
import { commitPoint } from "./resume/commit-points";

/** A dataset's state: the parts' `_id` ranges, fixed by the first run, and the parts finished. */
interface DatasetState {
  readonly request: ResumeRequest;
  readonly ranges: readonly IdPartition[];
  /** Records of each finished part, by part index. */
  readonly finished: Record<string, number>;
}

/** What the partitioned resume needs from its collection. */
export interface PartSource {
  partitionRanges(resolved: ResolvedIterateOptions, parts: number, signal: AbortSignal): Promise<IdPartition[]>;
  partWalk(
    resolved: ResolvedIterateOptions,
    part: IdPartition,
    signal: AbortSignal,
    cursor?: string,
  ): AsyncIterable<PlatformRecord[]>;
}

/** A part written (or found written): its file's name in the dataset and what it holds. */
type PartDone = Pick<ExportResult, "items" | "bytes" | "warnings" | "resumedFrom"> & { readonly name: string };

type Write = (pages: PageSource, to: ResumableFile, onProgress: (progress: Progress) => void) => Promise<ExportResult>;

const DATASET_STATE: StateLayout<DatasetState> = {
  valid: (state) => Array.isArray(state.ranges) && typeof state.finished === "object" && state.finished !== null,
  sealed: (state) => ({ ranges: state.ranges, finished: state.finished }),
};

type Options = { force?: boolean; restart: boolean; onProgress?: (progress: Progress) => void };

/**
 * Writes (or continues) a partitioned export whose progress is kept for a later run. One lock
 * covers the whole dataset folder, taken before anything of it is read or removed.
 */
export function writePartitionedResumable(
  source: PartSource,
  walk: ResolvedIterateOptions,
  partitions: number,
  target: string,
  request: ResumeRequest,
  options: Options,
  write: Write,
): Promise<PartitionedExportResult> {
  return withOutputLock(target, target, (lock) =>
    writeLocked(source, walk, partitions, target, request, options, write, lock),
  );
}

async function writeLocked(
  source: PartSource,
  walk: ResolvedIterateOptions,
  partitions: number,
  target: string,
  request: ResumeRequest,
  options: Options,
  write: Write,
  lock: OutputLock,
): Promise<PartitionedExportResult> {
  const final = path.resolve(target);
  const { partial: dir, state: statePath } = resumePaths(final);
  if (!options.restart && fs.existsSync(path.join(final, SUCCESS_MARKER)) && !fs.existsSync(dir)) {
    // Killed after the folder took its name, before its state was removed: the dataset is whole.
    const whole = await readSealedState(statePath, target, DATASET_STATE);
    const parts = whole && compareRequests(whole.request, request).length === 0 ? finishedParts(whole) : undefined;
    if (parts) {
      await removeAtomicFile(statePath);
      const items = parts.reduce((n, p) => n + p.items, 0);
      return {
        items,
        pages: 0,
        bytes: 0,
        path: final,
        parts: parts.map((p) => ({ path: path.join(final, partName(p.index, request.format)), items: p.items })),
        warnings: [],
        resumedFrom: items,
      };
    }
  }
  if (fs.existsSync(final) && !options.force) throw new TargetExistsError(target);
  if (options.restart) await discardProgress(final, lock);
  const stop = new AbortController();
  let state: DatasetState | undefined = await readSealedState(statePath, target, DATASET_STATE);
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
    await checkProgressDirectory(dir, target, final);
  } else {
    const ranges = await source.partitionRanges(walk, partitions, stop.signal);
    await fs.promises.rm(dir, { recursive: true, force: true });
    try {
      await fs.promises.mkdir(dir);
    } catch (error) {
      throw new OutputError(`Cannot create ${target}: ${describeWriteError(error, path.dirname(final))}`, final, {
        cause: error,
      });
    }
    state = { request, ranges, finished: {} };
    await writeSealedState(statePath, state, DATASET_STATE);
  }

  const saved: DatasetState = state;
  const extension = request.format;
  const progress = saved.ranges.map((range) => ({ items: saved.finished[range.index] ?? 0, pages: 0, bytes: 0 }));
  const report = (): void => {
    options.onProgress?.(
      progress.reduce((sum, p) => ({
        items: sum.items + p.items,
        pages: sum.pages + p.pages,
        bytes: sum.bytes + p.bytes,
      })),
    );
  };
  // Part completions are recorded one at a time, so two finishing together both stay recorded.
  let saving = Promise.resolve();
  const finished: Record<string, number> = { ...saved.finished };
  const record = (index: number, items: number): Promise<void> => {
    finished[index] = items;
    saving = saving.then(() => writeSealedState(statePath, { ...saved, finished }, DATASET_STATE));
    return saving;
  };

  let first: { error: unknown } | undefined;
  const results = await Promise.allSettled(
    saved.ranges.map(async (range, i): Promise<PartDone> => {
      const name = partName(range.index, extension);
      const file = path.join(dir, name);
      const label = `${target} (${name})`;
      const recorded = finished[range.index];
      if (recorded !== undefined) {
        // Recorded as finished before it was renamed: a run killed in between renames it now.
        await placeFinished(file, label);
        return {
          name,
          items: recorded,
          bytes: (await fs.promises.stat(file)).size,
          warnings: [],
          resumedFrom: recorded,
        };
      }
      try {
        const part = await ResumableFile.open(
          file,
          { ...request, options: { ...request.options, part: range.index } },
          { label, force: true, lock, placeLater: true },
        );
        const result = await write(source.partWalk(walk, range, stop.signal, part.resumed?.cursor), part, (p) => {
          progress[i] = { items: p.items, pages: p.pages, bytes: p.bytes ?? 0 };
          report();
        });
        // Its count is saved before it takes its name, so no kill between the two loses the part.
        await record(range.index, result.items);
        await placeFinished(file, label);
        return { name, ...result };
      } catch (error) {
        // The first failure is the cause; the others are the walks it stopped (each keeps its progress).
        first ??= { error };
        stop.abort(error);
        throw error;
      }
    }),
  );
  if (first) throw first.error;
  await saving;
  const done = results.map((r) => (r as PromiseFulfilledResult<PartDone>).value);
  const kept = done.reduce((n, r) => n + (r.resumedFrom ?? 0), 0);
  await writeSuccessMarker(dir, target);
  await placeDir(dir, final, target, options.force ?? false);
  commitPoint("placed", final);
  await removeAtomicFile(statePath);
  commitPoint("cleared", statePath);
  return {
    items: done.reduce((n, r) => n + r.items, 0),
    pages: progress.reduce((n, p) => n + p.pages, 0),
    bytes: done.reduce((n, r) => n + r.bytes, 0),
    path: final,
    parts: done.map((r) => ({ path: path.join(final, r.name), items: r.items })),
    warnings: done.flatMap((r) => r.warnings),
    ...(kept > 0 ? { resumedFrom: kept } : {}),
  };
}

function partName(index: number, extension: string): string {
  return `part-${String(index).padStart(4, "0")}.${extension}`;
}

/** Every part's index and records, when the state records every part as finished; else undefined. */
function finishedParts(state: DatasetState): { index: number; items: number }[] | undefined {
  const parts: { index: number; items: number }[] = [];
  for (const { index } of state.ranges) {
    const items = state.finished[index];
    if (typeof items !== "number") return undefined;
    parts.push({ index, items });
  }
  return parts;
}
