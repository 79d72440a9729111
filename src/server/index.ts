// The local platform: `startServer` and what its options and errors need.
export { startServer } from "./start-server";
export type { ServerHandle } from "./start-server";
export { isLoopbackHost } from "./server-options";
export type { StartServerOptions } from "./server-options";
export type { UserAccount } from "./auth";

export { SYNTHETIC_TAG } from "./synthetic";
