// The frame methods (`toDataFrame`, `toArrow`, `exportCsv`, `exportNdjson`, `exportParquet`,
// `exportStructures`) as one registration that every record source the client knows shares: a
// platform collection (collection-methods.ts) and an OPTIMADE provider's entries
// (optimade/optimade-methods.ts). Each source says only how it reaches the readers and writers,
// which it loads on first call; the methods' names, defaults and table formats live here once.
import type { ArrowTable } from "./export/arrow";
import type { ExportResult, ExportTarget } from "./export/export";
import type { StructureExportResult } from "./export/structure-export";
import type { DataFrame } from "./dataframe/dataframe";

/** The table formats, each written by its own export method. */
export const TABLE_EXPORT_METHODS = {
  csv: "exportCsv",
  ndjson: "exportNdjson",
  parquet: "exportParquet",
} as const;

/** `"csv" | "ndjson" | "parquet"`. */
export type TableExportFormat = keyof typeof TABLE_EXPORT_METHODS;

/**
 * How one kind of record source reaches the frame's readers and writers (each member loads
 * its module on first call, so registering costs nothing). The option types are the source's.
 */
export interface FrameAdapter<Source, FrameOptions, ArrowOptions, TableOptions, StructureOptions> {
  readFrame(source: Source, options: FrameOptions): Promise<DataFrame>;
  readArrow(source: Source, options: ArrowOptions): Promise<ArrowTable>;
  exportTable(
    source: Source,
    format: TableExportFormat,
    target: ExportTarget,
    options: TableOptions,
  ): Promise<ExportResult>;
  exportStructures(source: Source, dir: string, options: StructureOptions): Promise<StructureExportResult>;
}

/**
 * Defines the frame methods on `prototype` (a class's prototype, whose interface the caller
 * augments with their documented signatures), each calling `adapter` with the instance. They are
 * defined as class methods are (not enumerable), so an instance looks the same as before. An
 * omitted options object is an empty one.
 */
export function registerFrameMethods<Source extends object, FrameOptions, ArrowOptions, TableOptions, StructureOptions>(
  prototype: Source,
  adapter: FrameAdapter<Source, FrameOptions, ArrowOptions, TableOptions, StructureOptions>,
): void {
  const table = (format: TableExportFormat) =>
    function (this: Source, target: ExportTarget, options?: TableOptions): Promise<ExportResult> {
      return adapter.exportTable(this, format, target, options ?? ({} as TableOptions));
    };
  const methods: Record<string, (this: Source, ...args: never[]) => Promise<unknown>> = {
    toDataFrame(this: Source, options?: FrameOptions) {
      return adapter.readFrame(this, options ?? ({} as FrameOptions));
    },
    toArrow(this: Source, options?: ArrowOptions) {
      return adapter.readArrow(this, options ?? ({} as ArrowOptions));
    },
    exportStructures(this: Source, dir: string, options: StructureOptions) {
      return adapter.exportStructures(this, dir, options);
    },
  };
  for (const [format, name] of Object.entries(TABLE_EXPORT_METHODS)) methods[name] = table(format as TableExportFormat);
  for (const [name, method] of Object.entries(methods)) {
    Object.defineProperty(prototype, name, { value: method, writable: true, configurable: true, enumerable: false });
  }
}
