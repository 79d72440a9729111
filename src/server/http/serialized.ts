/** The fields an answer keeps of each record: a key naming them, and the function applying them. */
export interface RecordProjection {
  readonly key: string;
  select(record: Record<string, unknown>): unknown;
}

/**
 * Records as the JSON bytes answers send, kept per record object and projection.
 * Projecting, JSON.stringify and UTF-8 encoding are most of what a page costs the server (4 of
 * 9 ms for 500 whole records, 4.5 ms for the default columns' fields, on the event loop every
 * client shares); with each record's bytes kept, a later page that holds it costs a copy (0.3 ms
 * a page), which is what a class pulling the same collection, or a re-run, asks for. Stored
 * records are never changed in place (a write puts a new object), so an entry cannot go stale.
 *
 * Nothing is evicted: once the budget is spent, pages with records not kept are serialised at
 * once, as without this class. Evicting to make room would serialise every record of a walk
 * bigger than the budget one by one and churn a million small buffers through the heap (a
 * million-record export ran at half speed, its server's full collections walking 1.2 GB of
 * records for the garbage); the records kept first stay fast instead.
 */
export class SerializedRecords {
  /**
   * Projection key ("" for the whole record) -> record -> its JSON bytes. Weak, so the bytes of a
   * record a write replaced go with it (the budget they used is not given back: it bounds what
   * was ever kept). One weak map per projection rather than a map per record: a first walk of
   * 100,029 materials made 100,029 small maps, and collecting around them was a third of its
   * serialising time.
   */
  readonly #bytes = new Map<string, WeakMap<object, Buffer>>();
  #total = 0;

  constructor(readonly maxBytes: number) {}

  /**
   * The JSend success body `{"status":"success","data":[...]}` for these records, whole or
   * projected, byte for byte as JSON.stringify writes it.
   */
  successBody(records: readonly Record<string, unknown>[], projection?: RecordProjection): Buffer {
    const select = selectOf(projection);
    const form = this.#form(projection);
    const bytes: (Buffer | undefined)[] = records.map((record) => form.get(record));
    const missing = records.filter((_, i) => bytes[i] === undefined);
    if (missing.length > 0) {
      if (this.full) return Buffer.from(JSON.stringify({ status: "success", data: records.map(select) }));
      const made = this.#serialise(missing, form, select);
      for (let i = 0, m = 0; i < bytes.length; i++) if (bytes[i] === undefined) bytes[i] = made[m++];
    }
    const parts: Buffer[] = [SUCCESS_HEAD];
    for (let i = 0; i < bytes.length; i++) {
      if (i > 0) parts.push(COMMA);
      parts.push(bytes[i]!);
    }
    parts.push(SUCCESS_TAIL);
    return Buffer.concat(parts);
  }

  /**
   * Serialises and keeps those of these records not kept yet, whole or projected, while the
   * budget lasts: what a page holding them will send (see warm-up.ts).
   */
  keep(records: readonly Record<string, unknown>[], projection?: RecordProjection): void {
    if (this.full) return;
    const form = this.#form(projection);
    const missing = records.filter((record) => !form.has(record));
    if (missing.length > 0) this.#serialise(missing, form, selectOf(projection));
  }

  /** Whether the budget is spent: records not kept by now are serialised anew for each page. */
  get full(): boolean {
    return this.#total >= this.maxBytes;
  }

  #form(projection: RecordProjection | undefined): WeakMap<object, Buffer> {
    const key = projection?.key ?? "";
    let kept = this.#bytes.get(key);
    if (!kept) this.#bytes.set(key, (kept = new WeakMap()));
    return kept;
  }

  /**
   * Serialises records as strings, encodes them as one block (one UTF-8 pass, about as fast as
   * serialising the page at once) and keeps a view of the block per record.
   */
  #serialise(
    records: readonly Record<string, unknown>[],
    form: WeakMap<object, Buffer>,
    select: (record: Record<string, unknown>) => unknown,
  ): Buffer[] {
    const texts = records.map((record) => JSON.stringify(select(record)));
    const joined = texts.join("");
    const block = Buffer.from(joined);
    // As many bytes as characters: every character is ASCII (any other takes two bytes or more
    // per UTF-16 unit), so each record's byte length is its text's length, with no second pass.
    const ascii = block.length === joined.length;
    const views: Buffer[] = [];
    let at = 0;
    for (const [i, text] of texts.entries()) {
      const record = records[i]!; // texts was mapped from records: same length.
      const end = at + (ascii ? text.length : Buffer.byteLength(text));
      const view = block.subarray(at, end);
      views.push(view);
      form.set(record, view);
      at = end;
    }
    // A view and its weak map entry cost about this much besides the bytes (measured when each
    // record also had a map of its own; kept, so the budget still bounds the same heap): a small
    // projection would otherwise count a tenth of what it holds.
    this.#total += block.length + ENTRY_OVERHEAD_BYTES * records.length;
    return views;
  }
}

function selectOf(projection: RecordProjection | undefined): (record: Record<string, unknown>) => unknown {
  return projection ? (record) => projection.select(record) : (record) => record;
}

/** Enough for the whole records of 100,000 materials (about 110 MB) and one projection of them. */
export const SERIALIZED_BUDGET_BYTES = 192 * 1024 * 1024;

/** Heap a kept view costs besides its bytes (a Buffer view, a Map entry, a share of a Map), measured. */
const ENTRY_OVERHEAD_BYTES = 200;

const SUCCESS_HEAD = Buffer.from('{"status":"success","data":[');
const COMMA = Buffer.from(",");
const SUCCESS_TAIL = Buffer.from("]}");
