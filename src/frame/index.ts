// The frame layer's surface; src/index.ts re-exports it by name.
export { toDataFrame } from "./dataframe/to-dataframe";
export type { TableOptions, ToDataFrameOptions } from "./dataframe/to-dataframe";
export type { Comparand, DataFrame, Dtype, GroupBy, Scalar, Series, StringAccessor } from "./dataframe/dataframe";
export type { Cell } from "./table/column-builder";
export type { FrameIterateOptions, CollectionFrameOptions, CollectionArrowOptions } from "./collection-reads";
export type { CollectionCsvOptions, CollectionNdjsonOptions, CollectionParquetOptions } from "./collection-io";
export { exportParquet } from "./export/parquet";
export type { ExportParquetOptions, ParquetCompression } from "./export/parquet";
export type { ColumnType } from "./table/column-types";
export { toArrow } from "./export/arrow";
export type { ArrowTable, ArrowVector, ToArrowOptions } from "./export/arrow";
export type { PartitionOptions, PartitionedExportResult } from "./export/partitioned-export";
export type { PartitionByOptions } from "./export/dataset/hive-export";
export { DEFAULT_COLUMNS } from "./table/column-spec";
export { exportCsv, exportNdjson } from "./export/export";
export type {
  ExportTarget,
  PageSource,
  TableSource,
  ExportOptions,
  ExportCsvOptions,
  ExportNdjsonOptions,
  ExportResult,
} from "./export/export";
export type { FrameWarning, ReadOptions } from "./table/row-reader";
export type { WarningHandler } from "./table/warnings";
export type { StructureExportOptions, StructureExportResult, StructureFormat } from "./export/structure-export";
export type { ResumeOptions } from "./export/resume/resume-plan";
export { RESULT_COLUMNS } from "./results/results-plan";
export type {
  ResultsFrameOptions,
  ResultsCsvOptions,
  ResultsNdjsonOptions,
  ResultsParquetOptions,
  LinkedColumn,
} from "./results/results-plan";
export { JOB_COLUMNS, PROJECT_COLUMNS, PROPERTY_COLUMNS, WORKFLOW_COLUMNS } from "./unit-rows";
export type { CsvExportOptions, ParquetExportOptions, ArrowOptions } from "./deprecated-options";
