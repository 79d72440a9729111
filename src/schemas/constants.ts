/** The platform API version this package speaks and serves. */
export const API_VERSION = "2018-10-01";

/** Path prefix of every endpoint, e.g. `/api/2018-10-01/materials`. */
export const API_PREFIX = `/api/${API_VERSION}`;

/** The specification's default page size when `limit` is not given. */
export const DEFAULT_LIMIT = 50;

/** The largest `limit` the platform accepts. */
export const MAX_LIMIT = 500;

/**
 * Keys that could reach an object's prototype. The platform refuses them anywhere in a query or
 * projection, so the client refuses them in column paths before sending.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);
