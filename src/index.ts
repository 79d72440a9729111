// The one public door of matframe: every export is named here.
export {
  API_VERSION,
  DEFAULT_LIMIT,
  MAX_LIMIT,
  Method,
  Material,
  MaterialRecord,
  Lattice,
  Projection,
  LoginResult,
} from "./schemas";
export type { Query, Credentials } from "./schemas";
export { startServer } from "./server";
export { ServerOptionsError, DatasetError, RecordShapeError } from "./errors";
export type { StartServerOptions, ServerHandle, UserAccount } from "./server";
export {
  ApiClient,
  Collection,
  MatframeError,
  ApiError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  BadRequestError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  ServerError,
  ConnectionError,
  TimeoutError,
  AbortError,
  ResponseValidationError,
  ValidationError,
  ClientClosedError,
  DuplicateRecordError,
} from "./client";
export type {
  ClientClass,
  FromEnvOptions,
  GetDataOptions,
  TransportSettings,
  ClientOptions,
  LoginOptions,
  ListOptions,
  IterateOptions,
  PageInfo,
  DuplicateInfo,
  ResponseCheck,
  CheckResult,
  ApiErrorDetails,
} from "./client";
// Frame: the public `Client` is the frame client (collections that read into tables).
export {
  Client,
  FrameCollection,
  toDataFrame,
  DEFAULT_COLUMNS,
  exportCsv,
  exportNdjson,
  InvalidMethodError,
  TargetExistsError,
  MissingDependencyError,
  OutputError,
} from "./frame";
export type {
  DataFrame,
  TableOptions,
  ToDataFrameOptions,
  FrameProgress,
  FrameIterateOptions,
  CollectionFrameOptions,
  CollectionCsvOptions,
  CollectionNdjsonOptions,
  ExportTarget,
  PageSource,
  ExportProgress,
  ExportOptions,
  CsvExportOptions,
  ExportResult,
  FrameWarning,
  ReadOptions,
  WarningHandler,
} from "./frame";
