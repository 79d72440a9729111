import type { Material, Projection } from "../../schemas";
import { DuplicateRecordError } from "../errors";
import type { ResolvedIterateOptions } from "../validate-options";
import type { FetchPage } from "./fetch-page";

interface PendingPage {
  limit: number;
  records: Promise<Material[]>;
}

/**
 * The specification's paging: `limit=N`, then `skip=N, limit=N`, ..., stopping at the first
 * short page. Up to `concurrency` pages are in flight; pages are yielded in order.
 *
 * A record seen twice means the collection changed under the walk. Every `_id` is kept in a
 * Set to spot that (about 100 bytes a record: 10 MB for 100,000 records), and the repeat is
 * thrown as `DuplicateRecordError` or, with `onDuplicate`, dropped and reported.
 */
export async function* offsetPages(fetchPage: FetchPage, o: ResolvedIterateOptions): AsyncGenerator<Material[], void, undefined> {
  // Aborted when the walk ends for any reason, so pages fetched ahead are not left running.
  const walk = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, walk.signal]) : walk.signal;
  const pending: PendingPage[] = [];
  const seen = new Set<string>();
  let nextSkip = 0;
  let page = 0;
  let total = 0;

  const fillPipeline = () => {
    while (pending.length < o.concurrency && nextSkip < o.maxItems) {
      const limit = Math.min(o.pageSize, o.maxItems - nextSkip);
      const projection: Projection = { sort: o.sort, limit };
      if (o.fields) projection.fields = o.fields;
      if (nextSkip > 0) projection.skip = nextSkip;
      const records = fetchPage({ query: o.query, projection }, signal);
      // Awaited in order below; this only keeps an early failure from counting as unhandled.
      records.catch(() => {});
      pending.push({ limit, records });
      nextSkip += limit;
    }
  };

  try {
    fillPipeline();
    while (pending.length > 0) {
      const { limit, records } = pending.shift()!;
      const received = await records;
      page += 1;
      const full = received.length === limit;
      // Refill before handing control to the consumer, so the network works while it does.
      if (full) fillPipeline();
      const fresh = dropRepeats(received, seen, page, o.onDuplicate);
      total += fresh.length;
      o.onPage?.({ page, items: fresh.length, total });
      if (fresh.length > 0) yield fresh;
      if (!full) return;
    }
  } finally {
    walk.abort();
    await Promise.allSettled(pending.map((p) => p.records));
  }
}

function dropRepeats(
  records: Material[],
  seen: Set<string>,
  page: number,
  onDuplicate: ResolvedIterateOptions["onDuplicate"],
): Material[] {
  let fresh: Material[] | undefined;
  for (let i = 0; i < records.length; i++) {
    const id = records[i]._id;
    if (!seen.has(id)) {
      seen.add(id);
      fresh?.push(records[i]);
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
