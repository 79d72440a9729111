import type { Projection } from "../../schemas";
import type { PlatformRecord } from "../platform-record";
import { DuplicateRecordError, ResponseValidationError } from "../../errors";
import type { ResolvedIterateOptions } from "../config/validate-options";
import type { FetchPage, PageRequest } from "./fetch-page";
import { firstOutOfOrder } from "./id-order";

interface PendingPage {
  skip: number;
  limit: number;
  records: Promise<PlatformRecord[]>;
  /** Characters of the kept answer being revalidated, or 0 for a page fetched with its body. */
  kept: number;
  /** Whether its body has arrived (it may still be parsed, or wait for the pages before it). */
  received: boolean;
}

/**
 * Revalidations of kept pages cost a round trip and no body, so a walk keeps up to this many in
 * flight beyond `concurrency` (a re-run then waits a few round trips, not one per few pages),
 * bounded by the size of the kept answers, which are all parsed as their 304s arrive.
 */
export const MAX_REVALIDATIONS_IN_FLIGHT = 32;
export const MAX_REVALIDATION_CHARS = 8 * 1024 * 1024;

/**
 * Pages whose bodies have arrived and wait, beyond the `concurrency` on the wire: to be parsed,
 * or for an earlier page to be handed on first. The next request goes out as a body arrives,
 * not once it is parsed and its turn has come, so the link stays busy while the client parses;
 * this bounds the pages held at once (and the pages asked for past the end of a collection).
 * At concurrency 1 there are none: each page is asked for once the one before is handed on.
 */
export const RECEIVED_AHEAD = 2;

/**
 * The specification's paging: `limit=N`, then `skip=N, limit=N`, ..., up to `concurrency` pages
 * in flight, yielded in order. A request goes out as soon as an answer's body has arrived (see
 * {@link RECEIVED_AHEAD}).
 *
 * Pages the client's cache holds (`fetchPage.keptBytes`) are only revalidated, so up to
 * {@link MAX_REVALIDATIONS_IN_FLIGHT} of them may be in flight besides.
 *
 * A short page usually ends the walk, but a server may cap pages below the limit asked for
 * (100 of 500 ended a 5,000-record export as a success). So a short page is
 * confirmed: the pages fetched ahead (at offsets that assumed full pages) are dropped, and one
 * request from just after it must come back empty. If it does not, the server caps pages: the
 * walk goes on with pages of the size the server really sends.
 *
 * A record seen twice means the collection changed under the walk; the repeat is thrown as
 * `DuplicateRecordError` or, with `onDuplicate`, dropped and reported. In `_id` order (the
 * default sort) a repeat is any `_id` not after the last one, so the check costs nothing per
 * record kept; under another sort every `_id` is kept in a Set (about 100 bytes a record: 10 MB
 * for 100,000), which would make an export's memory grow with the collection.
 */
export async function* offsetPages(
  fetchPage: FetchPage,
  o: ResolvedIterateOptions & { concurrency: number },
  endpoint: string,
): AsyncGenerator<PlatformRecord[], void, undefined> {
  // Aborted when the walk ends for any reason, so pages fetched ahead are not left running.
  const walk = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, walk.signal]) : walk.signal;
  let pending: PendingPage[] = [];
  const idOrder = isIdOrder(o.sort);
  const seen = idOrder ? new IdOrder() : new Set<string>();
  let nextSkip = 0;
  let pageSize = o.pageSize;
  /** While a short page is being confirmed, only that one request is in flight. */
  let confirming = false;
  let page = 0;
  let total = 0;

  const pageRequest = (skip: number, limit: number): PageRequest => {
    const projection: Projection = { sort: o.sort, limit };
    if (o.fields) projection.fields = o.fields;
    if (skip > 0) projection.skip = skip;
    return { query: o.query, projection };
  };
  /** Whether one more page fits in flight: `kept` characters when the cache holds it, else 0. */
  const fits = (kept: number): boolean => {
    if (confirming || pending.length === 0) return pending.length === 0;
    if (kept === 0) {
      let onTheWire = 0;
      let fetched = 0;
      for (const p of pending) {
        if (p.kept !== 0) continue;
        fetched++;
        if (!p.received) onTheWire++;
      }
      // At concurrency 1 a walk stays one page after another, as asked.
      return onTheWire < o.concurrency && fetched < o.concurrency + (o.concurrency > 1 ? RECEIVED_AHEAD : 0);
    }
    const keptInFlight = pending.reduce((sum, p) => sum + p.kept, 0);
    return (
      pending.length < o.concurrency + MAX_REVALIDATIONS_IN_FLIGHT && keptInFlight + kept <= MAX_REVALIDATION_CHARS
    );
  };
  const fillPipeline = () => {
    while (nextSkip < o.maxItems) {
      const limit = Math.min(pageSize, o.maxItems - nextSkip);
      const request = pageRequest(nextSkip, limit);
      const kept = fetchPage.keptBytes?.(request) ?? 0;
      if (!fits(kept)) return;
      const entry: PendingPage = { skip: nextSkip, limit, records: undefined!, kept, received: false };
      // Its arrival frees its place on the wire; the walk may have ended (or dropped it) by then.
      entry.records = fetchPage(request, signal, () => {
        entry.received = true;
        if (!signal.aborted && pending.includes(entry)) fillPipeline();
      });
      // Awaited in order below; this only keeps an early failure from counting as unhandled.
      entry.records.catch(() => {});
      pending.push(entry);
      nextSkip += limit;
    }
  };

  try {
    fillPipeline();
    // The head stays in `pending` while it is awaited: it still holds its place on the wire.
    for (let head = pending[0]; head !== undefined; head = pending[0]) {
      const { skip, limit, records } = head;
      const received = await records;
      pending.shift();
      if (received.length === 0) return;
      page += 1;
      const full = received.length === limit;
      if (confirming) {
        // The short page was not the end: the server caps pages at (about) this many.
        confirming = false;
        pageSize = Math.max(received.length, 1);
        nextSkip = skip + received.length;
      }
      // Refill before handing control to the consumer, so the network works while it does.
      if (full) fillPipeline();
      // In _id order a repeat is an _id not after the last one, which holds only if each page
      // really is sorted: otherwise records that were never seen would count as repeats.
      if (idOrder && firstOutOfOrder(received) !== -1) {
        throw notHonoured(endpoint, `page ${page} is not sorted by _id as asked`);
      }
      const fresh = dropRepeats(received, seen, page, o.onDuplicate);
      // Only repeats on a full page: the same page would come back for ever.
      if (full && fresh.length === 0) {
        throw notHonoured(endpoint, `every record of page ${page} (skip ${skip}) came before`);
      }
      total += fresh.length;
      o.onPage?.({ pages: page, items: total });
      if (fresh.length > 0) yield fresh;
      if (!full) {
        const end = skip + received.length;
        if (end >= o.maxItems) return;
        // Pages fetched ahead assumed full pages; their offsets are wrong if the server caps.
        pending = [];
        confirming = true;
        nextSkip = end;
        fillPipeline();
      }
    }
  } finally {
    walk.abort();
    await Promise.allSettled(pending.map((p) => p.records));
  }
}

/** Ids seen so far, as far as a repeat check needs them: `has` then `add`, in walk order. */
interface SeenIds {
  has(id: string): boolean;
  add(id: string): unknown;
}

/** Sorted by `_id` alone: pages come in ascending `_id` order, so a repeat is an id not after the last. */
function isIdOrder(sort: ResolvedIterateOptions["sort"]): boolean {
  const keys = Object.keys(sort);
  return keys.length === 1 && keys[0] === "_id" && sort._id === 1;
}

/** The constant-memory `SeenIds` for a walk in ascending `_id` order. */
class IdOrder implements SeenIds {
  private last: string | undefined;
  has(id: string): boolean {
    return this.last !== undefined && !(id > this.last);
  }
  add(id: string): void {
    this.last = id;
  }
}

function dropRepeats(
  records: PlatformRecord[],
  seen: SeenIds,
  page: number,
  onDuplicate: ResolvedIterateOptions["onDuplicate"],
): PlatformRecord[] {
  let fresh: PlatformRecord[] | undefined;
  // An index loop, not entries(): this runs for every record of a walk, and `i` is the copy's end.
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const id = record._id;
    if (!seen.has(id)) {
      seen.add(id);
      fresh?.push(record);
      continue;
    }
    if (!onDuplicate) {
      throw new DuplicateRecordError(
        `Record ${JSON.stringify(id)} came twice in an offset walk (again on page ${page}): the collection changed ` +
          `while it was read, so records may also have been missed. Read it again with paging: "keyset", which ` +
          `changes cannot disturb, or pass onDuplicate to drop repeats and go on.`,
        id,
        page,
      );
    }
    onDuplicate({ id, page });
    // Copy lazily: pages without repeats (nearly all) are passed on as they came.
    fresh ??= records.slice(0, i);
  }
  return fresh ?? records;
}

function notHonoured(endpoint: string, what: string): ResponseValidationError {
  return new ResponseValidationError(
    `${endpoint} did not page as asked: ${what}. The server ignores skip or sort, or the collection changes ` +
      `faster than it is read; use paging: "keyset".`,
    { endpoint, status: 200, issues: [{ code: "custom", path: [], message: "Paging not honoured" }] },
  );
}
