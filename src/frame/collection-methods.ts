// `collection.toDataFrame()`, `toArrow()` and the `export*` methods, registered on `Collection`
// from the frame side: the client knows nothing of tables, and the frame reads a collection only
// through the client's public `RecordWalker`. The package root (src/index.ts) imports this module;
// it loads nothing heavy itself: the readers and writers (danfo, CSV, Parquet) load on first call.
import { Collection } from "../client/collection";
import { RecordWalker } from "../client/record-walker";
import type { PlatformRecord } from "../client/platform-record";
import type { CollectionArrowOptions, CollectionFrameOptions } from "./collection-reads";
import type { CollectionCsvOptions, CollectionNdjsonOptions, CollectionParquetOptions } from "./collection-io";
import type { ArrowTable } from "./export/arrow";
import type { ExportResult, ExportTarget } from "./export/export";
import type { StructureExportOptions, StructureExportResult } from "./export/structure-export";
import type { DataFrame } from "./dataframe/dataframe";
import { registerFrameMethods } from "./frame-methods";

declare module "../client/collection" {
  interface Collection<R extends PlatformRecord = PlatformRecord> {
    /**
     * Every matching record as one row of a danfo DataFrame, with the columns asked for (only
     * the fields they need cross the wire). Columns fill while pages stream; the frame is built
     * once at the end. danfojs-node (an optional peer) is loaded on first use.
     *
     * @example
     * const df = await client.materials.toDataFrame({
     *   query: { "lattice.type": "FCC" },
     *   columns: ["formula", "lattice.a", "derivedProperties.density"],
     * });
     */
    toDataFrame(options?: CollectionFrameOptions): Promise<DataFrame>;

    /**
     * Every matching record as one row of an apache-arrow `Table` with typed columns (the same
     * columns and types as `exportParquet`), for any Arrow consumer (DuckDB, Arquero, Perspective)
     * without copying through rows. apache-arrow (an optional peer) is loaded on first use.
     * @example const table = await client.materials.toArrow({ columns: ["formula", "lattice.a"] });
     */
    toArrow(options?: CollectionArrowOptions): Promise<ArrowTable>;

    /**
     * Writes every matching record as CSV to a file (atomically: a temporary file renamed on
     * success; an existing file needs `force`) or to a writable stream, page by page.
     *
     * @example
     * const { items, path } = await client.materials.exportCsv("materials.csv", { columns: ["formula", "lattice.a"] });
     */
    exportCsv(target: ExportTarget, options?: CollectionCsvOptions): Promise<ExportResult>;

    /**
     * Writes every matching record as NDJSON, one object per line keyed by column; otherwise as
     * {@link Collection.exportCsv}.
     * @example await client.materials.exportNdjson(process.stdout, { columns: ["formula", "lattice"] });
     */
    exportNdjson(target: ExportTarget, options?: CollectionNdjsonOptions): Promise<ExportResult>;

    /**
     * Writes every matching record as one Parquet file with typed columns (double, int32/int64,
     * boolean, string; nulls as nulls), a row group at a time while pages stream, atomically as
     * {@link Collection.exportCsv}. DuckDB, pandas, polars and Spark read it in place. With
     * `partitionBy`, a hive-partitioned dataset folder (`lattice.type=FCC/part-0000.parquet`, ...).
     * @example await client.materials.exportParquet("materials.parquet", { columns: ["formula", "lattice.a"] });
     */
    exportParquet(target: ExportTarget, options?: CollectionParquetOptions): Promise<ExportResult>;

    /**
     * Writes the structure of every matching material as a file (`format`: `"poscar"`, `"cif"`,
     * `"cif-symmetrized"` or `"xyz"`; see `STRUCTURE_FILE_FORMATS`) into the directory `dir`, with an `index.csv`, page by page; the directory appears
     * only when complete (an existing one needs `force`). xyz can also go to one multi-frame file
     * (`singleFile: true`, `dir` is then the file).
     * @example await client.materials.exportStructures("structures", { query: { formula: "Si" }, format: "cif" });
     */
    exportStructures(dir: string, options: StructureExportOptions): Promise<StructureExportResult>;
  }
}

registerFrameMethods(Collection.prototype as Collection, {
  async readFrame(collection, options: CollectionFrameOptions) {
    return (await import("./collection-reads.js")).readCollectionFrame(new RecordWalker(collection), options);
  },
  async readArrow(collection, options: CollectionArrowOptions) {
    return (await import("./collection-reads.js")).readCollectionArrow(new RecordWalker(collection), options);
  },
  async exportTable(collection, format, target, options: CollectionParquetOptions & CollectionCsvOptions) {
    return (await import("./collection-io.js")).exportCollection(new RecordWalker(collection), format, target, options);
  },
  async exportStructures(collection, dir, options: StructureExportOptions) {
    const io = await import("./export/structure-export.js");
    const walker = new RecordWalker(collection);
    const plan = io.planStructureExport(options);
    if (!plan.resume) return io.writeStructures(walker, dir, plan, options);
    const { platform, account } = walker.source;
    const resumable = await import("./export/structure-resume.js");
    return resumable.writeStructuresResumable(walker, dir, plan, options, {
      platform: options.resumePlatform ?? platform,
      account,
    });
  },
});
