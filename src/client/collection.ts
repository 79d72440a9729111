import type { StructureExportOptions, StructureExportResult } from "../frame/export/structure-export";
import { MAX_LIMIT, type Fields, type Projection, type Query } from "../schemas";
import type { Client } from "./client";
import { ResponseValidationError, ValidationError } from "../errors";
import { checkImport, checkModifier, checkRecordBody, type ImportOptions, type Modifier, type WriteOptions } from "./writes";
import type { IterateOptions, ListOptions } from "./config/options";
import type { FetchPage } from "./paging/fetch-page";
import type { ReadAnswer, ReadKeeping } from "./transport/read-answers";
import { keysetPages } from "./paging/keyset";
import { afterId, partitionQuery, splitIdRange, withinPart, type IdPartition } from "./paging/partitions";
import { offsetPages } from "./paging/offset";
import { recordArray, recordObject } from "./transport/response-checks";
import { checkCollectionName, validateIterateOptions, validateListOptions, type ResolvedIterateOptions } from "./config/validate-options";
// Types only: the frame layer is loaded on first use (danfo, CSV writers), never by `require("matframe")`.
import type {
  CollectionCsvOptions,
  CollectionFrameOptions,
  CollectionNdjsonOptions,
  CollectionParquetOptions,
  CollectionArrowOptions,
} from "../frame/collection-io";
import type { ArrowTable } from "../frame/export/arrow";
import type { DataFrame } from "../frame/table/dataframe";
import type { ExportResult, ExportTarget } from "../frame/export/export";

/** What every platform record is: a plain object with a string `_id`. */
export interface PlatformRecord {
  _id: string;
  [key: string]: unknown;
}

type TopKey<P extends string> = P extends `${infer Head}.${string}` ? Head : P;
type KeysWith<F, V> = { [K in keyof F]-?: F[K] extends V ? K : never }[keyof F] & string;
/** Keeps the named keys of `R` (and its index signature's values stay out): a `Pick` that works on loose records. */
type Keep<R, K> = { [P in keyof R as P extends K ? P : never]: R[P] };
type Drop<R, K> = { [P in keyof R as P extends K ? never : P]: R[P] };

/**
 * The record type a projection's `fields` gives, at the top level: `{ formula: 1, "lattice.a": 1 }`
 * keeps `_id`, `formula` and `lattice` of `R`; `{ basis: 0 }` drops `basis`; no `fields` (or a
 * `Fields` value whose keys are not known when compiling) keeps `R` whole. A nested path keeps
 * its whole top-level field in the type, though only the path crosses the wire.
 */
export type Projected<R, F> = string extends keyof F
  ? R
  : [KeysWith<F, 1>] extends [never]
    ? [KeysWith<F, 0>] extends [never]
      ? R
      : Drop<R, Exclude<KeysWith<F, 0>, `${string}.${string}`>>
    : Drop<Keep<R, "_id" | TopKey<KeysWith<F, 1>>>, "_id" extends KeysWith<F, 0> ? "_id" : never>;

/** `never` (no type given) picks the projected type; any other `T` is the caller's own record type. */
export type RecordOf<T, R, F> = [T] extends [never] ? Projected<R, F> : T;

/**
 * A platform collection that supports the list action, e.g. `client.materials`: read one page,
 * one record, every record, or every record into a DataFrame or a file. Records are typed `R`,
 * narrowed to what `fields` asks for; pass your own type as the first type argument to override.
 */
export class Collection<R extends PlatformRecord = PlatformRecord> {
  readonly client: Client;
  /** The collection's path segment, e.g. `"materials"`. */
  readonly name: string;

  constructor(client: Client, name: string) {
    checkCollectionName(name);
    this.client = client;
    this.name = name;
  }

  /**
   * One page, exactly one request: `GET /{name}?query=...&projection=...`.
   * @example const page = await client.materials.list({ query: { formula: "Si" }, projection: { limit: 10 } });
   */
  async list<T extends object = never, const F extends Fields = {}>(
    options: ListOptions & { projection?: { fields?: F } } = {},
  ): Promise<RecordOf<T, R, F>[]> {
    const { query, projection } = validateListOptions(options);
    const records = await this.#fetch(query, projection, options.signal, recordArray({ requireId: false, maxItems: projection?.limit }));
    return records as RecordOf<T, R, F>[];
  }

  /**
   * One record by `_id`: `GET /{name}/{id}`. Throws `NotFoundError` when there is none.
   * @example const si = await client.materials.get("LCthBQo9PPbPkHFRU");
   */
  async get<T extends object = never>(id: string, options: { signal?: AbortSignal } = {}): Promise<RecordOf<T, R, {}>> {
    if (typeof id !== "string" || id === "") {
      throw new ValidationError("id", `id must be a non-empty string (a record's _id); got ${typeof id === "string" ? "an empty string" : typeof id}.`);
    }
    const record = await this.client.getData(`${this.name}/${encodeURIComponent(id)}`, { signal: options.signal, check: recordObject });
    return record as RecordOf<T, R, {}>;
  }

  /**
   * Creates a record: `PUT /{name}/create` with the record as JSON. Resolves to the record the
   * platform stored (with its new `_id` and `owner`). Never retried once it may have reached the
   * server, so a network error leaves you to check (e.g. by a query on a unique name) before
   * creating again.
   * @example const mine = await client.materials.create({ name: "Si, strained 1%", lattice, basis });
   */
  async create<T extends object = never>(record: Record<string, unknown>, options: WriteOptions = {}): Promise<RecordOf<T, R, {}>> {
    checkRecordBody("record", record);
    return this.#written(await this.client.writeData("PUT", `${this.name}/create`, { body: record, signal: options.signal })) as RecordOf<T, R, {}>;
  }

  /**
   * Changes a record you own: `PATCH /{name}/{id}` with a MongoDB modifier (`$set`, `$unset`,
   * `$push`, `$pull`, `$addToSet`), or a plain object of fields, sent as `$set` of them (the form
   * the platform's Python client uses). Resolves to the updated record.
   * @example await client.materials.update(id, { $set: { name: "Si (relaxed)" }, $addToSet: { tags: "relaxed" } });
   * @example await client.materials.update(id, { name: "Si (relaxed)" });
   */
  async update<T extends object = never>(id: string, modifier: Modifier | Record<string, unknown>, options: WriteOptions = {}): Promise<RecordOf<T, R, {}>> {
    const body = checkModifier(modifier);
    return this.#written(await this.client.writeData("PATCH", this.#path(id), { body, signal: options.signal })) as RecordOf<T, R, {}>;
  }

  /**
   * Deletes a record you own: `DELETE /{name}/{id}`.
   * @example await client.materials.delete(id);
   */
  async delete(id: string, options: WriteOptions = {}): Promise<void> {
    await this.client.writeData("DELETE", this.#path(id), { signal: options.signal });
  }

  /**
   * Copies a record you can read (the platform's public materials included) into your account:
   * `POST /{name}/{id}/copy`. Resolves to the copy, with its own `_id`.
   * @example const copy = await client.materials.copy(si._id);
   */
  async copy<T extends object = never>(id: string, options: WriteOptions = {}): Promise<RecordOf<T, R, {}>> {
    return this.#written(await this.client.writeData("POST", `${this.#path(id)}/copy`, { signal: options.signal })) as RecordOf<T, R, {}>;
  }

  /**
   * Imports a structure file as a new material: `POST /materials/import` with
   * `{ name, content, format, tags }`, as the platform's own client sends it. The text is read
   * here first (`fromPoscar` / `fromCif`), so a malformed file fails with the reader's
   * `StructureError` before anything is sent. Resolves to the material the platform made of it
   * (formula, lattice, basis, derived properties).
   * @example const si = await client.materials.importStructure({ name: "Si", content: fs.readFileSync("Si.vasp", "utf8"), format: "poscar" });
   */
  async importStructure<T extends object = never>(file: ImportOptions, options: WriteOptions = {}): Promise<RecordOf<T, R, {}>> {
    if (this.name !== "materials") throw new ValidationError("collection", `importStructure imports materials; use client.materials, not client.collection("${this.name}").`);
    const body = checkImport(file);
    return this.#written(await this.client.writeData("POST", "materials/import", { body, signal: options.signal })) as RecordOf<T, R, {}>;
  }

  #path(id: unknown): string {
    if (typeof id !== "string" || id === "") {
      throw new ValidationError("id", `id must be a non-empty string (a record's _id); got ${typeof id === "string" ? "an empty string" : typeof id}.`);
    }
    return `${this.name}/${encodeURIComponent(id)}`;
  }

  #written(data: unknown): PlatformRecord {
    const checked = recordObject(data);
    if (checked.ok) return checked.value;
    throw new ResponseValidationError(`${this.name}: the platform answered a write without the record it wrote (${checked.issues[0]?.message ?? "not a record"}).`, {
      endpoint: `${this.name}`,
      status: 200,
      issues: checked.issues,
    });
  }

  /**
   * Every page of the collection (or of `query`), in order; see `IterateOptions`. Options are
   * checked at once, so a bad one throws `ValidationError` here, before any request.
   * @example for await (const page of client.materials.pages({ pageSize: 200 })) console.log(page.length);
   */
  pages<T extends object = never, const F extends Fields = {}>(options: IterateOptions & { fields?: F } = {}): AsyncIterable<RecordOf<T, R, F>[]> {
    return this.walk(validateIterateOptions(options)) as AsyncIterable<RecordOf<T, R, F>[]>;
  }

  /**
   * Every record of the collection (or of `query`), in order; see `IterateOptions`.
   * @example for await (const m of client.materials.iterate({ fields: { formula: 1 } })) console.log(m.formula);
   */
  iterate<T extends object = never, const F extends Fields = {}>(options: IterateOptions & { fields?: F } = {}): AsyncIterable<RecordOf<T, R, F>> {
    return flatten(this.pages<T, F>(options));
  }

  /**
   * Every matching record as one row of a danfo DataFrame, with the columns asked for (only
   * the fields they need cross the wire). Columns fill while pages stream; the frame is built
   * once at the end. danfojs-node (an optional peer) is loaded on first use.
   *
   * @example
   * const df = await client.materials.toDataFrame({
   *   query: { "lattice.type": "FCC" },
   *   columns: ["formula", "lattice.a", "derivedProperties.density"],
   * });
   */
  async toDataFrame(options: CollectionFrameOptions = {}): Promise<DataFrame> {
    const io = await import("../frame/collection-io.js");
    const read = io.planTableRead(options, this.name);
    // With the cache in memory, a read is kept and confirmed as a whole (not when repeats are
    // reported to onDuplicate: a read from memory could not report them again).
    const keeping: ReadKeeping | undefined =
      this.client.keepsReads && !read.walk.onDuplicate
        ? { key: io.readKey({ identity: this.client.identity, baseUrl: this.client.baseUrl, name: this.name }, read, options), confirm: (answers, signal) => this.#confirm(answers, signal) }
        : undefined;
    return io.readFrame((onAnswer) => io.rowsOf(read, this.walk(read.walk, onAnswer)), read.plan, options, keeping);
  }

  /**
   * Every matching record as one row of an apache-arrow `Table` with typed columns (the same
   * columns and types as `exportParquet`), for any Arrow consumer (DuckDB, Arquero, Perspective)
   * without copying through rows. apache-arrow (an optional peer) is loaded on first use.
   * @example const table = await client.materials.toArrow({ columns: ["formula", "lattice.a"] });
   */
  async toArrow(options: CollectionArrowOptions = {}): Promise<ArrowTable> {
    const io = await import("../frame/collection-io.js");
    const read = io.planTableRead(options, this.name);
    if (!options.arrow) io.loadArrow(); // a missing package fails before any request
    return io.readArrow(io.rowsOf(read, this.walk(read.walk)), read.plan, options);
  }

  /**
   * Writes every matching record as CSV to a file (atomically: a temporary file renamed on
   * success; an existing file needs `force`) or to a writable stream, page by page.
   *
   * @example
   * const { items, path } = await client.materials.exportCsv("materials.csv", { columns: ["formula", "lattice.a"] });
   */
  async exportCsv(target: ExportTarget, options: CollectionCsvOptions = {}): Promise<ExportResult> {
    const io = await import("../frame/collection-io.js");
    return io.runTableExport(this, target, io.planTableExport("csv", options, this.name), options);
  }

  /**
   * Writes every matching record as NDJSON, one object per line keyed by column; otherwise as
   * {@link Collection.exportCsv}.
   * @example await client.materials.exportNdjson(process.stdout, { columns: ["formula", "lattice"] });
   */
  async exportNdjson(target: ExportTarget, options: CollectionNdjsonOptions = {}): Promise<ExportResult> {
    const io = await import("../frame/collection-io.js");
    return io.runTableExport(this, target, io.planTableExport("ndjson", options, this.name), options);
  }

  /**
   * Writes every matching record as one Parquet file with typed columns (double, int32/int64,
   * boolean, string; nulls as nulls), a row group at a time while pages stream, atomically as
   * {@link Collection.exportCsv}. DuckDB, pandas, polars and Spark read it in place.
   * @example await client.materials.exportParquet("materials.parquet", { columns: ["formula", "lattice.a"] });
   */
  async exportParquet(target: ExportTarget, options: CollectionParquetOptions = {}): Promise<ExportResult> {
    const io = await import("../frame/collection-io.js");
    return io.runTableExport(this, target, io.planTableExport("parquet", options, this.name), options);
  }

  /**
   * Writes the structure of every matching material as a file (`format`: `"poscar"`, `"cif"` or
   * `"xyz"`) into the directory `dir`, with an `index.csv`, page by page; the directory appears
   * only when complete (an existing one needs `force`). xyz can also go to one multi-frame file
   * (`singleFile: true`, `dir` is then the file).
   * @example await client.materials.exportStructures("structures", { query: { formula: "Si" }, format: "cif" });
   */
  async exportStructures(dir: string, options: StructureExportOptions): Promise<StructureExportResult> {
    const io = await import("../frame/export/structure-export.js");
    const plan = io.planStructureExport(options);
    return io.writeStructures(this, dir, plan, options);
  }

  /**
   * The pages of a walk whose options were already checked and resolved (by `pages()`, or once
   * by a table read or the CLI), so no option is checked twice. `onAnswer` is told each answer's
   * request and validator (undefined for an answer without one), for a read to be kept.
   * @internal
   */
  walk(resolved: ResolvedIterateOptions, onAnswer?: (answer: ReadAnswer | undefined) => void): AsyncIterable<PlatformRecord[]> {
    const client = this.client;
    // Without a concurrency of its own, a walk follows the client's link estimate page by page:
    // the first answer of a tunnel to a far platform raises a loopback guess of 3 to 6.
    const o = resolved.concurrency !== undefined
      ? { ...resolved, concurrency: resolved.concurrency }
      : Object.defineProperty({ ...resolved, concurrency: 0 }, "concurrency", { get: () => client.defaultConcurrency, enumerable: true });
    const fetchPage: FetchPage = ({ query, projection }, signal) => {
      const search = listSearch(query, projection);
      const onValidator = onAnswer && ((etag: string | undefined) => onAnswer(etag === undefined ? undefined : { search, etag }));
      return this.client.getData(this.name, { search, signal, check: recordArray({ requireId: true, maxItems: projection.limit }), onValidator });
    };
    fetchPage.keptBytes = ({ query, projection }) => this.client.keptBytes(this.name, listSearch(query, projection));
    const walk = () => (o.paging === "keyset" ? keysetPages(fetchPage, o, this.#endpoint()) : offsetPages(fetchPage, o, this.#endpoint()));
    // One request timed before the first pages are asked for (only while the link is unknown).
    const pages = measuredFirst(() => client.measureLink(o.signal), walk);
    return o.stripId ? withoutIds(pages) : pages;
  }

  /**
   * The walks of a partitioned read: the `_id` range split into `parts` (see `splitIdRange`),
   * each walked with its own keyset cursor. Costs two requests for a sample of ids first. The
   * caller has checked the plan (`planTableExport`: parts in range, `_id` order, no maxItems).
   * @internal
   */
  async partitionWalks(resolved: ResolvedIterateOptions, parts: number, signal: AbortSignal): Promise<AsyncIterable<PlatformRecord[]>[]> {
    const ranges = await this.partitionRanges(resolved, parts, signal);
    return ranges.map((part) => this.partWalk(resolved, part, signal));
  }

  /**
   * The `_id` ranges of a partitioned read (see `splitIdRange`), from a sample of the first and
   * last ids (two requests).
   * @internal
   */
  async partitionRanges(resolved: ResolvedIterateOptions, parts: number, signal: AbortSignal): Promise<IdPartition[]> {
    if (parts === 1) return splitIdRange([], 1);
    const merged = resolved.signal ? AbortSignal.any([resolved.signal, signal]) : signal;
    const sample = async (direction: 1 | -1): Promise<string[]> => {
      const projection: Projection = { fields: { _id: 1 }, sort: { _id: direction }, limit: MAX_LIMIT };
      const records = await this.#fetch(resolved.query, projection, merged, recordArray({ requireId: true, maxItems: MAX_LIMIT }));
      return records.map((record) => record._id);
    };
    return splitIdRange((await Promise.all([sample(1), sample(-1)])).flat(), parts);
  }

  /**
   * One part's walk, with its own keyset cursor (after `cursor` when a resumed export continues it).
   * @internal
   */
  partWalk(resolved: ResolvedIterateOptions, part: IdPartition, signal: AbortSignal, cursor?: string): AsyncIterable<PlatformRecord[]> {
    const merged = resolved.signal ? AbortSignal.any([resolved.signal, signal]) : signal;
    const query = afterId(partitionQuery(resolved.query, part), cursor);
    // Ids are checked against the part's range before a caller's stripId drops them.
    const pages = withinPart(this.walk({ ...resolved, paging: "keyset", sort: { _id: 1 }, concurrency: 1, signal: merged, query, stripId: false }), part, this.#endpoint(), cursor);
    return resolved.stripId ? withoutIds(pages) : pages;
  }

  /**
   * Where a resumed export must read from again: the base URL without credentials, and the account.
   * @internal
   */
  get source(): { platform: string; account: string } {
    const url = new URL(this.client.baseUrl);
    url.username = "";
    url.password = "";
    return { platform: url.href.replace(/\/$/, ""), account: this.client.identity };
  }

  /**
   * Revalidates the answers of a kept read, `CONFIRM_IN_FLIGHT` at a time (what the pipelining
   * pool sends at once): true when every one is unchanged. The first changed answer stops the
   * rest, since the read then runs again anyway.
   */
  async #confirm(answers: readonly ReadAnswer[], signal: AbortSignal | undefined): Promise<boolean> {
    const stop = new AbortController();
    const merged = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    let next = 0;
    let confirmed = true;
    const confirmSome = async (): Promise<void> => {
      while (confirmed && next < answers.length) {
        const answer = answers[next++];
        if (!(await this.client.revalidate(this.name, { ...answer.search }, answer.etag, merged))) {
          confirmed = false;
          stop.abort();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONFIRM_IN_FLIGHT, answers.length) }, confirmSome));
    return confirmed;
  }

  /** `GET /api/2018-10-01/{name}`, as errors name it. */
  #endpoint(): string {
    return `GET ${new URL(this.client.baseUrl).pathname}/${this.name}`;
  }

  #fetch(
    query: Query,
    projection: Projection | undefined,
    signal: AbortSignal | undefined,
    check: ReturnType<typeof recordArray>,
  ): Promise<PlatformRecord[]> {
    return this.client.getData(this.name, { search: listSearch(query, projection), signal, check });
  }
}

/** Revalidations of a kept read in flight at once: the pipelining pool's 4 connections × 16. */
const CONFIRM_IN_FLIGHT = 64;

/** The query string of a list request. */
function listSearch(query: Query, projection: Projection | undefined): Record<string, string> {
  const search: Record<string, string> = { query: JSON.stringify(query) };
  if (projection) search.projection = JSON.stringify(projection);
  return search;
}

/** The walk, started once `measure` has settled. */
async function* measuredFirst<T>(measure: () => Promise<void>, walk: () => AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
  await measure();
  yield* walk();
}

async function* flatten<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page;
}

/** The caller asked for `_id: 0`, but paging needed `_id`; take it off before yielding. */
async function* withoutIds(pages: AsyncIterable<PlatformRecord[]>): AsyncGenerator<PlatformRecord[], void, undefined> {
  for await (const page of pages) {
    for (const record of page) delete (record as Partial<PlatformRecord>)._id;
    yield page;
  }
}
