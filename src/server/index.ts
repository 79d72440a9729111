// The local platform: `startServer` and what its options and errors need.
export { startServer } from "./start-server";
export type { ServerHandle } from "./start-server";
export type { JobEnd } from "./collections/job-ends";
export { isLoopbackHost } from "../loopback";
export type { StartServerOptions } from "./server-options";
export type { CompressionMode } from "./http/compression";
export type { RequestWarmUpReport, WarmUpReport } from "./http/warm-up";
export type { WarmResults } from "./http/warm-forms";
export type { Lockout, LoginThrottleOptions } from "./auth/login-throttle";
export type { SessionLimits, UserAccount } from "./auth/auth";
export type { UserCodeLimits } from "./auth/code-attempts";
export type { DeviceFlowOptions } from "./auth/device-flow";

export { SYNTHETIC_TAG } from "./records/synthetic";
