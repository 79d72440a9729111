import { ClientClosedError, NotFoundError, ValidationError } from "../../errors";
import { OptimadeEntryAnswer, type OptimadeEntry } from "../../schemas/optimade";
import {
  checkBaseUrl,
  listDatabases,
  resolveProvider,
  versionedBase,
  type OptimadeDatabase,
  type ResolvedProvider,
} from "./discovery";
import { entryPages, firstPageUrl, keepFields } from "./entry-pages";
import { OptimadeHttp } from "./optimade-http";
import { refuseUnusedOptions } from "../config/unused-options";
import {
  OPTIMADE_OPTION_HINTS,
  resolveOptimadeWalk,
  type OptimadeClientOptions,
  type OptimadeIterateOptions,
  type ResolvedOptimadeWalk,
} from "./optimade-options";

/** The options of `get`: one entry has no filter or pages. */
const GET_OPTIONS = ["fields", "signal"] as const satisfies readonly (keyof OptimadeIterateOptions)[];

/**
 * Reads any OPTIMADE provider (Materials Project, OQMD, COD, NOMAD, Alexandria, `matframe serve`,
 * ...). Give the unversioned base URL that providers.optimade.org lists: the client finds `/v1`,
 * and resolves an index meta-database through its `/links`. Requests go through the same
 * transport as `Client`'s: retries with backoff on 429 and 5xx, timeouts, body caps.
 *
 * @example
 * const op = new OptimadeClient({ baseUrl: "https://optimade.materialsproject.org" });
 * for await (const s of op.structures.iterate({ filter: 'elements HAS "Si"', fields: ["nsites"], maxItems: 10 }))
 *   console.log(s.id, s.attributes?.nsites);
 * await op.close();
 */
export class OptimadeClient {
  /** The base URL as given, without trailing slashes. */
  readonly baseUrl: string;
  /** The structures of the provider's database. */
  readonly structures: OptimadeEntries;
  readonly #http: OptimadeHttp;
  readonly #database: string | undefined;
  readonly #signal: AbortSignal | undefined;
  #resolved: Promise<ResolvedProvider> | undefined;
  #closed = false;

  constructor(options: OptimadeClientOptions) {
    if (options === null || typeof options !== "object")
      throw new ValidationError(
        "options",
        'new OptimadeClient(options) needs { baseUrl }, e.g. { baseUrl: "https://optimade.example.org" }.',
      );
    const { baseUrl, database, ...settings } = options;
    this.baseUrl = checkBaseUrl(baseUrl);
    if (database !== undefined && (typeof database !== "string" || database === ""))
      throw new ValidationError(
        "database",
        `database must be a database's id, e.g. "mp"; got ${JSON.stringify(database)}.`,
      );
    this.#database = database;
    this.#signal = settings.signal;
    this.#http = new OptimadeHttp(settings);
    this.structures = new OptimadeEntries(this, "structures");
  }

  /**
   * The database entries are read from (found once, then kept): its versioned base, its `/info`,
   * and the index entry that led there when `baseUrl` was an index meta-database.
   */
  resolve(): Promise<ResolvedProvider> {
    this.#checkOpen();
    const resolved = (this.#resolved ??= resolveProvider(this.#http, this.baseUrl, this.#database, this.#signal));
    // A failed discovery (the network was down) is tried again by the next call.
    resolved.catch(() => {
      if (this.#resolved === resolved) this.#resolved = undefined;
    });
    return resolved;
  }

  /** The databases `baseUrl` names in its `/links` (`link_type: "child"`): for an index meta-database, each database it serves. */
  databases(options: { signal?: AbortSignal } = {}): Promise<OptimadeDatabase[]> {
    this.#checkOpen();
    return listDatabases(this.#http, versionedBase(this.baseUrl), options.signal ?? this.#signal);
  }

  /** The transport, for the entries of this client. @internal */
  get http(): OptimadeHttp {
    this.#checkOpen();
    return this.#http;
  }

  /** Closes the connections (requests in flight finish first); the client cannot be used afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#http.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new ClientClosedError(`The OptimadeClient of ${this.baseUrl} is closed; create a new one.`);
  }
}

/**
 * The entries of one endpoint (`structures`) of a provider. Tables and files come from the frame
 * side, which registers `toDataFrame`, `toArrow` and the `export*` methods here.
 */
export class OptimadeEntries {
  constructor(
    /** The client these entries belong to. */
    readonly client: OptimadeClient,
    /** The endpoint, e.g. `"structures"`. */
    readonly name: string,
  ) {}

  /**
   * Every entry the filter matches, page by page, each page as the provider sent it (cut to
   * `fields`, and at `maxItems`).
   * @example for await (const page of op.structures.pages({ filter: "nelements=2", pageSize: 100 })) console.log(page.length);
   */
  pages(options: OptimadeIterateOptions = {}): AsyncIterable<OptimadeEntry[]> {
    return this.walk(resolveOptimadeWalk(options, `${this.name}.pages`));
  }

  /**
   * Every entry the filter matches, one at a time.
   * @example for await (const s of op.structures.iterate({ filter: 'elements HAS "Si"' })) console.log(s.id);
   */
  async *iterate(options: OptimadeIterateOptions = {}): AsyncGenerator<OptimadeEntry, void, undefined> {
    for await (const page of this.walk(resolveOptimadeWalk(options, `${this.name}.iterate`))) yield* page;
  }

  /** The pages of a walk whose options are already checked: what the frame side reads through. */
  async *walk(walk: ResolvedOptimadeWalk): AsyncGenerator<OptimadeEntry[], void, undefined> {
    const { versionedBase } = await this.client.resolve();
    yield* entryPages(this.client.http, firstPageUrl(versionedBase, this.name, walk), walk);
  }

  /**
   * One entry by id (`/structures/{id}`); `NotFoundError` when the provider has none.
   * @example const s = await op.structures.get("mp-149", { fields: ["lattice_vectors"] });
   */
  async get(id: string, options: Pick<OptimadeIterateOptions, "fields" | "signal"> = {}): Promise<OptimadeEntry> {
    if (typeof id !== "string" || id === "")
      throw new ValidationError("id", `id must be a non-empty string; got ${JSON.stringify(id)}.`);
    if (options !== null && typeof options === "object")
      refuseUnusedOptions(options, GET_OPTIONS, `${this.name}.get`, OPTIMADE_OPTION_HINTS);
    const walk = resolveOptimadeWalk(options, `${this.name}.get`);
    const { versionedBase } = await this.client.resolve();
    const url = new URL(`${versionedBase}/${this.name}/${encodeURIComponent(id)}`);
    if (walk.fields) url.searchParams.set("response_fields", walk.fields.join(","));
    const answer = await this.client.http.get(url, OptimadeEntryAnswer, walk.signal);
    if (answer.data === null)
      throw new NotFoundError(
        `${url.pathname} answered with no entry: the provider has no ${this.name} entry ${JSON.stringify(id)}.`,
        {
          status: 404,
          endpoint: `GET ${url.pathname}`,
        },
      );
    return keepFields(answer.data, walk.fields);
  }
}
