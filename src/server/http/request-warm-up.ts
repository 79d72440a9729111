import { Agent, createServer, get, type IncomingMessage, type ServerOptions, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { API_PREFIX, type Fields } from "../../schemas";
import { INDEXED_PATHS, stringsAt } from "../query/index-plan";
import type { OrderedRecords, RequestWarmUpReport } from "./warm-up";
import type { WarmResults } from "./warm-forms";

/** Most milliseconds the requests may take in all: with 100,029 materials they took 0.7-1.1 s. */
export const REQUEST_WARM_UP_MS = 3_000;

/**
 * Pages of each warmed walk: V8 optimises the code of a page (joining its records' JSON,
 * compressing) only once it has run a few times, and a walk's pages ask it again and again.
 */
const WALK_PAGES = 8;

/** Most milliseconds one read may take before the reads are given up: an answer comes in milliseconds. */
const READ_TIMEOUT_MS = 10_000;

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

/** Served records in `_id` order, and by id. */
interface ServedRecords extends OrderedRecords {
  get(id: string): Record<string, unknown> | undefined;
}

/** Pages of a results table the warm-up reads: V8 optimises a path once it has run a few times. */
const RESULTS_PAGES = 3;

/** Property records per page, as a results table asks by default (src/frame/results/results-plan.ts). */
const RESULTS_PAGE = 200;

/** The first string at `path` in `record` (through arrays, as a query matches), as the index plan reads it. */
const stringAt = (record: unknown, path: readonly string[]): string | undefined => {
  const held: string[] = [];
  stringsAt(record, path, 0, held);
  return held[0];
};
type Loose = Record<string, unknown>;

/**
 * The first pages of a results table of the first property kind, sent as
 * `client.results.toDataFrame` sends them (src/frame/results/results-rows.ts): a keyset page of
 * property records, then its jobs by `_id`, then their materials in `materials` and in
 * `bank-materials`, each in the results table's projection. A first table on a fresh server
 * spent 34 ms of the server's CPU against 8 ms for a second, in code the other reads do not run
 * (the `$in` lookups of many ids, the projections' first uses).
 */
function resultsPaths(properties: OrderedRecords, jobs: ServedRecords, results: WarmResults): string[] {
  const slug = properties.at(0)?.slug;
  if (typeof slug !== "string") return [];
  const kind = { slug: { $in: [slug] } };
  const paths: string[] = [];
  let after: string | undefined;
  const read = (page: readonly Loose[]) => {
    const query = after === undefined ? kind : { $and: [kind, { _id: { $gt: after } }] };
    paths.push(listPath("properties", query, { fields: results.properties, sort: { _id: 1 }, limit: RESULTS_PAGE }));
    after = stringAt(page.at(-1), ["_id"]);
    const jobIds = [...new Set(page.map((p) => stringAt(p, ["source", "info", "jobId"])))].filter(
      (id): id is string => id !== undefined,
    );
    if (jobIds.length === 0) return;
    paths.push(listPath("jobs", { _id: { $in: jobIds } }, { fields: results.jobs, limit: jobIds.length }));
    const materialIds = [...new Set(jobIds.map((id) => stringAt(jobs.get(id), ["_material", "_id"])))].filter(
      (id): id is string => id !== undefined,
    );
    if (materialIds.length === 0) return;
    for (const collection of ["materials", "bank-materials"])
      paths.push(
        listPath(collection, { _id: { $in: materialIds } }, { fields: results.materials, limit: materialIds.length }),
      );
  };
  let page: Loose[] = [];
  let pages = 0;
  for (let i = 0; i < properties.size && pages < RESULTS_PAGES; i++) {
    const record = properties.at(i);
    if (record?.slug !== slug) continue;
    page.push(record);
    if (page.length < RESULTS_PAGE) continue;
    read(page);
    page = [];
    pages += 1;
  }
  if (page.length > 0 && pages < RESULTS_PAGES) read(page);
  return paths;
}

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
 * pages), `_id` lists of 100 in every collection, one lookup by each reference path its first 100
 * records hold, which builds that path's index (built on first use otherwise: a pass over the
 * records), and with `results` a results table's first pages (`resultsPaths`).
 */
export function warmUpPaths(
  materials: OrderedRecords,
  collections: ReadonlyMap<string, { readonly served: ServedRecords }>,
  warmFields: readonly Fields[],
  results?: WarmResults,
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
  const properties = named.get("properties");
  const jobs = collections.get("jobs")?.served;
  if (results && properties && jobs) paths.push(...resultsPaths(properties, jobs, results));
  return paths;
}

/**
 * The server's own read paths, sent to it once over HTTP when it starts, so that a client's first
 * requests do not pay V8's first pass through the code that answers them (parsing, routing, the
 * query plan, projecting, compressing): a first walk of 20,029 materials over a 40 ms link took
 * 0.81 s on a fresh server and 0.57-0.60 s once the same walk had run on loopback.
 *
 * The reads go to a listener of their own on 127.0.0.1 (an unused port, closed after), never to
 * the one clients use: they take no client's connection place, whatever the address served, and
 * the session's token goes to no address that is not this process's. They go one at a time under
 * a session held apart from the account's (ended after), are neither logged nor counted as the
 * account's activity, and stop as soon as a client's request comes.
 */
export class RequestWarmUp {
  readonly #secret = randomBytes(24).toString("base64url");
  readonly #secretBytes = Buffer.from(this.#secret, "latin1");
  #stopped: "request" | "closed" | undefined;

  /** No more requests: a client's came (`request`) or the server is closing. */
  stop(why: "request" | "closed"): void {
    this.#stopped ??= why;
  }

  /**
   * Sends `paths` one by one with `headers` (the session's) to a listener of its own, whose
   * requests `answer` answers, until done, stopped, or `maxMs` is spent.
   */
  async run(
    answer: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
    paths: readonly string[],
    headers: Record<string, string>,
    { maxMs = REQUEST_WARM_UP_MS, server = {} }: { maxMs?: number; server?: ServerOptions } = {},
  ): Promise<RequestWarmUpReport> {
    const started = performance.now();
    // Another process on this machine may connect during the reads: without the secret it is not answered.
    const listener = createServer(server, (req, res) => (this.#isOwn(req) ? void answer(req, res) : res.destroy()));
    await new Promise<void>((resolve, reject) => listener.once("error", reject).listen(0, "127.0.0.1", resolve));
    const { port } = listener.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // As a far client asks (src/client/transport/interceptors/decompress.ts): the compressing path is warmed too.
    const sent = { ...headers, [OWN_HEADER]: this.#secret, "accept-encoding": "br, gzip, deflate" };
    let requests = 0;
    let answered = 0;
    let firstUnanswered: RequestWarmUpReport["firstUnanswered"];
    let ended: RequestWarmUpReport["ended"] = "done";
    try {
      for (const path of paths) {
        if (this.#stopped) {
          ended = this.#stopped;
          break;
        }
        const left = maxMs - (performance.now() - started);
        if (left <= 0) {
          ended = "time";
          break;
        }
        const status = await send(agent, port, path, sent, Math.min(READ_TIMEOUT_MS, left));
        requests += 1;
        if (status === "timeout") {
          ended = "time";
          break;
        }
        if (status === 200) answered += 1;
        else firstUnanswered ??= { path: path.split("?")[0] ?? path, status };
      }
    } finally {
      agent.destroy();
      listener.closeAllConnections();
      await new Promise((resolve) => listener.close(resolve));
    }
    return {
      requests,
      answered,
      ms: performance.now() - started,
      ended: this.#stopped ?? ended,
      ...(firstUnanswered ? { firstUnanswered } : {}),
    };
  }

  /** Whether `req` carries the secret. Header values arrive as latin1: compared as those bytes. */
  #isOwn(req: IncomingMessage): boolean {
    const sent = req.headers[OWN_HEADER];
    if (typeof sent !== "string") return false;
    const given = Buffer.from(sent, "latin1");
    return given.length === this.#secretBytes.length && timingSafeEqual(given, this.#secretBytes);
  }
}

/**
 * One GET, its body read and dropped: the status it was answered with, `timeout` when no answer
 * (or not all of it) came within `timeoutMs`, or `failed` (a failure ends the request, not the server).
 */
function send(
  agent: Agent,
  port: number,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<number | "timeout" | "failed"> {
  return new Promise((resolve) => {
    const req = get({ host: "127.0.0.1", port, path, agent, headers, timeout: timeoutMs }, (res) => {
      res.on("end", () => resolve(res.statusCode ?? "failed"));
      res.on("error", () => resolve("failed"));
      res.resume();
    });
    // Node's `timeout` is of an idle socket: the read is ended, and the promise settles with `timeout`.
    req.on("timeout", () => {
      resolve("timeout");
      req.destroy();
    });
    req.on("error", () => resolve("failed"));
  });
}
