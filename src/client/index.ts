// The client's surface; src/index.ts re-exports it by name.
export { Client } from "./client";
export type { FromEnvOptions, GetDataOptions } from "./client";
export type { Connection } from "./connection";
export { Collection } from "./collection";
export { JobsCollection, MaterialsCollection, WorkflowsCollection } from "./collections";
export type {
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
} from "./collections";
export type { PlatformRecord, Projected, RecordOf } from "./collection";
export type {
  TransportSettings,
  ClientOptions,
  LoginOptions,
  ListOptions,
  IterateOptions,
  Progress,
  DuplicateInfo,
} from "./config/options";
export type { ResponseCheck, CheckResult } from "./transport/response-checks";
export type { CacheSetting } from "./transport/response-cache";
export type { WriteOptions, Modifier, ImportOptions } from "./writes";
export {
  credentialsPath,
  readProfile,
  saveProfile,
  deleteProfile,
  listProfiles,
  DEFAULT_PROFILE,
} from "./config/profile";
export type { SavedCredentials } from "./config/profile";
export { deviceLogin, refreshDeviceTokens, revokeDeviceToken, signedInUser, DEVICE_CLIENT_ID } from "./device-login";
export type {
  DevicePrompt,
  DeviceTokens,
  DeviceLoginOptions,
  DeviceRequestOptions,
  SignedInUser,
} from "./device-login";
