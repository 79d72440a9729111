import { openCache, type CacheSetting, type ResponseCache } from "../transport/response-cache";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { API_PREFIX, API_VERSION, MAX_LIMIT, Fields, Projection, Sort, type Query } from "../../schemas";
import { ValidationError } from "../../errors";
import type { IterateOptions, ListOptions, TransportSettings } from "./options";
import { refuseUnusedOptions } from "./unused-options";
import type { TransportOptions } from "../transport/transport";
import { withoutUrlCredentials } from "../transport/redact";
import { proxyEnvironmentFor } from "../transport/proxy";
import type { LinkKind } from "../transport/link-estimate";
import { isLoopbackHost } from "../../loopback";

// Every check here runs before any request, so a typo costs nothing on the wire.

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
/** Enough for 6 pages in flight over a far link; connections open only as needed, so a near one uses about 3. */
const DEFAULT_CONNECTIONS = 8;
const DEFAULT_PAGE_SIZE = MAX_LIMIT;
/** 64 MiB: a page of 500 whole records is about 0.6 MB, so a hundred times that. */
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** More pages in flight than this only queues on the pool and holds more memory. */
const MAX_CONCURRENCY = 16;
/** setTimeout's largest delay. */
const MAX_TIMEOUT_MS = 2_147_483_647;

const PACKAGE_VERSION = (require("../../../package.json") as { version: string }).version;
const DEFAULT_USER_AGENT = `matframe/${PACKAGE_VERSION} node/${process.versions.node}`;

/**
 * `https://host`, `https://host/`, `https://host/api` and `https://host/api/2018-10-01/` all
 * become `https://host/api/2018-10-01`; a path prefix before `/api` (a reverse proxy) is kept.
 */
export function normaliseBaseUrl(baseUrl: unknown): URL {
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
    throw new ValidationError("baseUrl", `baseUrl is required: the platform's address, e.g. "http://127.0.0.1:4000".`);
  }
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new ValidationError(
      "baseUrl",
      `baseUrl ${JSON.stringify(withoutUrlCredentials(baseUrl))} is not a URL; write it like "https://platform.example.org".`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ValidationError("baseUrl", `baseUrl must start with http:// or https://; got ${url.protocol}//.`);
  }
  if (url.username || url.password) {
    throw new ValidationError(
      "baseUrl",
      "baseUrl must not contain a username or password; pass them to login() instead.",
    );
  }
  if (url.search || url.hash) {
    throw new ValidationError("baseUrl", "baseUrl must not have a query string or #fragment.");
  }
  let path = url.pathname.replace(/\/+$/, "");
  const version = /\/api\/(\d{4}-\d{2}-\d{2})$/.exec(path);
  if (version && version[1] !== API_VERSION) {
    throw new ValidationError(
      "baseUrl",
      `baseUrl asks for API version ${version[1]}, but matframe speaks ${API_VERSION}; use ".../api/${API_VERSION}" or just the host.`,
    );
  }
  if (!version) path = path.endsWith("/api") ? `${path}/${API_VERSION}` : `${path}${API_PREFIX}`;
  url.pathname = path;
  return url;
}

/** Whether a base URL names this machine (bytes cost nothing there; round trips almost nothing). */
export function isLoopback(url: URL): boolean {
  return isLoopbackHost(url.hostname);
}

/**
 * The link as the hostname suggests it, until answers say better (`LinkEstimate`): a loopback
 * name is guessed near. Only the pages in flight of the very first walk go by this guess.
 */
export function linkGuess(url: URL): LinkKind {
  return isLoopback(url) ? "near" : "far";
}

/** Fills in the transport defaults and checks each setting. */
export function resolveTransportSettings(o: TransportSettings): TransportOptions {
  const timeout = o.timeout ?? DEFAULT_TIMEOUT_MS;
  if (typeof timeout !== "number" || !(timeout > 0 && timeout <= MAX_TIMEOUT_MS)) {
    throw new ValidationError(
      "timeout",
      `timeout must be a number of milliseconds above 0 (at most ${MAX_TIMEOUT_MS}); got ${show(timeout)}.`,
    );
  }
  const maxRetries = o.maxRetries ?? DEFAULT_MAX_RETRIES;
  checkInteger("maxRetries", maxRetries, 0, 10, "0 turns retries off");
  const baseUrl = normaliseBaseUrl(o.baseUrl);
  const connections = o.connections ?? DEFAULT_CONNECTIONS;
  checkInteger("connections", connections, 1, 256);
  const userAgent = o.userAgent ?? DEFAULT_USER_AGENT;
  if (typeof userAgent !== "string" || userAgent === "" || /[\r\n]/.test(userAgent)) {
    throw new ValidationError("userAgent", "userAgent must be a non-empty string on one line.");
  }
  const maxResponseBytes = o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  checkInteger(
    "maxResponseBytes",
    maxResponseBytes,
    1024,
    Number.MAX_SAFE_INTEGER,
    "a page of 500 records is about 0.6 MB",
  );
  checkSignal("signal", o.signal);
  const cache = o.cache === undefined ? undefined : openCacheSetting(o.cache);
  const compression = o.compression;
  if (compression !== undefined && typeof compression !== "boolean")
    throw new ValidationError("compression", `compression must be true or false; got ${show(compression)}.`);
  if (o.dispatcher !== undefined && typeof (o.dispatcher as Dispatcher | null)?.request !== "function") {
    throw new ValidationError("dispatcher", "dispatcher must be an undici Dispatcher (Agent, Pool, ...).");
  }
  // The transport's interceptors are composed onto it: older undici lines have no compose().
  if (o.dispatcher !== undefined && typeof (o.dispatcher as Dispatcher).compose !== "function") {
    throw new ValidationError(
      "dispatcher",
      "dispatcher must be an undici 7 Dispatcher (Agent, Pool, ...): it has no compose(), so the client's interceptors cannot be added to it.",
    );
  }
  // Proxies are read from the environment only for a dispatcher of our own: a given one is used as is.
  const proxy = o.dispatcher === undefined ? proxyEnvironmentFor(baseUrl) : undefined;
  return {
    baseUrl,
    timeout,
    maxRetries,
    connections,
    userAgent,
    maxResponseBytes,
    cache,
    compression,
    linkGuess: linkGuess(baseUrl),
    signal: o.signal,
    dispatcher: o.dispatcher,
    ...(proxy ? { proxy } : {}),
  };
}

/** The store for a `cache` option, or a ValidationError saying what a cache may be. */
function openCacheSetting(setting: unknown): ResponseCache {
  const dir = (setting as { dir?: unknown } | null)?.dir;
  const maxBytes = (setting as { maxBytes?: unknown } | null)?.maxBytes;
  if (
    setting !== "memory" &&
    !(typeof setting === "object" && setting !== null && typeof dir === "string" && dir !== "")
  ) {
    throw new ValidationError("cache", `cache must be "memory" or { dir: "path/to/folder" }; got ${show(setting)}.`);
  }
  if (maxBytes !== undefined) checkInteger("cache.maxBytes", maxBytes, 1024 * 1024, Number.MAX_SAFE_INTEGER);
  try {
    return openCache(setting as CacheSetting);
  } catch (cause) {
    throw new ValidationError("cache", `cache.dir ${JSON.stringify(dir)} cannot be used: ${(cause as Error).message}.`);
  }
}

/** A required string option; its value is never put in the message (it may be a secret). */
export function checkSecretString(name: string, value: unknown, hint: string): asserts value is string {
  if (typeof value !== "string" || value === "") {
    throw new ValidationError(name, `${name} is required and must be a non-empty string; ${hint}`);
  }
}

/** A credential sent as a header: header-safe characters only (the value is never quoted). */
export function checkHeaderSecret(name: string, value: unknown, hint: string): asserts value is string {
  checkSecretString(name, value, hint);
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw new ValidationError(
      name,
      `${name} may hold only visible ASCII characters, without spaces or line breaks (it is sent as a header); check where it was copied from.`,
    );
  }
}

/** Collection names go into the URL path, so only plain names are allowed. */
export function checkCollectionName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !/^[A-Za-z0-9_-]+$/.test(name)) {
    throw new ValidationError(
      "name",
      `Collection name must be letters, digits, "_" or "-" (e.g. "materials"); got ${show(name)}.`,
    );
  }
}

// The options each method takes, one key per member of its options type: the compiler refuses a
// list that misses a member or names one the type does not have.

/** Every option `list()` takes. */
const LIST_OPTIONS = Object.keys({
  query: true,
  projection: true,
  signal: true,
} satisfies Record<keyof ListOptions, true>);

/** Every option `iterate()` and `pages()` take. */
const ITERATE_OPTIONS = Object.keys({
  query: true,
  fields: true,
  sort: true,
  pageSize: true,
  maxItems: true,
  paging: true,
  concurrency: true,
  signal: true,
  onPage: true,
  onDuplicate: true,
} satisfies Record<keyof IterateOptions, true>);

/** Checks `list()` options; returns the `projection` to send (or undefined). */
export function validateListOptions(o: ListOptions): { query: Query; projection?: Projection } {
  checkPlainObject("options", o as unknown);
  refuseUnusedOptions(o, LIST_OPTIONS, "list");
  const query = checkQuery(o.query);
  checkSignal("signal", o.signal);
  if (o.projection === undefined) return { query };
  checkPlainObject("projection", o.projection);
  // The rules are the wire schema's (src/schemas/projection.ts); only the wording is here.
  const parsed = Projection.safeParse(o.projection);
  if (!parsed.success) throw schemaError("projection", o.projection, parsed.error.issues[0]);
  return { query, projection: o.projection };
}

/**
 * Runs the list options' checks once on options made here, so that zod has compiled the
 * projection's schema (its first parse builds the parser: 4-12 ms) before a first request needs
 * it. For entries whose users always send requests (`matframe/notebook`).
 */
export function warmListOptions(): void {
  validateListOptions({
    query: { _id: { $in: ["warm"] } },
    projection: { fields: { _id: 1, name: 1 }, sort: { _id: 1 }, limit: 1, skip: 0 },
  });
}

/** `iterate()`/`pages()` options with every default filled in. */
export interface ResolvedIterateOptions {
  query: Query;
  /** Fields as sent: an `_id: 0` is taken out, because paging needs `_id`. */
  fields?: Fields;
  /** True when the caller excluded `_id`, so it is removed from each record before yielding. */
  stripId: boolean;
  sort: Sort;
  pageSize: number;
  maxItems: number;
  paging: "offset" | "keyset";
  /** Pages in flight; undefined means the client's default for its link (see `LinkEstimate`). */
  concurrency: number | undefined;
  signal?: AbortSignal;
  onPage?: IterateOptions["onPage"];
  onDuplicate?: IterateOptions["onDuplicate"];
}

export function validateIterateOptions(o: IterateOptions): ResolvedIterateOptions {
  checkPlainObject("options", o as unknown);
  refuseUnusedOptions(o, ITERATE_OPTIONS, "iterate");
  const query = checkQuery(o.query);
  const paging = o.paging ?? "offset";
  if (paging !== "offset" && paging !== "keyset") {
    throw new ValidationError("paging", `paging must be "offset" or "keyset"; got ${show(paging)}.`);
  }
  const pageSize = o.pageSize ?? DEFAULT_PAGE_SIZE;
  checkPageSize("pageSize", pageSize);
  const maxItems = o.maxItems ?? Infinity;
  if (maxItems !== Infinity)
    checkInteger("maxItems", maxItems, 1, Number.MAX_SAFE_INTEGER, "leave it out for no limit");
  const concurrency = o.concurrency;
  if (concurrency !== undefined) checkInteger("concurrency", concurrency, 1, MAX_CONCURRENCY);
  checkSignal("signal", o.signal);
  for (const name of ["onPage", "onDuplicate"] as const) {
    if (o[name] !== undefined && typeof o[name] !== "function") {
      throw new ValidationError(name, `${name} must be a function; got ${show(o[name])}.`);
    }
  }

  if (o.fields !== undefined) checkFields("fields", o.fields);
  const { _id: idFlag, ...otherFields } = o.fields ?? {};
  const stripId = idFlag === 0;
  const fields = o.fields === undefined ? undefined : stripId ? otherFields : o.fields;

  if (o.sort !== undefined) checkSort("sort", o.sort);
  let sort: Sort;
  if (paging === "keyset") {
    const keys = Object.keys(o.sort ?? {});
    if (keys.length > 1 || (keys.length === 1 && (keys[0] !== "_id" || o.sort!._id !== 1))) {
      throw new ValidationError(
        "sort",
        `Keyset paging always sorts by _id ascending; leave out sort, or use paging: "offset" to sort by other fields.`,
      );
    }
    sort = { _id: 1 };
  } else {
    // _id last makes the order total, so a record cannot move between pages on ties.
    sort = "_id" in (o.sort ?? {}) ? { ...o.sort } : { ...o.sort, _id: 1 };
  }
  return {
    query,
    fields,
    stripId,
    sort,
    pageSize,
    maxItems,
    paging,
    concurrency,
    signal: o.signal,
    onPage: o.onPage,
    onDuplicate: o.onDuplicate,
  };
}

function checkQuery(query: unknown): Query {
  if (query === undefined) return {};
  checkPlainObject("query", query, `a MongoDB-style query document such as { formula: "Si" }`);
  try {
    JSON.stringify(query);
  } catch (error) {
    throw new ValidationError(
      "query",
      `query cannot be sent as JSON (${(error as Error).message}); use only plain objects, arrays, strings, numbers, booleans and null.`,
    );
  }
  return query;
}

function checkFields(name: string, fields: unknown): asserts fields is Fields {
  checkPlainObject(name, fields, `e.g. { formula: 1, "lattice.a": 1 }`);
  const parsed = Fields.safeParse(fields);
  if (!parsed.success) throw schemaError(name, fields, parsed.error.issues[0]);
}

function checkSort(name: string, sort: unknown): asserts sort is Sort {
  checkPlainObject(name, sort, `e.g. { formula: 1, createdAt: -1 }`);
  const parsed = Sort.safeParse(sort);
  if (!parsed.success) throw schemaError(name, sort, parsed.error.issues[0]);
}

/**
 * A `ValidationError` for the first issue of a wire schema (`Projection`, `Fields`, `Sort`),
 * worded for the option the caller passed: the schema says what is allowed, this says it in
 * the words of the option.
 */
function schemaError(name: string, value: unknown, issue: z.core.$ZodIssue | undefined): ValidationError {
  if (!issue) return new ValidationError(name, `${name} is not valid.`);
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0];
    return new ValidationError(
      `${name}.${key}`,
      `${name}.${key} is not a projection key; use fields, sort, skip or limit.`,
    );
  }
  const path = issue.path.map(String);
  let at: unknown = value;
  for (const key of path) at = (at as Record<string, unknown> | undefined)?.[key];
  // Within fields or sort the offending key is shown in brackets, as the caller wrote it.
  const inMap = (head: string): string => (path.length > 1 ? `${head}[${JSON.stringify(path[1])}]` : head);
  const top = name === "projection" ? path[0] : undefined;
  const kind = top ?? (name.endsWith("sort") ? "sort" : "fields");
  const option = top ? `${name}.${top}` : name;
  switch (kind) {
    case "limit":
      return new ValidationError(option, pageSizeMessage(option, at));
    case "skip":
      return new ValidationError(option, integerMessage(option, at, 0, Number.MAX_SAFE_INTEGER));
    case "sort":
      return new ValidationError(option, `${inMap(option)} must be 1 (ascending) or -1 (descending); got ${show(at)}.`);
    default: {
      const key = top ? path[1] : path[0];
      const where = key === undefined ? option : `${option}[${JSON.stringify(key)}]`;
      return new ValidationError(option, `${where} must be 1 (include) or 0 (exclude); got ${show(at)}.`);
    }
  }
}

function checkPageSize(name: string, value: unknown): void {
  if (!isIntegerIn(value, 1, MAX_LIMIT)) throw new ValidationError(name, pageSizeMessage(name, value));
}

function checkInteger(name: string, value: unknown, min: number, max: number, hint?: string): asserts value is number {
  if (!isIntegerIn(value, min, max)) throw new ValidationError(name, integerMessage(name, value, min, max, hint));
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

function pageSizeMessage(name: string, value: unknown): string {
  return integerMessage(name, value, 1, MAX_LIMIT, `${MAX_LIMIT} is the platform's largest page`);
}

function integerMessage(name: string, value: unknown, min: number, max: number, hint?: string): string {
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
  return `${name} must be an integer ${range}${hint ? ` (${hint})` : ""}; got ${show(value)}.`;
}

function checkSignal(name: string, signal: unknown): void {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ValidationError(
      name,
      `${name} must be an AbortSignal, e.g. AbortSignal.timeout(60_000) or controller.signal.`,
    );
  }
}

function checkPlainObject(name: string, value: unknown, example?: string): asserts value is Record<string, unknown> {
  const proto = value !== null && typeof value === "object" ? Object.getPrototypeOf(value) : undefined;
  if (proto !== Object.prototype && proto !== null) {
    throw new ValidationError(
      name,
      `${name} must be a plain object${example ? ` (${example})` : ""}; got ${show(value)}.`,
    );
  }
}

/** A short description of a bad value, for messages. */
function show(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === "object") return `a ${value.constructor?.name ?? "object"}`;
  if (typeof value === "function") return "a function";
  return String(value);
}
