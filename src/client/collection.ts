import { Material, type Projection, type Query } from "../schemas";
import type { ApiClient } from "./api-client";
import { ValidationError } from "../errors";
import type { IterateOptions, ListOptions } from "./options";
import type { FetchPage } from "./paging/fetch-page";
import { keysetPages } from "./paging/keyset";
import { offsetPages } from "./paging/offset";
import { fromSchema, recordArray } from "./response-checks";
import { checkCollectionName, validateIterateOptions, validateListOptions } from "./validate-options";

const checkMaterial = fromSchema(Material);

/**
 * A platform collection that supports the list action, e.g. `client.materials`.
 * Subclasses (see `createCollection`) add their own ways of reading it.
 */
export class Collection {
  readonly client: ApiClient;
  /** The collection's path segment, e.g. `"materials"`. */
  readonly name: string;

  constructor(client: ApiClient, name: string) {
    checkCollectionName(name);
    this.client = client;
    this.name = name;
  }

  /**
   * One page, exactly one request: `GET /{name}?query=...&projection=...`.
   * @example const page = await client.materials.list({ query: { formula: "Si" }, projection: { limit: 10 } });
   */
  async list(options: ListOptions = {}): Promise<Material[]> {
    const { query, projection } = validateListOptions(options);
    return this.#fetch(query, projection, options.signal, recordArray({ requireId: false, maxItems: projection?.limit }));
  }

  /**
   * One record by `_id`: `GET /{name}/{id}`. Throws `NotFoundError` when there is none.
   * @example const si = await client.materials.get("LCthBQo9PPbPkHFRU");
   */
  async get(id: string, options: { signal?: AbortSignal } = {}): Promise<Material> {
    if (typeof id !== "string" || id === "") {
      throw new ValidationError("id", `id must be a non-empty string (a record's _id); got ${typeof id === "string" ? "an empty string" : typeof id}.`);
    }
    return this.client.getData(`${this.name}/${encodeURIComponent(id)}`, { signal: options.signal, check: checkMaterial });
  }

  /**
   * Every page of the collection (or of `query`), in order; see `IterateOptions`. Options are
   * checked at once, so a bad one throws `ValidationError` here, before any request.
   * @example for await (const page of client.materials.pages({ pageSize: 200 })) console.log(page.length);
   */
  pages(options: IterateOptions = {}): AsyncIterable<Material[]> {
    const o = validateIterateOptions(options);
    const fetchPage: FetchPage = ({ query, projection }, signal) =>
      this.#fetch(query, projection, signal, recordArray({ requireId: true, maxItems: projection.limit }));
    const pages = o.paging === "keyset" ? keysetPages(fetchPage, o, this.#endpoint()) : offsetPages(fetchPage, o, this.#endpoint());
    return o.stripId ? withoutIds(pages) : pages;
  }

  /**
   * Every record of the collection (or of `query`), in order; see `IterateOptions`.
   * @example for await (const m of client.materials.iterate({ fields: { formula: 1 } })) console.log(m.formula);
   */
  iterate(options: IterateOptions = {}): AsyncIterable<Material> {
    return flatten(this.pages(options));
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
  ): Promise<Material[]> {
    const search: Record<string, string> = { query: JSON.stringify(query) };
    if (projection) search.projection = JSON.stringify(projection);
    return this.client.getData(this.name, { search, signal, check });
  }
}

async function* flatten(pages: AsyncIterable<Material[]>): AsyncGenerator<Material, void, undefined> {
  for await (const page of pages) yield* page;
}

/** The caller asked for `_id: 0`, but paging needed `_id`; take it off before yielding. */
async function* withoutIds(pages: AsyncIterable<Material[]>): AsyncGenerator<Material[], void, undefined> {
  for await (const page of pages) {
    for (const record of page) delete (record as Partial<Material>)._id;
    yield page;
  }
}
