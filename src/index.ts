// The one public door of matframe: every export is named here. Loading it loads the client and
// the schemas only; the frame layer (CSV, danfo) and the local platform load on first use.

// The wire: constants and the schemas of what crosses it.
export {
  API_VERSION,
  DEFAULT_LIMIT,
  MAX_LIMIT,
  Method,
  MaterialRecord,
  Lattice,
  Projection,
  Fields,
  Sort,
} from "./schemas";
export {
  Application,
  Model,
  WorkflowUnit,
  Subworkflow,
  WorkflowRecord,
  JobRecord,
  ProjectRecord,
  PropertyRecord,
  EntityReference,
  JobStatus,
  FINAL_JOB_STATUSES,
  JobFile,
} from "./schemas";
export type { Query } from "./schemas";

// The client and its collections.
export {
  Client,
  Collection,
  JobsCollection,
  MaterialsCollection,
  WorkflowsCollection,
  credentialsPath,
  readProfile,
  saveProfile,
  deleteProfile,
  listProfiles,
  DEFAULT_PROFILE,
} from "./client";
export { deviceLogin, refreshDeviceTokens, revokeDeviceToken, signedInUser, DEVICE_CLIENT_ID } from "./client";
export type {
  DevicePrompt,
  DeviceTokens,
  DeviceLoginOptions,
  DeviceRequestOptions,
  SignedInUser,
  WriteOptions,
  Modifier,
  ImportOptions,
  SavedCredentials,
  ClientOptions,
  LoginOptions,
  TransportSettings,
  CacheSetting,
  FromEnvOptions,
  GetDataOptions,
  Connection,
  ResponseCheck,
  CheckResult,
  ListOptions,
  IterateOptions,
  Progress,
  DuplicateInfo,
  PlatformRecord,
  Projected,
  RecordOf,
  CreateJobOptions,
  RecordReference,
  WorkflowReference,
  WaitForJobsOptions,
  JobWaitProgress,
  JobState,
  DownloadOptions,
  DownloadedFile,
  CreateSetOptions,
  MoveToSetOptions,
} from "./client";

// OPTIMADE providers: the client, and the wire shapes it reads.
export { OptimadeClient, OptimadeEntries } from "./client/optimade";
export type {
  OptimadeClientOptions,
  OptimadeIterateOptions,
  ResolvedOptimadeWalk,
  OptimadeProgress,
  OptimadeDatabase,
  ResolvedProvider,
} from "./client/optimade";
export { OPTIMADE_API_VERSION, OptimadeEntry } from "./schemas/optimade";
import "./frame/optimade/optimade-methods";
export { OPTIMADE_COLUMNS } from "./frame/optimade";
export type {
  OptimadeTableProgress,
  OptimadeReadOptions,
  OptimadeFrameOptions,
  OptimadeArrowOptions,
  OptimadeCsvOptions,
  OptimadeParquetOptions,
  OptimadeStructureOptions,
} from "./frame/optimade";

// Tables and files from any records; and a collection's own (`toDataFrame`, `export*`) and
// `client.results`, which the frame registers on `Collection` and `Client` (their readers and
// writers still load on first use).
import "./frame/collection-methods";
import "./frame/results/results-view";
export { ResultsView } from "./frame/results/results-view";
export {
  toDataFrame,
  toArrow,
  DEFAULT_COLUMNS,
  RESULT_COLUMNS,
  WORKFLOW_COLUMNS,
  JOB_COLUMNS,
  PROJECT_COLUMNS,
  PROPERTY_COLUMNS,
  exportCsv,
  exportNdjson,
  exportParquet,
} from "./frame";
export type {
  DataFrame,
  Series,
  GroupBy,
  StringAccessor,
  Comparand,
  Dtype,
  Scalar,
  Cell,
  TableOptions,
  ToDataFrameOptions,
  FrameIterateOptions,
  CollectionFrameOptions,
  CollectionCsvOptions,
  CollectionNdjsonOptions,
  CollectionParquetOptions,
  CollectionArrowOptions,
  ParquetExportOptions,
  ParquetCompression,
  ColumnType,
  ArrowTable,
  ArrowVector,
  ArrowOptions,
  PartitionOptions,
  PartitionByOptions,
  PartitionedExportResult,
  ExportTarget,
  PageSource,
  TableSource,
  ExportOptions,
  CsvExportOptions,
  ExportResult,
  FrameWarning,
  ReadOptions,
  WarningHandler,
  StructureExportOptions,
  StructureExportResult,
  StructureFormat,
  ResumeOptions,
  ResultsFrameOptions,
  ResultsCsvOptions,
  ResultsNdjsonOptions,
  ResultsParquetOptions,
  LinkedColumn,
} from "./frame";

// The local platform.
export { startServer } from "./server/load";
export type {
  StartServerOptions,
  ServerHandle,
  UserAccount,
  CompressionMode,
  Lockout,
  LoginThrottleOptions,
  DeviceFlowOptions,
} from "./server";

// Every error matframe throws.
export {
  MatframeError,
  ValidationError,
  ClientClosedError,
  RequestError,
  ApiError,
  BadRequestError,
  OptimadeFilterError,
  AuthenticationError,
  DeviceLoginError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  ServerError,
  ConnectionError,
  TimeoutError,
  JobWaitTimeoutError,
  AbortError,
  ResponseValidationError,
  ResponseTooLargeError,
  DuplicateRecordError,
  InvalidMethodError,
  RecordShapeError,
  StructureError,
  ColumnTypeError,
  FrameOperationError,
  EmptyColumnError,
  MissingDependencyError,
  TargetExistsError,
  ResumeError,
  CredentialsFileError,
  OutputError,
  ServerOptionsError,
  DatasetError,
} from "./errors";
export type { ApiErrorDetails, Remedy } from "./errors";

// Structures: POSCAR, CIF and extended XYZ out and in, and the cell maths.
export {
  toPoscar,
  fromPoscar,
  toCif,
  fromCif,
  toXyz,
  fromXyz,
  structureOf,
  cellOf,
  parametersToVectors,
  vectorsToParameters,
  fractionalToCartesian,
  cartesianToFractional,
  cellVolume,
  symmetryOf,
  symmetryOrNull,
  DEFAULT_SYMPREC,
  toSymmetrizedCif,
  standardCell,
  platformDerivedProperties,
} from "./structure";
export type {
  StructureRecord,
  Structure,
  PlatformStructure,
  CellParameters,
  Matrix3,
  Vector3,
  Symmetry,
  SymmetryOptions,
  SymmetrySite,
  SymmetryOperation,
  CrystalSystem,
  CellChoice,
} from "./structure";
