import { ServerOptionsError } from "../errors";
import { isLoopbackHost } from "../loopback";
import { quoteForTerminal, unsafeCharacter } from "../terminal-text";
import type { CompressionMode } from "./http/compression";
import type { LoginThrottleOptions } from "./auth/login-throttle";
import { DEFAULT_MAX_GRANTS, DEFAULT_MAX_GRANTS_PER_ADDRESS, type DeviceFlowOptions } from "./auth/device-flow";
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_ACCOUNT,
  DEMO_ACCOUNT,
  type SessionLimits,
  type UserAccount,
} from "./auth/auth";
import { DEFAULT_MAX_WRONG_CODES, DEFAULT_WRONG_CODE_WINDOW_MS, type UserCodeLimits } from "./auth/code-attempts";
import { MAX_SYNTHETIC } from "./records/synthetic";
import { parseProjection } from "./query/projection";
import type { WarmResults } from "./http/warm-forms";
import type { Fields } from "../schemas";
import { weakPasswordReason } from "./auth/weak-passwords";
import { DEFAULT_QUOTA } from "./records/written-records";
import { DEFAULT_RUN_MS, DEFAULT_START_DELAY_MS } from "./collections/job-runner";
import { DEFAULT_JOB_TIME_LIMIT_MS, defaultMaxRunningJobs } from "./compute/queue";

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /**
   * Address to listen on. With no `users` (only the demo account) it must be a loopback address.
   * @default "127.0.0.1"
   */
  host?: string;
  /**
   * TCP port; `0` picks a free one (read it back from the handle).
   * @default 4000
   */
  port?: number;
  /**
   * The materials to serve: a path to a JSON array or NDJSON file, or the records themselves
   * (objects with a unique string `_id`). Without it, the bundled real materials are served.
   * @example "./my-materials.ndjson"
   */
  data?: string | readonly object[];
  /**
   * Accounts, as `{username, password}` objects or `"name:password"` strings. Without any, the
   * one account is `demo` / `demo` and only loopback hosts are allowed.
   * @example ["alice:correct horse battery staple"]
   */
  users?: ReadonlyArray<UserAccount | string>;
  /**
   * Adds this many deterministic synthetic materials (strained copies of the bundled ones,
   * marked `isSynthetic: true`), for scale.
   * @default 0
   */
  synthetic?: number;
  /**
   * Receives one line per request (method, path without query string, status, milliseconds) and
   * start-up notes. Never receives passwords or tokens.
   * @default no logging
   */
  log?: (line: string) => void;
  /**
   * Failed-login throttling per username and address.
   * @default { maxFailures: 5, windowMs: 900000 }
   */
  loginThrottle?: LoginThrottleOptions;
  /**
   * CPU milliseconds one request may spend evaluating its query before it is refused with 400.
   * @default 5000
   */
  scanBudgetMs?: number;
  /**
   * Milliseconds the space-group search of one written structure may take (in a worker thread, so
   * other requests are served meanwhile); past it the record is stored without its `symmetry`
   * derived property. Highly symmetric supercells of a few hundred atoms can take seconds.
   * @default 2000
   */
  symmetryBudgetMs?: number;
  /**
   * Open connections at most (each holds a file descriptor). At the cap the oldest idle
   * connection is closed to make room; when none is idle, a new one is answered 503 with
   * `Retry-After` and closed.
   * @default 512
   */
  maxConnections?: number;
  /**
   * Milliseconds a client may take to read one answer; a connection whose answer is not
   * flushed in that time is closed (a client that never reads holds at most one answer).
   * @default 30000
   */
  sendTimeoutMs?: number;
  /**
   * Response compression: `"auto"` answers in the coding the client prefers (brotli or gzip, by
   * `Accept-Encoding` q-values), `"gzip"` or `"br"` only that one, `"off"` never. Bodies under
   * 1 KiB go out as they are.
   * @default "auto"
   */
  compression?: CompressionMode;
  /**
   * A directory that keeps the records written through the API (create, update, delete, copy,
   * import) in an embedded LMDB database, so they survive a restart or a crash: every write is
   * one transaction, acknowledged only once committed. Needs the optional package `lmdb`.
   * Without it, written records live in memory until the server stops. The served materials
   * are never written there.
   * @default undefined (in memory)
   * @example "./matframe-store"
   */
  store?: string;
  /**
   * Records one account may keep (created, copied or imported; the served materials do not
   * count). A write past it is answered 403 with a message.
   * @default 10000
   */
  quotaRecords?: number;
  /**
   * Bytes (of their JSON) one account's records may take together.
   * @default 268435456 (256 MiB)
   */
  quotaBytes?: number;
  /**
   * Whether every account starts, besides its default project (which every account has), with a
   * default material (a copy of silicon) and workflow (a copy of the bank's Quantum ESPRESSO Total
   * Energy), each `isDefault: true`, as on the platform, whose notebooks read them. `matframe
   * serve` turns it on; from code it is off, so that an account's list of materials holds the
   * served ones alone until it writes one.
   * @default false
   */
  accountDefaults?: boolean;
  /**
   * Projections (`projection.fields` as a client sends them; `{}` for whole records) whose JSON
   * the server makes for every served material in the background once it listens, in `_id`
   * order, pausing while it answers requests, so that a first walk asking for them costs about
   * what a second does. Bounded by the kept-JSON budget (192 MiB) and 5 s of work; the handle's
   * `warmUp` says when it ended. `matframe serve` asks for `toDataFrame()`'s default columns.
   * @default [] (none)
   * @example [{ _id: 1, formula: 1, "lattice.a": 1 }]
   */
  warmFields?: readonly Fields[];
  /**
   * The projections a results table reads with. The background warm-up then first keeps the JSON of every served property record, of the jobs they name and of those
   * jobs' materials, in these projections, so that a first `client.results.toDataFrame` finds
   * them kept as a second does. `matframe serve` gives the results table's own.
   * @default undefined (none)
   * @example { properties: { _id: 1, slug: 1, data: 1 }, jobs: { _id: 1, _material: 1 }, materials: { _id: 1, formula: 1 } }
   */
  warmResults?: WarmResults;
  /**
   * Timing of the OIDC device flow (`/oidc/device/auth`): the poll `interval` devices are told
   * and how long a code lives. An interval of 0 lets tests poll without waiting.
   * @default { intervalSeconds: 5, expiresInSeconds: 600 }
   */
  deviceFlow?: DeviceFlowOptions;
  /**
   * Sessions kept, in all and per account; the device flow's refresh tokens are bounded alike.
   * One account's logins or refreshes push out only its own oldest session, so they never log
   * anybody else out.
   * @default { maxSessions: 100000, maxSessionsPerAccount: 100 }
   */
  sessions?: SessionLimits;
  /**
   * Serves the teacher's page at `/teacher` (every account's sessions, requests, writes, jobs and
   * lockouts, with Unlock buttons), opened by the address the handle's `teacherUrl` gives, whose
   * key is made at each start. `matframe serve` turns it on and prints the address.
   * @default false
   */
  teacherPage?: boolean;
  /**
   * Wrong user codes one client address may type on the device flow's verification page.
   * @default { maxWrongCodes: 30, windowMs: 600000 }
   */
  userCodes?: UserCodeLimits;
  /**
   * Milliseconds a job answered from the reference data (a published result of a computation this
   * machine cannot run) stays `active` before it finishes.
   * @default 2000
   */
  jobRunMs?: number;
  /**
   * Milliseconds a submitted job stays `submitted` at least, as the platform's scheduler takes a
   * while (its own client's tests read `submitted` right after the submit). Only the status
   * waits: a job the machine can compute starts at once when the queue has room.
   * @default 1000
   */
  jobStartDelayMs?: number;
  /**
   * Jobs that compute at once, at most; the others wait `submitted`, accounts taking turns.
   * @default the machine's cores less one, at least 1
   */
  maxRunningJobs?: number;
  /**
   * Milliseconds one job may compute; past it its processes are killed and it ends in `error`
   * with the reason.
   * @default 600000 (10 minutes)
   */
  jobTimeLimitMs?: number;
}

/** Default cap on open connections: with one answer in flight each (a page is about 0.55 MB), at most ~280 MB. */
export const DEFAULT_MAX_CONNECTIONS = 512;
/** Default time a client has to read one answer. */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 4000;

/** Throws unless `value` is a whole number of at least `min` (a limit given from code). */
function wholeNumber(value: unknown, name: string, min: number): void {
  if (!Number.isSafeInteger(value) || (value as number) < min)
    throw new ServerOptionsError(`${name} must be a whole number of at least ${min}, not ${String(value)}.`);
}

/** Reads `"name:password"` (split at the first colon) or `{username, password}`. */
export function parseUser(spec: UserAccount | string): UserAccount {
  if (typeof spec !== "string") {
    if (typeof spec?.username !== "string" || typeof spec?.password !== "string") {
      throw new ServerOptionsError("Each user needs a string username and password.");
    }
    return checkUser(spec.username, spec.password);
  }
  const colon = spec.indexOf(":");
  if (colon === -1)
    throw new ServerOptionsError('A user must be given as NAME:PASSWORD (e.g. "alice:s3cret").', { option: "users" });
  return checkUser(spec.slice(0, colon), spec.slice(colon + 1));
}

function checkUser(username: string, password: string): UserAccount {
  if (username === "" || password === "") {
    throw new ServerOptionsError("A user needs a non-empty name and password: NAME:PASSWORD.");
  }
  if (username.length > 256 || password.length > 1024) {
    throw new ServerOptionsError("A user name may have at most 256 characters and a password at most 1024.");
  }
  // Shown escaped everywhere, such a name still reads as another on a page or a console (U+202E
  // reverses what follows it) and cannot be typed back: refused where the account is made.
  const unsafe = unsafeCharacter(username);
  if (unsafe) {
    throw new ServerOptionsError(
      `The user name ${quoteForTerminal(username)} holds ${unsafe.codePoint} (${unsafe.kind}) at character ${unsafe.at}; ` +
        "a name may not hold control, formatting or line and paragraph separator characters (letters, digits, spaces, dots, hyphens, apostrophes and @ are fine).",
      { option: "users" },
    );
  }
  return { username, password };
}

/**
 * Warnings for accounts whose password anyone could guess, when the server listens where other
 * machines reach it. The published demo password is refused there outright, as the built-in demo
 * account is. On loopback only this machine's users can log in, so nothing is said.
 */
function exposedPasswordWarnings(host: string, users: readonly UserAccount[]): string[] {
  if (isLoopbackHost(host)) return [];
  const warnings: string[] = [];
  for (const user of users) {
    const reason = weakPasswordReason(user);
    if (reason === undefined) continue;
    const name = JSON.stringify(user.username.slice(0, 64));
    if (user.username === "demo" && user.password === "demo") {
      throw new ServerOptionsError(
        `Refusing to listen on ${host} with the account demo:demo, the demo account's published password, which anyone could use. Give it another password, or listen on 127.0.0.1.`,
      );
    }
    warnings.push(
      `the password of ${name} ${reason}, and ${host} is reachable from other machines: anyone there could guess it. Give it a longer, unusual one.`,
    );
  }
  return warnings;
}

/** `fields` checked as a request's `projection.fields` is, and as it would parse; `label` names it in the error. */
function checkedFields(fields: unknown, label: string): Fields {
  try {
    return parseProjection({ fields }).fields;
  } catch (error) {
    throw new ServerOptionsError(`${label}: ${(error as Error).message}`);
  }
}

/** Each of `warmFields` checked as a request's `projection.fields` is. */
function resolveWarmFields(warmFields: readonly Fields[] | undefined): Fields[] {
  if (warmFields === undefined) return [];
  if (!Array.isArray(warmFields))
    throw new ServerOptionsError('warmFields must be an array of projection fields, e.g. [{"formula": 1}].');
  return warmFields.map((fields, i) => checkedFields(fields, `warmFields[${i}]`));
}

/** `warmResults` checked as `warmFields` are: each of its three a request's `projection.fields`. */
function resolveWarmResults(results: WarmResults | undefined): WarmResults | undefined {
  if (results === undefined) return undefined;
  const example = 'e.g. { "properties": { "_id": 1 }, "jobs": { "_id": 1 }, "materials": { "formula": 1 } }';
  if (results === null || typeof results !== "object")
    throw new ServerOptionsError(`warmResults must name the fields of properties, jobs and materials, ${example}.`);
  const checked = (name: keyof WarmResults): Fields => {
    if (results[name] === null || typeof results[name] !== "object")
      throw new ServerOptionsError(`warmResults.${name} must be projection fields, ${example}.`);
    return checkedFields(results[name], `warmResults.${name}`);
  };
  return { properties: checked("properties"), jobs: checked("jobs"), materials: checked("materials") };
}

/** The options with defaults filled in, or a `ServerOptionsError` saying what to fix. */
export function resolveOptions(options: StartServerOptions) {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  const synthetic = options.synthetic ?? 0;
  if (typeof host !== "string" || host.trim() === "") throw new ServerOptionsError("host must be a non-empty string.");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ServerOptionsError(`port must be an integer from 0 to 65535 (0 picks a free port), not ${String(port)}.`);
  }
  if (!Number.isInteger(synthetic) || synthetic < 0 || synthetic > MAX_SYNTHETIC) {
    throw new ServerOptionsError(`synthetic must be an integer from 0 to ${MAX_SYNTHETIC}, not ${String(synthetic)}.`);
  }
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > 1_000_000) {
    throw new ServerOptionsError(`maxConnections must be an integer from 1 to 1000000, not ${String(maxConnections)}.`);
  }
  const sendTimeoutMs = options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  if (typeof sendTimeoutMs !== "number" || !(sendTimeoutMs > 0 && sendTimeoutMs <= 2_147_483_647)) {
    throw new ServerOptionsError(
      `sendTimeoutMs must be a number of milliseconds above 0, not ${String(sendTimeoutMs)}.`,
    );
  }
  const compression = options.compression ?? "auto";
  if (!["off", "gzip", "br", "auto"].includes(compression)) {
    throw new ServerOptionsError(
      `compression must be "off", "gzip", "br" or "auto", not ${JSON.stringify(compression)}.`,
    );
  }
  if (options.store !== undefined && (typeof options.store !== "string" || options.store.trim() === "")) {
    throw new ServerOptionsError("store must be the path of a directory (it is created if missing).");
  }
  const quotaRecords = options.quotaRecords ?? DEFAULT_QUOTA.records;
  if (!Number.isInteger(quotaRecords) || quotaRecords < 0)
    throw new ServerOptionsError(`quotaRecords must be a whole number, not ${String(quotaRecords)}.`);
  const quotaBytes = options.quotaBytes ?? DEFAULT_QUOTA.bytes;
  if (!Number.isInteger(quotaBytes) || quotaBytes < 0)
    throw new ServerOptionsError(`quotaBytes must be a whole number of bytes, not ${String(quotaBytes)}.`);
  const { intervalSeconds = 5, expiresInSeconds = 600 } = options.deviceFlow ?? {};
  if (!Number.isInteger(intervalSeconds) || intervalSeconds < 0 || intervalSeconds > 3600) {
    throw new ServerOptionsError(
      `deviceFlow.intervalSeconds must be a whole number of seconds from 0 to 3600, not ${String(intervalSeconds)}.`,
    );
  }
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > 86_400) {
    throw new ServerOptionsError(
      `deviceFlow.expiresInSeconds must be a whole number of seconds from 1 to 86400, not ${String(expiresInSeconds)}.`,
    );
  }
  const { maxGrants = DEFAULT_MAX_GRANTS, maxGrantsPerAddress = DEFAULT_MAX_GRANTS_PER_ADDRESS } =
    options.deviceFlow ?? {};
  wholeNumber(maxGrants, "deviceFlow.maxGrants", 1);
  wholeNumber(maxGrantsPerAddress, "deviceFlow.maxGrantsPerAddress", 1);
  const { maxSessions = DEFAULT_MAX_SESSIONS, maxSessionsPerAccount = DEFAULT_MAX_SESSIONS_PER_ACCOUNT } =
    options.sessions ?? {};
  wholeNumber(maxSessions, "sessions.maxSessions", 1);
  wholeNumber(maxSessionsPerAccount, "sessions.maxSessionsPerAccount", 1);
  const { maxWrongCodes = DEFAULT_MAX_WRONG_CODES, windowMs: codeWindowMs = DEFAULT_WRONG_CODE_WINDOW_MS } =
    options.userCodes ?? {};
  wholeNumber(maxWrongCodes, "userCodes.maxWrongCodes", 1);
  wholeNumber(codeWindowMs, "userCodes.windowMs", 1);
  const jobRunMs = options.jobRunMs ?? DEFAULT_RUN_MS;
  if (typeof jobRunMs !== "number" || !(jobRunMs >= 0 && jobRunMs <= 3_600_000)) {
    throw new ServerOptionsError(
      `jobRunMs must be a number of milliseconds from 0 to 3600000, not ${String(jobRunMs)}.`,
    );
  }
  const jobStartDelayMs = options.jobStartDelayMs ?? DEFAULT_START_DELAY_MS;
  if (typeof jobStartDelayMs !== "number" || !(jobStartDelayMs >= 0 && jobStartDelayMs <= 3_600_000)) {
    throw new ServerOptionsError(
      `jobStartDelayMs must be a number of milliseconds from 0 to 3600000, not ${String(jobStartDelayMs)}.`,
    );
  }
  const maxRunningJobs = options.maxRunningJobs ?? defaultMaxRunningJobs();
  if (!Number.isInteger(maxRunningJobs) || maxRunningJobs < 1 || maxRunningJobs > 1024) {
    throw new ServerOptionsError(
      `maxRunningJobs must be a whole number from 1 to 1024, not ${String(maxRunningJobs)}.`,
    );
  }
  const jobTimeLimitMs = options.jobTimeLimitMs ?? DEFAULT_JOB_TIME_LIMIT_MS;
  if (typeof jobTimeLimitMs !== "number" || !(jobTimeLimitMs >= 1 && jobTimeLimitMs <= 2_147_483_647)) {
    throw new ServerOptionsError(
      `jobTimeLimitMs must be a number of milliseconds from 1 to 2147483647 (about 24 days), not ${String(jobTimeLimitMs)}.`,
    );
  }
  const users = (options.users ?? []).map(parseUser);
  const names = new Set<string>();
  for (const user of users) {
    if (names.has(user.username)) throw new ServerOptionsError(`The user "${user.username}" is given twice.`);
    names.add(user.username);
  }
  if (users.length === 0 && !isLoopbackHost(host)) {
    // A remedy rather than words in the message: the CLI names its flags there, in the sentence.
    throw new ServerOptionsError(
      `Refusing to listen on ${host} with the built-in demo/demo account, which anyone could use.`,
      { option: "users", remedy: { give: "users", means: "your own accounts", orInstead: "listen on 127.0.0.1" } },
    );
  }
  return {
    host,
    port,
    synthetic,
    warnings: exposedPasswordWarnings(host, users),
    users: users.length > 0 ? users : [DEMO_ACCOUNT],
    log: options.log,
    data: options.data,
    loginThrottle: options.loginThrottle,
    scanBudgetMs: options.scanBudgetMs,
    symmetryBudgetMs: options.symmetryBudgetMs,
    maxConnections,
    sendTimeoutMs,
    compression,
    store: options.store,
    quota: { records: quotaRecords, bytes: quotaBytes },
    accountDefaults: options.accountDefaults === true,
    warmFields: resolveWarmFields(options.warmFields),
    warmResults: resolveWarmResults(options.warmResults),
    deviceFlow: { intervalSeconds, expiresInSeconds, maxGrants, maxGrantsPerAddress },
    sessions: { maxSessions, maxSessionsPerAccount },
    teacherPage: options.teacherPage === true,
    userCodes: { maxWrongCodes, windowMs: codeWindowMs },
    jobRunMs,
    jobStartDelayMs,
    maxRunningJobs,
    jobTimeLimitMs,
  };
}
