import type { Projection } from "../../schemas";
import { afterId } from "./partitions";
import type { PlatformRecord } from "../platform-record";
import { ResponseValidationError } from "../../errors";
import type { ResolvedIterateOptions } from "../config/validate-options";
import type { FetchPage } from "./fetch-page";
import { firstOutOfOrder } from "./id-order";

/**
 * Keyset paging: sort by `_id` and ask for `{$and: [query, {_id: {$gt: last}}]}` each time.
 * Records added or removed during the walk cannot shift it, and the last page costs the
 * server as little as the first; the price is one page in flight, since each request needs
 * the previous page's last `_id`. The walk ends on an empty page (one request more than the
 * pages of records), since a short page may only mean that the server caps page sizes.
 */
export async function* keysetPages(
  fetchPage: FetchPage,
  o: ResolvedIterateOptions,
  endpoint: string,
): AsyncGenerator<PlatformRecord[], void, undefined> {
  let after: string | undefined;
  let page = 0;
  let total = 0;
  while (total < o.maxItems) {
    const limit = Math.min(o.pageSize, o.maxItems - total);
    const projection: Projection = { sort: { _id: 1 }, limit };
    if (o.fields) projection.fields = o.fields;
    const query = afterId(o.query, after);
    const records = await fetchPage({ query, projection }, o.signal);
    if (records.length > 0) page += 1;
    // Every _id must come after the cursor and after the one before it: a server that ignored
    // the cursor or the sort would otherwise repeat records, or send the same page forever.
    const misplaced = firstOutOfOrder(records, after);
    if (misplaced !== -1) {
      throw new ResponseValidationError(
        `${endpoint} answered keyset page ${page} out of _id order (record ${misplaced + 1} is not after the one ` +
          `before it): the server ignored {_id: {$gt: ...}} or the _id sort. Use paging: "offset" with this server.`,
        { endpoint, status: 200, issues: [{ code: "custom", path: [], message: "Cursor not honoured" }] },
      );
    }
    // Only an empty page ends the walk: a short one may come from a server that caps pages below
    // the limit asked for, and the next request from its last _id tells.
    const last = records[records.length - 1];
    if (last === undefined) return;
    total += records.length;
    o.onPage?.({ pages: page, items: total });
    // Read the cursor before yielding: the consumer may strip _id from the records it gets.
    after = last._id;
    yield records;
  }
}
