// The client's surface; src/index.ts re-exports it by name.
export { Client } from "./client";
export type { FromEnvOptions, GetDataOptions } from "./client";
export { Collection } from "./collection";
export type { PlatformRecord, Projected } from "./collection";
export type {
  TransportSettings,
  ClientOptions,
  LoginOptions,
  ListOptions,
  IterateOptions,
  Progress,
  DuplicateInfo,
} from "./options";
export type { ResponseCheck, CheckResult } from "./response-checks";
export type { CacheSetting } from "./response-cache";
export type { WriteOptions, Modifier, ImportOptions } from "./writes";
export { credentialsPath, readProfile, saveProfile, deleteProfile, listProfiles, DEFAULT_PROFILE } from "./profile";
export type { SavedCredentials } from "./profile";
