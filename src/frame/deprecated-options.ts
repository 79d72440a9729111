// The 0.2 names of the export options, named by format then verb; the options are now named per
// verb and format (`exportCsv` takes `ExportCsvOptions`), as nodejs-polars names its own. These
// aliases keep 0.x code compiling and go in 1.0.
import type { ToArrowOptions } from "./export/arrow";
import type { ExportCsvOptions } from "./export/export";
import type { ExportParquetOptions } from "./export/parquet";

/** @deprecated Renamed {@link ExportCsvOptions}; this name goes in 1.0. */
export type CsvExportOptions = ExportCsvOptions;

/** @deprecated Renamed {@link ExportParquetOptions}; this name goes in 1.0. */
export type ParquetExportOptions = ExportParquetOptions;

/** @deprecated Renamed {@link ToArrowOptions}; this name goes in 1.0. */
export type ArrowOptions = ToArrowOptions;
