// The options of `OptimadeClient` and of a walk of its entries, checked once at the public entry.
import { ValidationError } from "../../errors";
import type { TransportSettings } from "../config/options";
import { refuseUnusedOptions } from "../config/unused-options";

/** `new OptimadeClient(options)`. */
export interface OptimadeClientOptions
  extends Pick<
    TransportSettings,
    "timeout" | "maxRetries" | "signal" | "userAgent" | "dispatcher" | "maxResponseBytes"
  > {
  /**
   * The provider's unversioned base URL, as providers.optimade.org lists it (with or without a
   * trailing slash); the client finds `/v1` below it. A versioned base (`.../v1`) is used as is.
   * An index meta-database is resolved through its `/links` to the database it names.
   * @example "https://optimade.materialsproject.org"
   */
  baseUrl: string;
  /**
   * For an index meta-database that names several databases: the `id` (or `name`) of the one
   * to read. Left out, its default database is read, or its only one.
   * @example "mp"
   */
  database?: string;
}

/** `op.structures.iterate(options)`, `pages(options)`. */
export interface OptimadeIterateOptions {
  /**
   * An OPTIMADE filter (spec section 5), sent as it is; the provider parses it and a malformed one
   * throws `OptimadeFilterError` with the provider's own message.
   * @default every entry
   * @example 'elements HAS ALL "Si", "O" AND nelements = 2'
   */
  filter?: string;
  /**
   * The properties each entry keeps (`id` and `type` always), sent as `response_fields` and
   * enforced here whatever the provider returns. Provider-specific ones keep their prefix
   * (`_mp_stability`).
   * @default every property the provider sends
   * @example ["chemical_formula_reduced", "nsites", "lattice_vectors"]
   */
  fields?: readonly string[];
  /**
   * Entries per page, sent as `page_limit`; providers cap it (often at 100 to 1000).
   * @default the provider's own page size
   */
  pageSize?: number;
  /**
   * Stop after this many entries; no page beyond them is asked for.
   * @default Infinity
   */
  maxItems?: number;
  /** Aborts the walk (merged with the client's signal). */
  signal?: AbortSignal;
  /** After each page: pages and entries so far, and `total`, the provider's `meta.data_returned` when it sends one. */
  onProgress?: (progress: OptimadeProgress) => void;
}

/** How far a walk has come. */
export interface OptimadeProgress {
  readonly pages: number;
  readonly items: number;
  /** What the filter matched over every page (`meta.data_returned`), when the provider says. */
  readonly total?: number;
}

/** A walk's options once checked (what `OptimadeEntries.walk` takes; the frame side reads through it). */
export interface ResolvedOptimadeWalk {
  /** The OPTIMADE filter, sent as `filter`. */
  readonly filter: string | undefined;
  /** The properties sent as `response_fields`, and the only ones kept. */
  readonly fields: readonly string[] | undefined;
  /** Sent as `page_limit`. */
  readonly pageSize: number | undefined;
  /** Entries read at most (`Infinity` for all). */
  readonly maxItems: number;
  /** Ends the walk when aborted. */
  readonly signal: AbortSignal | undefined;
  /** Called after each page, with the provider's `data_returned` as the total. */
  readonly onProgress: ((progress: OptimadeProgress) => void) | undefined;
}

/** Largest `page_limit` matframe sends: more than any provider serves in one page. */
export const MAX_OPTIMADE_PAGE = 10_000;

/** An OPTIMADE property name (spec section 2.1): lower case, digits and `_`, not starting with a digit. */
const PROPERTY_NAME = /^[a-z_][a-z0-9_]*$/;

/** Every option of `iterate` and `pages`, one key per member (checked by the compiler). */
const WALK_OPTIONS = Object.keys({
  filter: true,
  fields: true,
  pageSize: true,
  maxItems: true,
  signal: true,
  onProgress: true,
} satisfies Record<keyof OptimadeIterateOptions, true>);

/**
 * What to say of the platform's options given to an OPTIMADE read: dropped, they would read the
 * whole provider unfiltered and look like success.
 */
export const OPTIMADE_OPTION_HINTS: Readonly<Record<string, string>> = Object.freeze({
  query: `OPTIMADE reads take filter, an OPTIMADE filter string such as 'elements HAS "Si" AND nelements=2', not a query object`,
  sort: "entries come in the provider's own order: sorting is optional in OPTIMADE and matframe does not ask for it; sort the rows once read",
  projection: "name the properties to keep in fields",
});

/**
 * Checks a walk's options once.
 * @param method how refusals name the call, e.g. `"structures.iterate"`
 */
export function resolveOptimadeWalk(options: OptimadeIterateOptions = {}, method = "iterate"): ResolvedOptimadeWalk {
  if (options === null || typeof options !== "object")
    throw new ValidationError("options", "Pass the walk's options as an object, e.g. { filter: 'nelements=2' }.");
  refuseUnusedOptions(options, WALK_OPTIONS, method, OPTIMADE_OPTION_HINTS);
  const { filter, fields, pageSize, maxItems = Infinity, signal, onProgress } = options;
  if (filter !== undefined && (typeof filter !== "string" || filter.trim() === ""))
    throw new ValidationError(
      "filter",
      `filter must be a non-empty OPTIMADE filter string, e.g. 'elements HAS "Si"'; got ${JSON.stringify(filter)}.`,
    );
  if (fields !== undefined) checkFields(fields);
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= MAX_OPTIMADE_PAGE))
    throw new ValidationError(
      "pageSize",
      `pageSize must be an integer from 1 to ${MAX_OPTIMADE_PAGE}; got ${JSON.stringify(pageSize)}.`,
    );
  if (!(maxItems === Infinity || (Number.isInteger(maxItems) && maxItems >= 1)))
    throw new ValidationError("maxItems", `maxItems must be an integer of 1 or more; got ${JSON.stringify(maxItems)}.`);
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new ValidationError("signal", "signal must be an AbortSignal, e.g. AbortSignal.timeout(60_000).");
  if (onProgress !== undefined && typeof onProgress !== "function")
    throw new ValidationError("onProgress", "onProgress must be a function.");
  return {
    filter: filter?.trim(),
    fields: fields === undefined ? undefined : [...new Set(fields)],
    pageSize,
    maxItems,
    signal,
    onProgress,
  };
}

function checkFields(fields: unknown): asserts fields is readonly string[] {
  if (!Array.isArray(fields) || fields.length === 0)
    throw new ValidationError(
      "fields",
      'fields must be a non-empty array of OPTIMADE property names, e.g. ["chemical_formula_reduced", "nsites"].',
    );
  for (const field of fields) {
    if (typeof field !== "string" || !PROPERTY_NAME.test(field))
      throw new ValidationError(
        "fields",
        `${JSON.stringify(field)} is not an OPTIMADE property name: names are lower case letters, digits and "_" (e.g. "nsites", "_mp_stability").`,
      );
  }
}
