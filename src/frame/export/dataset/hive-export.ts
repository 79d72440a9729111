// Hive-partitioned Parquet datasets: a folder with one sub-folder per value of a column
// (`lattice.type=FCC/part-0000.parquet`), and the `_SUCCESS` marker written last. The dataset
// appears at its target only complete: built under a hidden name and renamed, or (resumable,
// hive-resumable.ts) kept under a hidden name with its progress until a later run finishes it.
import * as fs from "node:fs";
import * as path from "node:path";
import type { Progress } from "../../../client/config/options";
import { ValidationError } from "../../../errors";
import { openAtomicDir } from "../atomic/atomic-dir";
import { sweepWarnings } from "../atomic/stale-partials";
import { reportWarnings, type WarningHandler } from "../../table/warnings";
import type { ExportTarget, PageSource } from "../export";
import type { PartitionedExportResult } from "../partitioned-export";
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
export const PART = "part-0000.parquet";

/** Options every hive-partitioned export takes. */
export type HiveCommon = {
  force?: boolean;
  onProgress?: (progress: Progress) => void;
  /** Told of the unfinished folders of killed earlier exports removed before this one began. */
  onWarning?: WarningHandler;
  strict?: RouteOptions<unknown>["strict"];
};

/** Writes a hive-partitioned dataset from one walk, at `target` only when every partition is complete. */
export async function writeHive(
  pages: PageSource,
  target: ExportTarget,
  hive: HivePlan,
  write: PartitionWrite<string>,
  options: HiveCommon,
): Promise<PartitionedExportResult> {
  if (typeof target !== "string") {
    throw new ValidationError(
      "partitionBy",
      "A partitioned export writes a folder of partition folders: give a directory path as the target, not a stream.",
    );
  }
  const dir = openAtomicDir(target, { force: options.force });
  reportWarnings(sweepWarnings(dir.swept, target), options.onWarning);
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

function result(routed: Routed, dir: string): PartitionedExportResult {
  const parts = routed.parts.map((p) => ({ folder: p.folder, items: p.result.items, bytes: p.result.bytes }));
  return { ...datasetResult(parts, routed.pages, dir), warnings: routed.warnings };
}

/** A dataset's result from its folders' counts, the folders in name order. */
export function datasetResult(
  folders: readonly { readonly folder: string; readonly items: number; readonly bytes: number }[],
  pages: number,
  dir: string,
): PartitionedExportResult {
  const parts = [...folders].sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
  return {
    items: parts.reduce((n, p) => n + p.items, 0),
    pages,
    bytes: parts.reduce((n, p) => n + p.bytes, 0),
    path: dir,
    parts: parts.map((p) => ({ path: path.join(dir, p.folder, PART), items: p.items })),
    warnings: [],
  };
}
