// The shapes that cross the wire, shared by the server and the client.
export { API_VERSION, API_PREFIX, DEFAULT_LIMIT, MAX_LIMIT, FORBIDDEN_KEYS } from "./constants";
export { jsendSuccess, JSendError, JSendEnvelope } from "./jsend";
export {
  ACCOUNT_ID_HEADER,
  AUTH_TOKEN_HEADER,
  HeaderCredentials,
  CamelCredentials,
  Credentials,
  LoginResult,
  LogoutResult,
} from "./login";
export { Method } from "./method";
export { Lattice, NamedValue, Material, MaterialRecord, MATERIAL_PATHS } from "./material";
export { Fields, Sort, Projection } from "./projection";
export type { Query } from "./projection";
export {
  DerivedProperty,
  VolumeProperty,
  DensityProperty,
  SymmetryProperty,
  ElementalRatioProperty,
  PNormProperty,
  P_NORM_DEGREES,
} from "./derived-properties";
export {
  EntityReference,
  Application,
  Model,
  WorkflowUnit,
  Subworkflow,
  WorkflowRecord,
  JobRecord,
  ProjectRecord,
  PropertyValue,
  PropertyRecord,
  JobStatus,
  FINAL_JOB_STATUSES,
  JobFile,
} from "./platform-records";
