// The frame layer's surface; src/index.ts re-exports it by name.
export { toDataFrame } from "./to-dataframe";
export type { TableOptions, ToDataFrameOptions } from "./to-dataframe";
export type { Comparand, DataFrame, Dtype, GroupBy, Scalar, Series, StringAccessor } from "./dataframe";
export type { Cell } from "./column-builder";
export type {
  FrameIterateOptions,
  CollectionFrameOptions,
  CollectionCsvOptions,
  CollectionNdjsonOptions,
  CollectionParquetOptions,
  CollectionArrowOptions,
} from "./collection-io";
export { exportParquet } from "./parquet";
export type { ParquetExportOptions, ParquetCompression } from "./parquet";
export type { ColumnType } from "./column-types";
export { toArrow } from "./arrow";
export type { ArrowTable, ArrowVector, ArrowOptions } from "./arrow";
export type { PartitionOptions, PartitionedExportResult } from "./partitioned-export";
export { DEFAULT_COLUMNS } from "./column-spec";
export { exportCsv, exportNdjson } from "./export";
export type { ExportTarget, PageSource, ExportOptions, CsvExportOptions, ExportResult } from "./export";
export type { FrameWarning, ReadOptions } from "./row-reader";
export type { WarningHandler } from "./warnings";
export type { StructureExportOptions, StructureExportResult, StructureFormat } from "./structure-export";
export type { ResumeOptions } from "./resumable";
