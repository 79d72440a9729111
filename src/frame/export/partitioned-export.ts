import * as path from "node:path";
import type { Progress } from "../../client/config/options";
import { ValidationError } from "../../errors";
import { openAtomicDir } from "./atomic/atomic-dir";
import { sweepWarnings } from "./atomic/stale-partials";
import { reportWarnings, type WarningHandler } from "../table/warnings";
import type { ExportResult, ExportTarget } from "./export";
import { writeSuccessMarker } from "./dataset/success-marker";

/** Options of a partitioned export, beside the format's own. */
export interface PartitionOptions {
  /**
   * Split the `_id` range into this many parts, walk them concurrently (each with its own keyset
   * cursor) and write a dataset directory of part files (`part-0000.parquet`, ...) that DuckDB,
   * pandas and Spark read as one table, and `_SUCCESS` when it is complete. The target is then a directory. Needs the `_id` order
   * (no `sort`) and no `maxItems`.
   * @default undefined: one walk, one file
   */
  partitions?: number;
}

/** What a partitioned export wrote. */
export interface PartitionedExportResult extends ExportResult {
  /** The dataset directory. */
  readonly path: string;
  /** Each part file and its record count, in `_id` order. */
  readonly parts: readonly { readonly path: string; readonly items: number }[];
}

/** Writes one part's pages to one file, reporting progress for that part. */
export type PartWriter = (
  pages: AsyncIterable<readonly unknown[]>,
  file: string,
  onProgress: (progress: Progress) => void,
) => Promise<ExportResult>;

/**
 * Walks every part concurrently and writes each to its own file in a temporary directory, renamed
 * to `target` when every part is complete. The first failure stops the other walks (through the
 * signal `openWalks` receives) and leaves nothing at the target.
 */
export async function writePartitioned(
  openWalks: (signal: AbortSignal) => Promise<AsyncIterable<readonly unknown[]>[]>,
  target: ExportTarget,
  extension: string,
  writePart: PartWriter,
  options: { force?: boolean; onProgress?: (progress: Progress) => void; onWarning?: WarningHandler },
): Promise<PartitionedExportResult> {
  if (typeof target !== "string") {
    throw new ValidationError(
      "partitions",
      "A partitioned export writes a directory of part files: give a directory path as the target, not a stream.",
    );
  }
  const stop = new AbortController();
  const walks = await openWalks(stop.signal);
  const dir = openAtomicDir(target, { force: options.force });
  reportWarnings(sweepWarnings(dir.swept, target), options.onWarning);
  const progress = walks.map(() => ({ items: 0, pages: 0, bytes: 0 }));
  const report = (): void => {
    const total = progress.reduce((sum, p) => ({
      items: sum.items + p.items,
      pages: sum.pages + p.pages,
      bytes: sum.bytes + (p.bytes ?? 0),
    }));
    options.onProgress?.(total);
  };
  const partName = (i: number): string => `part-${String(i).padStart(4, "0")}.${extension}`;
  let results: ExportResult[];
  let first: { error: unknown } | undefined;
  try {
    const settled = await Promise.allSettled(
      walks.map((pages, i) =>
        writePart(pages, path.join(dir.tempPath, partName(i)), (p) => {
          progress[i] = { items: p.items, pages: p.pages, bytes: p.bytes ?? 0 };
          report();
        }).catch((error: unknown) => {
          // The first failure is the cause; the others are the walks it stopped.
          first ??= { error };
          stop.abort(error);
          throw error;
        }),
      ),
    );
    if (first) throw first.error;
    results = settled.map((s) => (s as PromiseFulfilledResult<ExportResult>).value);
    await writeSuccessMarker(dir.tempPath, target);
    await dir.commit();
  } catch (error) {
    await dir.abort();
    throw error;
  }
  return {
    items: results.reduce((n, r) => n + r.items, 0),
    pages: results.reduce((n, r) => n + r.pages, 0),
    bytes: results.reduce((n, r) => n + r.bytes, 0),
    path: dir.path,
    parts: results.map((r, i) => ({ path: path.join(dir.path, partName(i)), items: r.items })),
    warnings: results.flatMap((r) => r.warnings),
  };
}
