// The whole error tree of matframe, in one file (openai-node's core/error.ts is the model).
// Every error matframe throws on purpose is a MatframeError with a stable `code`; HTTP errors
// are ApiErrors carrying `status`, `headers`, the server's message and the endpoint. Codes are a
// public contract (docs/client.md, "Errors"): never rename one.
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";

/**
 * The root of every error matframe throws on purpose. Catch this to catch them all;
 * switch on `code` (stable across versions) rather than on the message.
 */
export class MatframeError extends Error {
  /** A stable machine-readable code, e.g. `"ERR_AUTHENTICATION"`. */
  readonly code: string = "ERR_MATFRAME";
  override readonly name: string = "MatframeError";
  /** What was wrong, without the remedy (the whole message when there is no `remedy`). */
  readonly reason: string;
  /** What fixes it, as data, for a front end to word in its own terms (the CLI names its flags). */
  readonly remedy: Remedy | undefined;

  /** With `remedy`, `message` is the reason, and the message adds the remedy in the options' words. */
  constructor(message: string, options?: { cause?: unknown; remedy?: Remedy }) {
    super(options?.remedy ? withRemedy(message, options.remedy) : message, options);
    this.reason = message;
    this.remedy = options?.remedy;
  }
}

/** What fixes an error: one of a few forms, each worded by `withRemedy`. */
export type Remedy =
  /** Leave out any one of these options (by their option names). */
  | { readonly leaveOut: readonly string[] }
  /** Pass this boolean option as true, `to` do what it does ("to discard it"). */
  | { readonly pass: string; readonly to: string }
  /** The credentials worked once and no longer do: log in again. */
  | { readonly logInAgain: true }
  /** Look the right one up among the caller's records of this collection (`"jobs"`). */
  | { readonly listWith: string }
  /** Records still running: wait again with a longer `waitLonger` option, or end them (`orEnd`: their collection). */
  | { readonly waitLonger: string; readonly orEnd: string }
  /** Give this option another value; `hint` says which (`"0 picks a free one"`). */
  | { readonly change: string; readonly hint: string }
  /** Give this option, which sets `means` (`"your own accounts"`), or do `orInstead` (said as it is). */
  | { readonly give: string; readonly means: string; readonly orInstead: string }
  /**
   * Or raise this client option (`timeout`): said after the reason's own advice. A front end that
   * has no setting for it (the CLI) leaves it out.
   */
  | { readonly orRaise: string };

/**
 * `reason` with `remedy` in words: option names by default (`restart: true`), or the names `name`
 * gives (the CLI's flags). One place words every remedy, so the library and the CLI say the same.
 */
export function withRemedy(
  reason: string,
  remedy: Remedy,
  name: (option: string, kind: RemedyWord) => string = libraryName,
): string {
  if ("leaveOut" in remedy)
    return `${reason}; ${remedy.leaveOut.map((option) => `leave out ${name(option, "leaveOut")}`).join(", or ")}.`;
  if ("pass" in remedy) return `${reason} Pass ${name(remedy.pass, "pass")} ${remedy.to}.`;
  if ("listWith" in remedy) return `${reason} List yours with ${name(remedy.listWith, "list")}.`;
  if ("change" in remedy) return `${reason}; give ${name(remedy.change, "option")} another value (${remedy.hint}).`;
  if ("give" in remedy) return `${reason} Give ${remedy.means} (${name(remedy.give, "give")}), or ${remedy.orInstead}.`;
  if ("orRaise" in remedy) return `${reason.replace(/\.$/, "")}, or raise ${name(remedy.orRaise, "option")}.`;
  if ("waitLonger" in remedy)
    return `${reason} Wait again with a longer ${name(remedy.waitLonger, "option")}, or end them with ${name(remedy.orEnd, "end")}.`;
  if ("logInAgain" in remedy) return `${reason}: log in again.`;
  // Every kind is worded above: a new one that is not fails to compile here.
  const unworded: never = remedy;
  return unworded;
}

/**
 * What a name in a remedy stands for: an option to leave out, to pass, to change or to give, or a
 * collection to list or whose records to end.
 */
export type RemedyWord = "leaveOut" | "pass" | "option" | "give" | "list" | "end";

/**
 * An option by its name, one to pass as `restart: true`, a collection by the call that lists it.
 * The CLI words the same remedies in its flags and commands.
 */
export function libraryName(name: string, kind: RemedyWord): string {
  if (kind === "list") return `client.${name}.list()`;
  if (kind === "end") return `client.${name}.terminate(id)`;
  if (kind === "give") return `the ${name} option`;
  return kind === "pass" ? `${name}: true` : name;
}

// ---------------------------------------------------------------------------------------------
// Before any request

/**
 * An option was invalid; thrown before any request is sent (except for a `partitionBy` column
 * whose values turn out too many or unfit for folder names, found as the records arrive).
 */
export class ValidationError extends MatframeError {
  override readonly code: string = "ERR_INVALID_OPTION";
  override readonly name: string = "ValidationError";
  /** The option at fault, e.g. `"pageSize"` or `"projection.skip"`. */
  readonly option: string;

  constructor(option: string, message: string, options?: { remedy?: Remedy; cause?: unknown }) {
    super(message, options);
    this.option = option;
  }
}

/** The client was logged out or closed, and refuses further requests. */
export class ClientClosedError extends MatframeError {
  override readonly code: string = "ERR_CLIENT_CLOSED";
  override readonly name: string = "ClientClosedError";
}

// ---------------------------------------------------------------------------------------------
// A request that failed: the server's error status, no usable connection, a timeout, an abort

/**
 * A request to the platform failed: the base of {@link ApiError} (an HTTP error status),
 * {@link ConnectionError}, {@link TimeoutError} and {@link AbortError}. Catch this to handle any
 * failed request; `endpoint` says which one.
 */
export class RequestError extends MatframeError {
  override readonly code: string = "ERR_REQUEST";
  override readonly name: string = "RequestError";
  /**
   * Method and path of the request, e.g. `GET /api/2018-10-01/materials`; never the query string.
   * Undefined only for an {@link AbortError} that came between requests.
   */
  readonly endpoint: string | undefined;

  constructor(message: string, endpoint: string | undefined, options?: { cause?: unknown; remedy?: Remedy }) {
    super(message, options);
    this.endpoint = endpoint;
  }
}

// HTTP error statuses

/** What every HTTP error response carries. */
export interface ApiErrorDetails {
  /** The HTTP status the server answered. */
  status: number;
  /** Method and path, e.g. `GET /api/2018-10-01/materials`; never the query string. */
  endpoint: string;
  /** The server's own `message`, when its body had one. */
  serverMessage?: string;
  /** The response headers. */
  headers?: IncomingHttpHeaders;
}

/**
 * The server answered with an HTTP error status. The subclasses name the common
 * statuses; an `ApiError` that is none of them carries a status they do not cover.
 */
export class ApiError extends RequestError {
  override readonly code: string = "ERR_API";
  override readonly name: string = "ApiError";
  readonly status: number;
  declare readonly endpoint: string;
  readonly serverMessage?: string;
  readonly headers?: IncomingHttpHeaders;

  constructor(message: string, details: ApiErrorDetails, options?: { cause?: unknown; remedy?: Remedy }) {
    super(message, details.endpoint, options);
    this.status = details.status;
    this.serverMessage = details.serverMessage;
    this.headers = details.headers;
  }
}

/** 400 (or 414, a query string too long): the server rejected the request (usually the query or projection); `serverMessage` says why. */
export class BadRequestError extends ApiError {
  override readonly code: string = "ERR_BAD_REQUEST";
  override readonly name: string = "BadRequestError";
}

/**
 * 400 to the first page of an OPTIMADE query: the provider refused the filter (a syntax error, a
 * property it does not know). `serverMessage` is the first line of the provider's `detail`.
 */
export class OptimadeFilterError extends BadRequestError {
  override readonly code: string = "ERR_OPTIMADE_FILTER";
  override readonly name: string = "OptimadeFilterError";
}

/** 401: wrong username/password at login, or credentials that are wrong, expired or revoked (log in again). */
export class AuthenticationError extends ApiError {
  override readonly code: string = "ERR_AUTHENTICATION";
  override readonly name: string = "AuthenticationError";
}

/**
 * The OIDC device flow ended without a token: `oauthError` is the token endpoint's OAuth error
 * (`access_denied` when the person denied it, `expired_token` when nobody approved it in time,
 * `invalid_grant` for a refresh token that is used up or unknown, ...). Sign in again.
 */
export class DeviceLoginError extends ApiError {
  override readonly code: string = "ERR_DEVICE_LOGIN";
  override readonly name: string = "DeviceLoginError";
  /** The OAuth `error` code the platform answered (RFC 6749 section 5.2, RFC 8628 section 3.5). */
  readonly oauthError: string;

  constructor(message: string, details: ApiErrorDetails & { oauthError: string }, options?: { cause?: unknown }) {
    super(message, details, options);
    this.oauthError = details.oauthError;
  }
}

/** 403: the credentials are valid but may not do this. */
export class PermissionDeniedError extends ApiError {
  override readonly code: string = "ERR_PERMISSION_DENIED";
  override readonly name: string = "PermissionDeniedError";
}

/** 404: no such collection, record or endpoint. */
export class NotFoundError extends ApiError {
  override readonly code: string = "ERR_NOT_FOUND";
  override readonly name: string = "NotFoundError";
}

/** 409: the request conflicts with the server's current state. */
export class ConflictError extends ApiError {
  override readonly code: string = "ERR_CONFLICT";
  override readonly name: string = "ConflictError";
}

/** 422: the request was well-formed but the server could not act on it. */
export class UnprocessableEntityError extends ApiError {
  override readonly code: string = "ERR_UNPROCESSABLE_ENTITY";
  override readonly name: string = "UnprocessableEntityError";
}

/** 429: too many requests, still refused after the retries. */
export class RateLimitError extends ApiError {
  override readonly code: string = "ERR_RATE_LIMITED";
  override readonly name: string = "RateLimitError";
  /** How long the server asked to wait (from `Retry-After`), in milliseconds, when it said. */
  readonly retryAfterMs?: number;

  constructor(message: string, details: ApiErrorDetails & { retryAfterMs?: number }, options?: { cause?: unknown }) {
    super(message, details, options);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** 5xx: the server failed; retried requests still failed. */
export class ServerError extends ApiError {
  override readonly code: string = "ERR_SERVER";
  override readonly name: string = "ServerError";
}

// ---------------------------------------------------------------------------------------------
// Transport: no usable answer

/** The server could not be reached, or the connection broke before the response was complete. */
export class ConnectionError extends RequestError {
  override readonly code: string = "ERR_CONNECTION";
  override readonly name: string = "ConnectionError";
  /** Method and path of the request that failed. */
  declare readonly endpoint: string;

  constructor(message: string, endpoint: string, options?: { cause?: unknown }) {
    super(message, endpoint, options);
  }
}

/** An attempt took longer than the `timeout` option, on every attempt allowed. */
export class TimeoutError extends RequestError {
  override readonly code: string = "ERR_TIMEOUT";
  override readonly name: string = "TimeoutError";
  /** Method and path of the request that timed out. */
  declare readonly endpoint: string;
  /** The per-attempt timeout, in milliseconds. */
  readonly timeoutMs: number;

  constructor(message: string, endpoint: string, timeoutMs: number, options?: { cause?: unknown; remedy?: Remedy }) {
    super(message, endpoint, options);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * `client.jobs.waitFor` reached its `timeout` before every job reached a status it waits for
 * (`until`). Nothing is stopped: the jobs go on (end them with `client.jobs.terminate`).
 * `endpoint` is `GET .../jobs`; `jobs` holds each job as last seen (`_id`, `name`, `status`).
 */
export class JobWaitTimeoutError extends TimeoutError {
  override readonly code: string = "ERR_JOB_WAIT_TIMEOUT";
  override readonly name: string = "JobWaitTimeoutError";
  /** Each job as last seen, in the order asked for. */
  readonly jobs: readonly { readonly _id: string; readonly name?: string; readonly status?: string }[];

  constructor(
    message: string,
    endpoint: string,
    timeoutMs: number,
    jobs: readonly { readonly _id: string; readonly name?: string; readonly status?: string }[],
  ) {
    // They go on running: the remedy says how to wait for them or end them.
    super(message, endpoint, timeoutMs, { remedy: { waitLonger: "timeout", orEnd: "jobs" } });
    this.jobs = jobs;
  }
}

/** The caller's `signal` aborted the request (or the walk). `cause` is the signal's reason. */
export class AbortError extends RequestError {
  override readonly code: string = "ERR_ABORTED";
  override readonly name: string = "AbortError";

  constructor(message: string, endpoint?: string, options?: { cause?: unknown }) {
    super(message, endpoint, options);
  }
}

/**
 * The server answered successfully but the body was not JSON, not JSend, or not the
 * expected shape. Not an HTTP error: the status was fine, the content was not.
 */
export class ResponseValidationError extends MatframeError {
  override readonly code: string = "ERR_RESPONSE_VALIDATION";
  override readonly name: string = "ResponseValidationError";
  /** Method and path of the request whose response was wrong. */
  readonly endpoint: string;
  /** The HTTP status of that response. */
  readonly status: number;
  /** What was wrong, as zod issues (one `custom` issue for a body that is not JSON). */
  readonly issues: z.core.$ZodIssue[];

  constructor(
    message: string,
    details: { endpoint: string; status: number; issues: z.core.$ZodIssue[] },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.endpoint = details.endpoint;
    this.status = details.status;
    this.issues = details.issues;
  }
}

/**
 * A response body grew past `maxResponseBytes` (counted as it streams in). The body is dropped at
 * once and the request is not retried: a second attempt would download as much again.
 */
export class ResponseTooLargeError extends MatframeError {
  override readonly code: string = "ERR_RESPONSE_TOO_LARGE";
  override readonly name: string = "ResponseTooLargeError";
  /** Method and path of the request. */
  readonly endpoint: string;
  /** The limit that was passed, in bytes. */
  readonly limitBytes: number;

  constructor(message: string, endpoint: string, limitBytes: number) {
    super(message);
    this.endpoint = endpoint;
    this.limitBytes = limitBytes;
  }
}

/**
 * An offset walk saw the same record twice: the collection changed under the walk, so
 * records may also have been missed. Thrown unless `onDuplicate` is given.
 */
export class DuplicateRecordError extends MatframeError {
  override readonly code: string = "ERR_DUPLICATE_RECORD";
  override readonly name: string = "DuplicateRecordError";
  /** The `_id` seen twice. */
  readonly id: string;
  /** The page (1-based) on which it was seen the second time. */
  readonly page: number;

  constructor(message: string, id: string, page: number) {
    super(message);
    this.id = id;
    this.page = page;
  }
}

// ---------------------------------------------------------------------------------------------
// Tables and files

/**
 * A record's method object failed the method schema while `strict: true` was set
 * (without `strict`, its method columns become null and a warning counts it).
 */
export class InvalidMethodError extends MatframeError {
  override readonly code: string = "ERR_INVALID_METHOD";
  override readonly name: string = "InvalidMethodError";
  /** The dotted path of the method object, e.g. `"method"`. */
  readonly path: string;
  /** The `_id` of the offending record, when it was fetched. */
  readonly id: string | undefined;

  constructor(path: string, id: string | undefined, row: number) {
    const where = id === undefined ? `row ${row}` : `material ${id} (row ${row})`;
    super(
      `The ${path} of ${where} is not a valid method: "type" and "subtype" must be strings. ` +
        "Leave out strict: true to get nulls and a warning instead.",
    );
    this.path = path;
    this.id = id;
  }
}

/** A record's values cannot be turned into table cells (e.g. nested deeper than the stack allows). */
export class RecordShapeError extends MatframeError {
  override readonly code: string = "ERR_RECORD_SHAPE";
  override readonly name: string = "RecordShapeError";
  /** The `_id` of the offending record, when it has one. */
  readonly id: string | undefined;

  constructor(message: string, id: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.id = id;
  }
}

/**
 * A structure cannot be written or read: a record whose basis and lattice disagree (counts, ids,
 * units), or a POSCAR/CIF/XYZ text that is malformed or uses what the reader does not support.
 */
export class StructureError extends MatframeError {
  override readonly code: string = "ERR_STRUCTURE";
  override readonly name: string = "StructureError";
  /** The `_id` of the record, when the structure came from one. */
  readonly id: string | undefined;

  constructor(message: string, id?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.id = id;
  }
}

/** With `strict: true`, a column came out null in every row (often a misspelt path). */
export class EmptyColumnError extends MatframeError {
  override readonly code: string = "ERR_EMPTY_COLUMN";
  override readonly name: string = "EmptyColumnError";
  /** The column's name, as asked for. */
  readonly column: string;
  /** The known path nearest to it, when it looks like a typo. */
  readonly suggestion: string | undefined;
  /** How many records were read, none with a value there. */
  readonly rows: number;

  constructor(column: string, rows: number, suggestion?: string) {
    super(
      `Column "${column}" is empty: none of the ${rows.toLocaleString("en-US")} records has a value at that path` +
        (suggestion ? `; did you mean ${suggestion}?` : "; check the path's spelling.") +
        " Nothing was written (strict).",
    );
    this.column = column;
    this.suggestion = suggestion;
    this.rows = rows;
  }
}

/**
 * A value does not fit its column's type in a typed export (Parquet, Arrow): a column typed
 * `double` from the platform's schema or from the first row group met text, for example.
 */
export class ColumnTypeError extends MatframeError {
  override readonly code: string = "ERR_COLUMN_TYPE";
  override readonly name: string = "ColumnTypeError";
  /** The column's name, e.g. `"lattice.a"`. */
  readonly column: string;
  /** The type the column was given. */
  readonly type: string;
  /** The `_id` of the record whose value did not fit, when it has one. */
  readonly id: string | undefined;
  /** The value that did not fit, described (e.g. `"ZnO" (a string)`). */
  readonly value: string;

  constructor(column: string, type: string, value: string, id: string | undefined) {
    super(
      `Column "${column}" is typed ${type}, but record ${id ?? "(no _id)"} has ${value} there. ` +
        `Give the column a type that holds every value, e.g. types: { "${column}": "string" }, or leave it out.`,
    );
    this.column = column;
    this.type = type;
    this.id = id;
    this.value = value;
  }
}

/**
 * A DataFrame operation matframe will not run because its answer could differ from pandas': a
 * `loc` label slice, a mask or column whose rows do not line up with the frame's, a conversion
 * pandas refuses too.
 * The message says what to call instead.
 */
export class FrameOperationError extends MatframeError {
  override readonly code: string = "ERR_FRAME_OPERATION";
  override readonly name: string = "FrameOperationError";
  /** The operation refused, e.g. `"loc"` or `"sortValues"`. */
  readonly operation: string;

  constructor(operation: string, message: string) {
    super(message);
    this.operation = operation;
  }
}

/** An optional package that a feature needs is not installed. */
export class MissingDependencyError extends MatframeError {
  override readonly code: string = "ERR_MISSING_DEPENDENCY";
  override readonly name: string = "MissingDependencyError";
  /** The npm package to install. */
  readonly packageName: string;

  constructor(packageName: string, feature: string, options?: { cause?: unknown; hint?: string }) {
    const hint = options?.hint ? ` ${options.hint}` : "";
    super(
      `${feature} needs the optional package ${packageName}, which is not installed: run \`npm install ${packageName}\`.${hint}`,
      options,
    );
    this.packageName = packageName;
  }
}

/** An export was asked to write a file that already exists, without `force`. */
export class TargetExistsError extends MatframeError {
  override readonly code: string = "ERR_TARGET_EXISTS";
  override readonly name: string = "TargetExistsError";
  /** The path that was not overwritten. */
  readonly path: string;

  constructor(path: string) {
    super(`${path} already exists; pass force: true to overwrite it, or choose another path.`);
    this.path = path;
  }
}

/** An export's output could not be written (missing directory, no permission, disk full, closed stream). */
export class OutputError extends MatframeError {
  override readonly code: string = "ERR_OUTPUT";
  override readonly name: string = "OutputError";
  /** The target path, when the output was a file. */
  readonly path: string | undefined;

  constructor(message: string, path?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
  }
}

/**
 * A resumed export cannot continue its saved progress: the saved request differs from this one
 * (the message says what differs), or the partial output does not match its state file.
 */
export class ResumeError extends MatframeError {
  override readonly code: string = "ERR_RESUME";
  override readonly name: string = "ResumeError";
  /** The export's target. */
  readonly path: string;

  /**
   * `reason` is what keeps the run from continuing; the message adds the remedy: pass `restart`
   * (`to` what end), or none (`null`: another run holds the output, which `restart` cannot take).
   */
  constructor(reason: string, path: string, restart: { to: string } | null = { to: "to discard it and start over" }) {
    super(reason, restart ? { remedy: { pass: "restart", to: restart.to } } : undefined);
    this.path = path;
  }
}

/** The saved-credentials file cannot be used: readable by others, not matframe's, or a bad profile name. */
export class CredentialsFileError extends MatframeError {
  override readonly code: string = "ERR_CREDENTIALS_FILE";
  override readonly name: string = "CredentialsFileError";
}

// ---------------------------------------------------------------------------------------------
// The local platform

/**
 * `startServer` options that cannot work (bad port, bad user spec, demo account on a public
 * address, a store that cannot be used); thrown by `startServer` before it answers any request.
 */
export class ServerOptionsError extends MatframeError {
  override readonly code: string = "ERR_SERVER_OPTIONS";
  override readonly name: string = "ServerOptionsError";
  /** The `startServer` option at fault (`"users"`, `"port"`, `"store"`), when one is; `matframe serve` names its flag. */
  readonly option: string | undefined;

  constructor(message: string, options?: { option?: string; cause?: unknown; remedy?: Remedy }) {
    super(message, options);
    this.option = options?.option;
  }
}

/** A data file or array that the local platform cannot serve, with what to fix. */
export class DatasetError extends MatframeError {
  override readonly code: string = "ERR_DATASET";
  override readonly name: string = "DatasetError";
}

// ---------------------------------------------------------------------------------------------
// The status map

/** What the transport knows when a request ends in an HTTP error status. */
export interface StatusErrorContext extends ApiErrorDetails {
  /** True for the login request, whose 401 means a wrong username or password. */
  login?: boolean;
  /** How many attempts were made (1 when the request was not retried). */
  attempts: number;
  /** From `Retry-After`, when the server sent it. */
  retryAfterMs?: number;
  /** The proxy the request went through (without credentials) and its variable, as messages name it. */
  proxy?: string;
}

type ApiErrorClass = new (message: string, details: ApiErrorDetails) => ApiError;

/** Status → class and what to do about it (after openai-node's status map). */
const STATUS_MAP: Record<number, { cls: ApiErrorClass; head: string; advice: string }> = {
  400: { cls: BadRequestError, head: "Bad request", advice: "Fix the query, projection or options and try again." },
  403: {
    cls: PermissionDeniedError,
    head: "Permission denied",
    advice: "This account may not do this; check the account id or ask for access.",
  },
  404: { cls: NotFoundError, head: "Not found", advice: "Check the collection name, the record id and the baseUrl." },
  409: { cls: ConflictError, head: "Conflict", advice: "Reload the current state and try again." },
  414: {
    cls: BadRequestError,
    head: "Request too long",
    advice:
      "The query string is longer than the server takes: ask for fewer values at a time (a shorter $in list, or the query split in parts).",
  },
  422: { cls: UnprocessableEntityError, head: "Unprocessable", advice: "Fix the request content and try again." },
};

/** Maps an HTTP error status to the error class a caller can act on. */
export function errorFromStatus(ctx: StatusErrorContext): ApiError {
  const { status, endpoint } = ctx;
  const said = ctx.serverMessage ? `: "${ctx.serverMessage}"` : "";
  const head = `${endpoint} answered ${status}${said}.`;
  const tries = ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : "";
  const details: ApiErrorDetails = { status, endpoint, serverMessage: ctx.serverMessage, headers: ctx.headers };
  if (status === 401) {
    return ctx.login
      ? new AuthenticationError(`Login failed: ${head} Check the username/password and try again.`, details)
      : new AuthenticationError(
          `Not authenticated: ${head} The account id or auth token is wrong, expired or revoked ` +
            `(logging out revokes it)`,
          details,
          { remedy: { logInAgain: true } },
        );
  }
  if (status === 429) {
    const wait = ctx.retryAfterMs !== undefined ? ` The server asked to wait ${formatWait(ctx.retryAfterMs)}.` : "";
    // A refused login is about failed attempts (or a full login queue), not about pages in flight.
    const advice = ctx.login ? "Wait, then log in again." : "Wait, then retry; or lower `concurrency`.";
    return new RateLimitError(`Rate limited${tries}: ${head}${wait} ${advice}`, {
      ...details,
      retryAfterMs: ctx.retryAfterMs,
    });
  }
  const mapped = STATUS_MAP[status];
  // A refused action (terminate a finished job, say) is not about a query: the server's message
  // says what was wrong, and the reads' advice would mislead.
  const action = status === 400 && !endpoint.startsWith("GET ") && ctx.serverMessage;
  if (mapped) return new mapped.cls(`${mapped.head}: ${head}${action ? "" : ` ${mapped.advice}`}`, details);
  if (status >= 500) {
    // A gateway's statuses: through a proxy, they may be the proxy's own answer.
    const gateway =
      ctx.proxy && (status === 502 || status === 504)
        ? ` Through ${ctx.proxy}, it may be the proxy's: it answers ${status} when it cannot reach the platform.`
        : "";
    return new ServerError(
      `Server error${tries}: ${head} Try again later; if it persists, tell the platform's operators.${gateway}`,
      details,
    );
  }
  return new ApiError(`Unexpected answer${tries}: ${head}`, details);
}

function formatWait(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
