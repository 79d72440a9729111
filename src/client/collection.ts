import type { Fields, Projection, Query } from "../schemas";
import { ResponseValidationError, ValidationError } from "../errors";
import type { Connection } from "./connection";
import type { PlatformRecord } from "./platform-record";
import { RecordWalker, listSearch } from "./record-walker";
import {
  checkImport,
  checkModifier,
  checkRecordBody,
  type ImportOptions,
  type Modifier,
  type WriteOptions,
} from "./writes";
import type { IterateOptions, ListOptions } from "./config/options";
import { recordArray, recordObject } from "./transport/response-checks";
import { checkCollectionName, validateIterateOptions, validateListOptions } from "./config/validate-options";
import { internalsOf } from "./client-internals";

export type { PlatformRecord } from "./platform-record";

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
  // `client` (typed `Client`) is declared in client.ts, which makes collections; this file names
  // only what a collection uses of it, so the two do not import each other.
  readonly #client: Connection;
  /** The collection's path segment, e.g. `"materials"`. */
  readonly name: string;

  constructor(client: Connection, name: string) {
    checkCollectionName(name);
    Object.defineProperty(this, "client", { value: client, enumerable: true });
    this.#client = client;
    this.name = name;
  }

  /**
   * The client's requests, for the collections that add the platform's own verbs (`jobs.submit`,
   * `materials.createSet`) in their own files.
   * @internal
   */
  protected get connection(): Connection {
    return this.#client;
  }

  /**
   * One page, exactly one request: `GET /{name}?query=...&projection=...`.
   * @example const page = await client.materials.list({ query: { formula: "Si" }, projection: { limit: 10 } });
   */
  async list<T extends object = never, const F extends Fields = {}>(
    options: ListOptions & { projection?: { fields?: F } } = {},
  ): Promise<RecordOf<T, R, F>[]> {
    const { query, projection } = validateListOptions(options);
    const records = await this.#fetch(
      query,
      projection,
      options.signal,
      recordArray({ requireId: false, maxItems: projection?.limit }),
    );
    return records as RecordOf<T, R, F>[];
  }

  /**
   * One record by `_id`: `GET /{name}/{id}`. Throws `NotFoundError` when there is none.
   * @example const si = await client.materials.get("LCthBQo9PPbPkHFRU");
   */
  async get<T extends object = never>(id: string, options: { signal?: AbortSignal } = {}): Promise<RecordOf<T, R, {}>> {
    if (typeof id !== "string" || id === "") {
      throw new ValidationError(
        "id",
        `id must be a non-empty string (a record's _id); got ${typeof id === "string" ? "an empty string" : typeof id}.`,
      );
    }
    const record = await this.#client.getData(`${this.name}/${encodeURIComponent(id)}`, {
      signal: options.signal,
      check: recordObject,
    });
    return record as RecordOf<T, R, {}>;
  }

  /**
   * Creates a record: `PUT /{name}/create` with the record as JSON. Resolves to the record the
   * platform stored (with its new `_id` and `owner`). Never retried once it may have reached the
   * server, so a network error leaves you to check (e.g. by a query on a unique name) before
   * creating again.
   * @example const mine = await client.materials.create({ name: "Si, strained 1%", lattice, basis });
   */
  async create<T extends object = never>(
    record: Record<string, unknown>,
    options: WriteOptions = {},
  ): Promise<RecordOf<T, R, {}>> {
    checkRecordBody("record", record);
    return this.checkWritten(
      await internalsOf(this.#client).writeData("PUT", `${this.name}/create`, { body: record, signal: options.signal }),
    ) as RecordOf<T, R, {}>;
  }

  /**
   * Changes a record you own: `PATCH /{name}/{id}` with a MongoDB modifier (`$set`, `$unset`,
   * `$push`, `$pull`, `$addToSet`), or a plain object of fields, sent as `$set` of them (the form
   * the platform's Python client uses). Resolves to the updated record.
   * @example await client.materials.update(id, { $set: { name: "Si (relaxed)" }, $addToSet: { tags: "relaxed" } });
   * @example await client.materials.update(id, { name: "Si (relaxed)" });
   */
  async update<T extends object = never>(
    id: string,
    modifier: Modifier | Record<string, unknown>,
    options: WriteOptions = {},
  ): Promise<RecordOf<T, R, {}>> {
    const body = checkModifier(modifier);
    return this.checkWritten(
      await internalsOf(this.#client).writeData("PATCH", this.recordPath(id), { body, signal: options.signal }),
    ) as RecordOf<T, R, {}>;
  }

  /**
   * Deletes a record you own: `DELETE /{name}/{id}`.
   * @example await client.materials.delete(id);
   */
  async delete(id: string, options: WriteOptions = {}): Promise<void> {
    await internalsOf(this.#client).writeData("DELETE", this.recordPath(id), { signal: options.signal });
  }

  /**
   * Copies a record you can read (the platform's public materials included) into your account:
   * `POST /{name}/{id}/copy`. Resolves to the copy, with its own `_id`.
   * @example const copy = await client.materials.copy(si._id);
   */
  async copy<T extends object = never>(id: string, options: WriteOptions = {}): Promise<RecordOf<T, R, {}>> {
    return this.checkWritten(
      await internalsOf(this.#client).writeData("POST", `${this.recordPath(id)}/copy`, { signal: options.signal }),
    ) as RecordOf<T, R, {}>;
  }

  /**
   * Imports a structure file as a new material: `POST /materials/import` with
   * `{ name, content, format, tags }`, as the platform's own client sends it. The text is read
   * here first (`fromPoscar` / `fromCif`), so a malformed file fails with the reader's
   * `StructureError` before anything is sent. Resolves to the material the platform made of it
   * (formula, lattice, basis, derived properties).
   * @example const si = await client.materials.importStructure({ name: "Si", content: fs.readFileSync("Si.vasp", "utf8"), format: "poscar" });
   */
  async importStructure<T extends object = never>(
    file: ImportOptions,
    options: WriteOptions = {},
  ): Promise<RecordOf<T, R, {}>> {
    if (this.name !== "materials")
      throw new ValidationError(
        "collection",
        `importStructure imports materials; use client.materials, not client.collection("${this.name}").`,
      );
    const body = checkImport(file);
    return this.checkWritten(
      await internalsOf(this.#client).writeData("POST", "materials/import", { body, signal: options.signal }),
    ) as RecordOf<T, R, {}>;
  }

  /** `{name}/{id}` for a non-empty string id, else a ValidationError. @internal */
  protected recordPath(id: unknown): string {
    if (typeof id !== "string" || id === "") {
      throw new ValidationError(
        "id",
        `id must be a non-empty string (a record's _id); got ${typeof id === "string" ? "an empty string" : typeof id}.`,
      );
    }
    return `${this.name}/${encodeURIComponent(id)}`;
  }

  /** The record a write answered with, or a ResponseValidationError saying it is missing. @internal */
  protected checkWritten(data: unknown): PlatformRecord {
    const checked = recordObject(data);
    if (checked.ok) return checked.value;
    throw new ResponseValidationError(
      `${this.name}: the platform answered a write without the record it wrote (${checked.issues[0]?.message ?? "not a record"}).`,
      {
        endpoint: `${this.name}`,
        status: 200,
        issues: checked.issues,
      },
    );
  }

  /**
   * Every page of the collection (or of `query`), in order; see `IterateOptions`. Options are
   * checked at once, so a bad one throws `ValidationError` here, before any request.
   * @example for await (const page of client.materials.pages({ pageSize: 200 })) console.log(page.length);
   */
  pages<T extends object = never, const F extends Fields = {}>(
    options: IterateOptions & { fields?: F } = {},
  ): AsyncIterable<RecordOf<T, R, F>[]> {
    return new RecordWalker({ client: this.#client, name: this.name }).walk(
      validateIterateOptions(options),
    ) as AsyncIterable<RecordOf<T, R, F>[]>;
  }

  /**
   * Every record of the collection (or of `query`), in order; see `IterateOptions`.
   * @example for await (const m of client.materials.iterate({ fields: { formula: 1 } })) console.log(m.formula);
   */
  iterate<T extends object = never, const F extends Fields = {}>(
    options: IterateOptions & { fields?: F } = {},
  ): AsyncIterable<RecordOf<T, R, F>> {
    return flatten(this.pages<T, F>(options));
  }

  #fetch(
    query: Query,
    projection: Projection | undefined,
    signal: AbortSignal | undefined,
    check: ReturnType<typeof recordArray>,
  ): Promise<PlatformRecord[]> {
    return this.#client.getData(this.name, { search: listSearch(query, projection), signal, check });
  }
}

async function* flatten<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page;
}
