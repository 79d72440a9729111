import { Agent, get, type IncomingMessage } from "node:http";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { API_PREFIX, type Fields } from "../../schemas";
import { INDEXED_PATHS, stringsAt } from "../query/index-plan";
import type { OrderedRecords, RequestWarmUpReport } from "./warm-up";

/** Most milliseconds the requests may take in all: with 100,029 materials they took 0.7-1.1 s. */
export const REQUEST_WARM_UP_MS = 3_000;

/**
 * Pages of each warmed walk: V8 optimises the code of a page (joining its records' JSON,
 * compressing) only once it has run a few times, and a walk's pages ask it again and again.
 */
const WALK_PAGES = 8;

/** The header that marks the server's own requests; its value is known to this process alone. */
const OWN_HEADER = "x-matframe-warm-up";

/** The indexed paths besides `_id` (which the store's id map answers): each lookup builds its index. */
const REFERENCE_PATHS = INDEXED_PATHS.filter((path) => path !== "_id");

const listPath = (collection: string, query: object, projection: object): string =>
  `${API_PREFIX}/${collection}?${new URLSearchParams({ query: JSON.stringify(query), projection: JSON.stringify(projection) })}`;

const idsOf = (records: OrderedRecords, count: number): string[] => {
  const ids: string[] = [];
  for (let i = 0; i < Math.min(count, records.size); i++) {
    const id = records.at(i)?._id;
    if (typeof id === "string") ids.push(id);
  }
  return ids;
};

/** The first string at `path` (through arrays, as a query matches) in the first `count` records, or undefined. */
function firstValueAt(records: OrderedRecords, path: string, count: number): string | undefined {
  const segments = path.split(".");
  const held: string[] = [];
  for (let i = 0; i < Math.min(count, records.size) && held.length === 0; i++)
    stringsAt(records.at(i), segments, 0, held);
  return held[0];
}

/**
 * The reads the warm-up sends: the first pages of a walk of each warmed projection (offset
 * pages), `_id` lists of 100 in every collection, a property kind's first keyset page as a results
 * table reads it, and one lookup by each reference path its first 100 records hold, which builds
 * that path's index (built on first use otherwise: a pass over the records).
 */
export function warmUpPaths(
  materials: OrderedRecords,
  collections: ReadonlyMap<string, { readonly served: OrderedRecords }>,
  warmFields: readonly Fields[],
): string[] {
  const paths: string[] = [];
  for (const fields of warmFields) {
    const walk = { fields, sort: { _id: 1 }, limit: 500 };
    for (let page = 0; page < WALK_PAGES; page++)
      paths.push(listPath("materials", {}, page === 0 ? walk : { ...walk, skip: page * 500 }));
  }
  const named = new Map<string, OrderedRecords>([["materials", materials]]);
  for (const [name, collection] of collections) if (collection.served.size > 0) named.set(name, collection.served);
  for (const [name, records] of named) {
    const ids = idsOf(records, 100);
    if (ids.length > 0) paths.push(listPath(name, { _id: { $in: ids } }, { limit: ids.length }));
    for (const path of REFERENCE_PATHS) {
      const value = firstValueAt(records, path, 100);
      if (value !== undefined)
        paths.push(listPath(name, { [path]: { $in: [value] } }, { fields: { _id: 1 }, limit: 1 }));
    }
  }
  // A results table's walk of one property kind (src/frame/results/results-rows.ts).
  const slug = named.get("properties")?.at(0)?.slug;
  if (typeof slug === "string") {
    const fields = { _id: 1, slug: 1, data: 1, "source.info": 1 };
    paths.push(listPath("properties", { slug: { $in: [slug] } }, { fields, sort: { _id: 1 }, limit: 100 }));
  }
  return paths;
}

/**
 * The server's own read paths, sent to it once over HTTP when it starts, so that a client's first
 * requests do not pay V8's first pass through the code that answers them (parsing, routing, the
 * query plan, projecting, compressing): a first walk of 20,029 materials over a 40 ms link took
 * 0.81 s on a fresh server and 0.57-0.60 s once the same walk had run on loopback. The requests
 * go one at a time under a session of their own (ended after), are neither logged nor counted as
 * the account's activity, and stop as soon as a client's request comes.
 */
export class RequestWarmUp {
  readonly #secret = randomBytes(24).toString("base64url");
  readonly #secretBytes = Buffer.from(this.#secret, "latin1");
  #stopped: "request" | "closed" | undefined;
  #running = false;

  /** Whether `req` is one of the warm-up's own (never once its reads have ended). */
  isOwn(req: IncomingMessage): boolean {
    const sent = req.headers[OWN_HEADER];
    if (!this.#running || typeof sent !== "string") return false;
    // Header values arrive as latin1: compared as those bytes, whose length is then the string's.
    const given = Buffer.from(sent, "latin1");
    return given.length === this.#secretBytes.length && timingSafeEqual(given, this.#secretBytes);
  }

  /** No more requests: a client's came (`request`) or the server is closing. */
  stop(why: "request" | "closed"): void {
    this.#stopped ??= why;
  }

  /** Sends `paths` to `origin` one by one with `headers` (the session's), until done or stopped. */
  async run(
    origin: string,
    paths: readonly string[],
    headers: Record<string, string>,
    maxMs = REQUEST_WARM_UP_MS,
  ): Promise<RequestWarmUpReport> {
    const started = performance.now();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // As a far client asks (src/client/transport/interceptors/decompress.ts): the compressing path is warmed too.
    const sent = { ...headers, [OWN_HEADER]: this.#secret, "accept-encoding": "br, gzip, deflate" };
    this.#running = true;
    let requests = 0;
    let answered = 0;
    let ended: RequestWarmUpReport["ended"] = "done";
    try {
      for (const path of paths) {
        if (this.#stopped) {
          ended = this.#stopped;
          break;
        }
        if (performance.now() - started > maxMs) {
          ended = "time";
          break;
        }
        if (await send(agent, `${origin}${path}`, sent)) answered += 1;
        requests += 1;
      }
    } finally {
      this.#running = false;
      agent.destroy();
    }
    return { requests, answered, ms: performance.now() - started, ended: this.#stopped ?? ended };
  }
}

/** One GET, its body read and dropped: whether it was answered with 200 (a failure ends the request, not the server). */
function send(agent: Agent, url: string, headers: Record<string, string>): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(url, { agent, headers }, (res) => {
      res.on("end", () => resolve(res.statusCode === 200));
      res.on("error", () => resolve(false));
      res.resume();
    });
    req.on("error", () => resolve(false));
  });
}
