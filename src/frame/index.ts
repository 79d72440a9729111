// The frame layer's surface; src/index.ts re-exports it by name.
export { Client } from "./client";
export { FrameCollection } from "./frame-collection";
export type {
  FrameProgress,
  FrameIterateOptions,
  CollectionFrameOptions,
  CollectionCsvOptions,
  CollectionNdjsonOptions,
} from "./frame-collection";
export { toDataFrame } from "./to-dataframe";
export type { DataFrame, TableOptions, ToDataFrameOptions } from "./to-dataframe";
export { DEFAULT_COLUMNS } from "./column-spec";
export { exportCsv, exportNdjson } from "./export";
export type {
  ExportTarget,
  PageSource,
  ExportProgress,
  ExportOptions,
  CsvExportOptions,
  ExportResult,
} from "./export";
export type { FrameWarning, ReadOptions } from "./row-reader";
export type { WarningHandler } from "./warnings";
export { InvalidMethodError, TargetExistsError, MissingDependencyError, OutputError } from "../errors";
