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
