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
export { startServer, ServerOptionsError, DatasetError } from "./server";
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
