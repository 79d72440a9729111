import type { Query } from "../../schemas";
import { ResponseValidationError, ValidationError } from "../../errors";
import type { PlatformRecord } from "../platform-record";

/** Most partitions one walk may be split into. */
export const MAX_PARTITIONS = 64;

/** One part of a partitioned walk: the `_id` range `[from, to)`; an open end is undefined. */
export interface IdPartition {
  readonly index: number;
  readonly from?: string;
  readonly to?: string;
}

/**
 * Checks a `partitions` option: a whole number from 1 to {@link MAX_PARTITIONS}.
 * @throws ValidationError (`option: "partitions"`).
 */
export function checkPartitions(partitions: unknown): number {
  if (
    typeof partitions !== "number" ||
    !Number.isInteger(partitions) ||
    partitions < 1 ||
    partitions > MAX_PARTITIONS
  ) {
    throw new ValidationError(
      "partitions",
      `partitions must be a whole number from 1 to ${MAX_PARTITIONS}; got ${JSON.stringify(partitions) ?? String(partitions)}.`,
    );
  }
  return partitions;
}

/**
 * Splits the `_id` range into `parts` contiguous ranges, as Spark's JDBC source splits a table by
 * key range. The first range is open below and the last open above, so together they cover every
 * possible `_id`: each record is in exactly one part, however good the split points are, and
 * records added during the walk land in one part too.
 *
 * Split points are spread evenly between the smallest and largest sampled ids, reading the ids as
 * numbers whose digits are the characters that the sample uses (Meteor's 55-letter alphabet,
 * hexadecimal for ObjectIds): evenly spread for random ids, since every position of a random id
 * is uniform over that alphabet.
 *
 * @param sample ids of the collection (or the query), including its smallest and largest.
 */
export function splitIdRange(sample: readonly string[], parts: number): IdPartition[] {
  const ids = [...new Set(sample)].sort();
  const lowest = ids[0];
  const highest = ids[ids.length - 1];
  // Fewer than two distinct ids leave nothing to split.
  if (parts === 1 || lowest === undefined || highest === undefined || lowest === highest) return [{ index: 0 }];
  const alphabet = [...new Set(ids.join(""))].sort();
  const base = BigInt(alphabet.length);
  const width = Math.max(...ids.map((id) => id.length));
  const digit = new Map(alphabet.map((char, i) => [char, BigInt(i)]));
  // Shorter ids are padded with the smallest digit, which keeps their order.
  const toNumber = (id: string): bigint => {
    let n = 0n;
    for (let i = 0; i < width; i++) {
      const char = id[i];
      // Every character of a sampled id is in the alphabet, which was built from them.
      n = n * base + (char === undefined ? 0n : digit.get(char)!);
    }
    return n;
  };
  const toId = (n: bigint): string => {
    const chars = new Array<string>(width);
    for (let i = width - 1; i >= 0; i--) {
      // A remainder of division by `base` is an index below alphabet.length.
      chars[i] = alphabet[Number(n % base)]!;
      n /= base;
    }
    return chars.join("");
  };
  const low = toNumber(lowest);
  const high = toNumber(highest);
  const points: string[] = [];
  for (let i = 1; i < parts; i++) {
    const point = toId(low + ((high - low) * BigInt(i)) / BigInt(parts));
    // A point must be above the one before (the first, above the smallest id): ranges stay in order.
    if (point > (points[points.length - 1] ?? lowest)) points.push(point);
  }
  return [undefined, ...points].map((from, index) => {
    const to = points[index];
    return { index, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
  });
}

/** The query of one part: the caller's query and the part's `_id` range. */
export function partitionQuery(query: Query, part: IdPartition): Query {
  const range: Record<string, string> = {};
  if (part.from !== undefined) range.$gte = part.from;
  if (part.to !== undefined) range.$lt = part.to;
  if (Object.keys(range).length === 0) return query;
  const bound = { _id: range };
  return Object.keys(query).length === 0 ? bound : { $and: [query, bound] };
}

/** The caller's query, after an `_id` cursor: how a keyset walk continues. */
export function afterId(query: Query, cursor: string | undefined): Query {
  if (cursor === undefined) return query;
  const bound = { _id: { $gt: cursor } };
  return Object.keys(query).length === 0 ? bound : { $and: [query, bound] };
}

/**
 * One part's pages, each record checked against the part's `_id` range (and, for a resumed part,
 * its cursor). The keyset walk already checks that the server honours the cursor and the sort; a
 * server that honours those but ignores the range would hand every part the whole collection,
 * and a partitioned export would write each record once per part. Stops at the first record out
 * of range, naming the server's fault.
 *
 * @throws ResponseValidationError for a record outside the part's range.
 */
export async function* withinPart(
  pages: AsyncIterable<PlatformRecord[]>,
  part: IdPartition,
  endpoint: string,
  cursor?: string,
): AsyncGenerator<PlatformRecord[], void, undefined> {
  for await (const page of pages) {
    for (const record of page) {
      const id = record._id;
      const below = (part.from !== undefined && !(id >= part.from)) || (cursor !== undefined && !(id > cursor));
      if (below || (part.to !== undefined && !(id < part.to))) {
        const range = `[${part.from === undefined ? "start" : JSON.stringify(part.from)}, ${part.to === undefined ? "end" : JSON.stringify(part.to)})`;
        const after = cursor === undefined ? "" : ` after the cursor ${JSON.stringify(cursor)}`;
        throw new ResponseValidationError(
          `${endpoint} answered part ${part.index + 1} of a partitioned read with record ${JSON.stringify(id)}, outside the part's _id range ${range}${after}: ` +
            "the server ignored the part's {_id: {$gte: ..., $lt: ...}} bounds, so every part would repeat other parts' records. " +
            "Leave out partitions (--partitions) with this server.",
          { endpoint, status: 200, issues: [{ code: "custom", path: [], message: "Partition range not honoured" }] },
        );
      }
    }
    yield page;
  }
}
