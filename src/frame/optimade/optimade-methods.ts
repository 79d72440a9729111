// `op.structures.toDataFrame()`, `toArrow()` and the `export*` methods, registered on
// `OptimadeEntries` from the frame side by the registration a collection's use too
// (frame-methods.ts): the client knows nothing of tables. The readers and writers load on first call.
import { OptimadeEntries } from "../../client/optimade/optimade-client";
import type { ArrowTable } from "../export/arrow";
import type { ExportResult, ExportTarget } from "../export/export";
import type { StructureExportResult } from "../export/structure-export";
import type { DataFrame } from "../dataframe/dataframe";
import { registerFrameMethods } from "../frame-methods";
import type {
  OptimadeArrowOptions,
  OptimadeCsvOptions,
  OptimadeFrameOptions,
  OptimadeNdjsonOptions,
  OptimadeParquetOptions,
  OptimadeStructureOptions,
} from "./optimade-io";

declare module "../../client/optimade/optimade-client" {
  interface OptimadeEntries {
    /**
     * Every entry the filter matches as one row of a danfo DataFrame. Columns are OPTIMADE
     * property names (sent as `response_fields`), matframe's computed columns and
     * `derivedProperties.volume`/`density`; danfojs-node is loaded on first use.
     * @example
     * const df = await op.structures.toDataFrame({
     *   filter: 'elements HAS "Si" AND nelements=2',
     *   columns: ["id", "chemical_formula_reduced", "matframe:spaceGroupSymbol", "derivedProperties.density"],
     *   pageSize: 100,
     *   maxItems: 500,
     * });
     */
    toDataFrame(options?: OptimadeFrameOptions): Promise<DataFrame>;
    /** Every matching entry as one row of an apache-arrow `Table` (the columns of {@link OptimadeEntries.toDataFrame}). */
    toArrow(options?: OptimadeArrowOptions): Promise<ArrowTable>;
    /**
     * Every matching entry as CSV, to a file (atomically; `resume` keeps progress beside it) or a stream.
     * @example await op.structures.exportCsv("si.csv", { filter: 'elements HAS "Si"', columns: ["id", "nsites"] });
     */
    exportCsv(target: ExportTarget, options?: OptimadeCsvOptions): Promise<ExportResult>;
    /** Every matching entry as NDJSON; otherwise as {@link OptimadeEntries.exportCsv}. */
    exportNdjson(target: ExportTarget, options?: OptimadeNdjsonOptions): Promise<ExportResult>;
    /** Every matching entry as one Parquet file with typed columns; otherwise as {@link OptimadeEntries.exportCsv}. */
    exportParquet(target: ExportTarget, options?: OptimadeParquetOptions): Promise<ExportResult>;
    /**
     * Each matching entry's structure (`lattice_vectors`, `cartesian_site_positions`,
     * `species_at_sites`) as a POSCAR, CIF or XYZ file in `dir`, with an `index.csv`. Entries
     * without a complete ordered structure (mixed sites, vacancies) are skipped with a warning.
     * @example await op.structures.exportStructures("si", { filter: 'elements HAS "Si"', format: "cif" });
     */
    exportStructures(dir: string, options: OptimadeStructureOptions): Promise<StructureExportResult>;
  }
}

registerFrameMethods(OptimadeEntries.prototype, {
  async readFrame(entries, options: OptimadeFrameOptions) {
    return (await import("./optimade-io.js")).readOptimadeFrame(entries, options);
  },
  async readArrow(entries, options: OptimadeArrowOptions) {
    return (await import("./optimade-io.js")).readOptimadeArrow(entries, options);
  },
  async exportTable(entries, format, target, options: OptimadeCsvOptions & OptimadeParquetOptions) {
    return (await import("./optimade-io.js")).exportOptimadeTable(entries, format, target, options);
  },
  async exportStructures(entries, dir, options: OptimadeStructureOptions) {
    return (await import("./optimade-io.js")).exportOptimadeStructures(entries, dir, options);
  },
});
