// The client's public surface; src/index.ts re-exports it by name.
export { ApiClient } from "./api-client";
export type { ClientClass, FromEnvOptions, GetDataOptions } from "./api-client";
export { Collection } from "./collection";
export type {
  TransportSettings,
  ClientOptions,
  LoginOptions,
  ListOptions,
  IterateOptions,
  PageInfo,
  DuplicateInfo,
} from "./options";
export type { ResponseCheck, CheckResult } from "./response-checks";
export {
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
} from "../errors";
export type { ApiErrorDetails } from "../errors";
