// How a collection is walked: the pages of a checked walk, in order or split into `_id` ranges,
// and where a resumed read must come from again. Collections page through it, and the frame
// layer reads its tables and files through it; it is the one seam between the two.
import { MAX_LIMIT, type Projection, type Query } from "../schemas";
import { internalsOf } from "./client-internals";
import type { Connection } from "./connection";
import type { PlatformRecord } from "./platform-record";
import type { ResolvedIterateOptions } from "./config/validate-options";
import type { FetchPage } from "./paging/fetch-page";
import { keysetPages } from "./paging/keyset";
import { offsetPages } from "./paging/offset";
import { afterId, partitionQuery, splitIdRange, withinPart, type IdPartition } from "./paging/partitions";
import { recordArray } from "./transport/response-checks";
import type { ReadAnswer } from "./transport/read-answers";

/** Revalidations of a kept read in flight at once: the pipelining pool's 4 connections × 16. */
const CONFIRM_IN_FLIGHT = 64;

/**
 * Walks one collection of one client: the interface the frame layer (tables, exports) reads
 * records through. Options come in resolved (`validateIterateOptions`), so a walk checks nothing
 * twice.
 * @example
 * const walker = new RecordWalker(client.materials);
 * for await (const page of walker.walk(validateIterateOptions({ pageSize: 100 }))) console.log(page.length);
 */
export class RecordWalker {
  readonly #client: Connection;
  /** The collection's path segment, e.g. `"materials"`. */
  readonly name: string;

  /** @param collection a collection (`client.materials`, `client.collection(name)`): its client and name. */
  constructor(collection: { readonly client: Connection; readonly name: string }) {
    this.#client = collection.client;
    this.name = collection.name;
  }

  /**
   * The pages of a walk whose options were already checked and resolved, in order. `onAnswer`
   * is told each answer's request and validator (undefined for an answer without one), for a
   * read to be kept and confirmed later (see `confirm`).
   */
  walk(
    resolved: ResolvedIterateOptions,
    onAnswer?: (answer: ReadAnswer | undefined) => void,
  ): AsyncIterable<PlatformRecord[]> {
    const client = this.#client;
    const internals = internalsOf(client);
    // Without a concurrency of its own, a walk follows the client's link estimate page by page:
    // the first answer of a tunnel to a far platform raises a loopback guess of 3 to 6.
    const o =
      resolved.concurrency !== undefined
        ? { ...resolved, concurrency: resolved.concurrency }
        : Object.defineProperty({ ...resolved, concurrency: 0 }, "concurrency", {
            get: () => internals.defaultConcurrency,
            enumerable: true,
          });
    const fetchPage: FetchPage = ({ query, projection }, signal, onReceived) => {
      const search = listSearch(query, projection);
      const onValidator =
        onAnswer && ((etag: string | undefined) => onAnswer(etag === undefined ? undefined : { search, etag }));
      return internals.read(this.name, {
        search,
        signal,
        check: recordArray({ requireId: true, maxItems: projection.limit }),
        onValidator,
        onReceived,
      });
    };
    fetchPage.keptBytes = ({ query, projection }) => internals.keptBytes(this.name, listSearch(query, projection));
    const endpoint = `GET ${new URL(client.baseUrl).pathname}/${this.name}`;
    const walk = () =>
      o.paging === "keyset" ? keysetPages(fetchPage, o, endpoint) : offsetPages(fetchPage, o, endpoint);
    // One request timed before the first pages are asked for (only while the link is unknown).
    const pages = measuredFirst(() => internals.measureLink(o.signal), walk);
    return o.stripId ? withoutIds(pages) : pages;
  }

  /**
   * The walks of a partitioned read: the `_id` range split into `parts` (see `splitIdRange`),
   * each walked with its own keyset cursor. Costs two requests for a sample of ids first. The
   * caller has checked the plan (parts in range, `_id` order, no maxItems).
   */
  async partitionWalks(
    resolved: ResolvedIterateOptions,
    parts: number,
    signal: AbortSignal,
  ): Promise<AsyncIterable<PlatformRecord[]>[]> {
    const ranges = await this.partitionRanges(resolved, parts, signal);
    return ranges.map((part) => this.partWalk(resolved, part, signal));
  }

  /** The `_id` ranges of a partitioned read (see `splitIdRange`), from a sample of the first and last ids (two requests). */
  async partitionRanges(resolved: ResolvedIterateOptions, parts: number, signal: AbortSignal): Promise<IdPartition[]> {
    if (parts === 1) return splitIdRange([], 1);
    const merged = resolved.signal ? AbortSignal.any([resolved.signal, signal]) : signal;
    const sample = async (direction: 1 | -1): Promise<string[]> => {
      const projection: Projection = { fields: { _id: 1 }, sort: { _id: direction }, limit: MAX_LIMIT };
      const search = listSearch(resolved.query, projection);
      const records = await this.#client.getData(this.name, {
        search,
        signal: merged,
        check: recordArray({ requireId: true, maxItems: MAX_LIMIT }),
      });
      return records.map((record) => record._id);
    };
    return splitIdRange((await Promise.all([sample(1), sample(-1)])).flat(), parts);
  }

  /** One part's walk, with its own keyset cursor (after `cursor` when a resumed export continues it). */
  partWalk(
    resolved: ResolvedIterateOptions,
    part: IdPartition,
    signal: AbortSignal,
    cursor?: string,
  ): AsyncIterable<PlatformRecord[]> {
    const merged = resolved.signal ? AbortSignal.any([resolved.signal, signal]) : signal;
    const query = afterId(partitionQuery(resolved.query, part), cursor);
    // Ids are checked against the part's range before a caller's stripId drops them.
    const pages = withinPart(
      this.walk({
        ...resolved,
        paging: "keyset",
        sort: { _id: 1 },
        concurrency: 1,
        signal: merged,
        query,
        stripId: false,
      }),
      part,
      `GET ${new URL(this.#client.baseUrl).pathname}/${this.name}`,
      cursor,
    );
    return resolved.stripId ? withoutIds(pages) : pages;
  }

  /** Where a resumed read must come from again: the base URL without credentials, and the account (never a secret). */
  get source(): { readonly platform: string; readonly account: string } {
    const url = new URL(this.#client.baseUrl);
    url.username = "";
    url.password = "";
    return { platform: url.href.replace(/\/$/, ""), account: internalsOf(this.#client).identity };
  }

  /** Whether the client keeps answers in memory, so a finished read can be kept and confirmed (see `confirm`). */
  get keepsReads(): boolean {
    return internalsOf(this.#client).keepsReads;
  }

  /**
   * Revalidates the answers of a kept read, `CONFIRM_IN_FLIGHT` at a time (what the pipelining
   * pool sends at once): true when every one is unchanged. The first changed answer stops the
   * rest, since the read then runs again anyway.
   */
  async confirm(answers: readonly ReadAnswer[], signal?: AbortSignal): Promise<boolean> {
    const stop = new AbortController();
    const merged = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    let next = 0;
    let confirmed = true;
    const confirmSome = async (): Promise<void> => {
      while (confirmed) {
        const answer = answers[next++];
        if (answer === undefined) return;
        if (!(await internalsOf(this.#client).revalidate(this.name, { ...answer.search }, answer.etag, merged))) {
          confirmed = false;
          stop.abort();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONFIRM_IN_FLIGHT, answers.length) }, confirmSome));
    return confirmed;
  }
}

/** The query string of a list request. */
export function listSearch(query: Query, projection: Projection | undefined): Record<string, string> {
  const search: Record<string, string> = { query: JSON.stringify(query) };
  if (projection) search.projection = JSON.stringify(projection);
  return search;
}

/** The walk, started once `measure` has settled. */
async function* measuredFirst<T>(
  measure: () => Promise<void>,
  walk: () => AsyncIterable<T>,
): AsyncGenerator<T, void, undefined> {
  await measure();
  yield* walk();
}

/** The caller asked for `_id: 0`, but paging needed `_id`; take it off before yielding. */
async function* withoutIds(pages: AsyncIterable<PlatformRecord[]>): AsyncGenerator<PlatformRecord[], void, undefined> {
  for await (const page of pages) {
    for (const record of page) delete (record as Partial<PlatformRecord>)._id;
    yield page;
  }
}
