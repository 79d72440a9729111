/** The platform API version this package speaks and serves. */
export const API_VERSION = "2018-10-01";

/** Path prefix of every endpoint, e.g. `/api/2018-10-01/materials`. */
export const API_PREFIX = `/api/${API_VERSION}`;

/** The specification's default page size when `limit` is not given. */
export const DEFAULT_LIMIT = 50;

/** The largest `limit` the platform accepts. */
export const MAX_LIMIT = 500;
