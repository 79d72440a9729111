// One column chunk of a row group, for the flat, optional text and double columns that a table
// export writes: the pages hyparquet-writer's writeColumn would write (same encodings, page
// boundaries, dictionary rule and statistics), encoded as values arrive (ChunkBuilder) instead
// of from arrays of the row group's values, and without writeColumn's per-value work that a flat
// column does not need (a TextEncoder call and a Uint8Array per string, copies of the values for
// the schema walk, the page slices, the null filter, a call per byte of RLE). A finished chunk
// is written once its pages are compressed (writeEncodedChunk), in writeColumn's shape, so that
// hyparquet-writer's footer, page indexes and the resume state (src/frame/export/parquet.ts) treat both
// alike. Why: docs/exports.md, "Parquet and Arrow".

/** The parts of hyparquet-writer this file uses (its types are ESM-only, so they are restated). */
export interface ChunkKit {
  ByteWriter: new (initialSize?: number) => RleWriter;
  writePageHeader(writer: RleWriter, header: object): void;
}

/** hyparquet-writer's ByteWriter, as far as this file uses it. */
export interface RleWriter {
  buffer: ArrayBuffer;
  offset: number;
  index: number;
  appendBytes(bytes: Uint8Array): void;
  appendUint8(value: number): void;
  getBytes(): Uint8Array;
}

/** A column chunk as hyparquet-writer's writeColumn returns it (an entry of `pendingIndexes`). */
export interface WrittenChunk {
  chunk: { meta_data: Record<string, unknown>; file_offset: bigint };
  offsetIndex?: { page_locations: { offset: bigint; compressed_page_size: number; first_row_index: bigint }[] };
}

/** What one chunk needs besides its values. */
export interface ChunkOptions {
  readonly name: string;
  readonly codec: string;
  readonly pageSize: number;
  /** Min/max/null statistics in the footer (and page encoding statistics, as writeColumn ties them). */
  readonly statistics: boolean;
}

// hyparquet-writer's useDictionary: a sample whose distinct bytes exceed 90% rejects a dictionary;
// otherwise it is kept when dictionary plus indexes at most halve the plain bytes.
const SAMPLE = 1000;
const SAMPLE_REJECTION = 0.9;

/** Growable page buffer with the UTF-8 and float writes a Node Buffer has. */
class PageBuffer {
  bytes: Buffer;
  length = 0;

  constructor(initialSize = 1 << 16) {
    this.bytes = Buffer.allocUnsafe(initialSize);
  }

  reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + extra));
    this.bytes.copy(next, 0, 0, this.length);
    this.bytes = next;
  }

  /** A string as PLAIN BYTE_ARRAY: its UTF-8 length (4 bytes, little-endian), then its UTF-8. */
  text(value: string): void {
    this.reserve(4 + value.length * 3);
    const n = this.bytes.write(value, this.length + 4);
    this.bytes.writeUInt32LE(n, this.length);
    this.length += 4 + n;
  }

  double(value: number): void {
    this.reserve(8);
    this.bytes.writeDoubleLE(value, this.length);
    this.length += 8;
  }

  /** The bytes written (a view: each page has a buffer of its own). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** One page of an encoded chunk, before compression: its header's fields and its bytes. */
interface EncodedPage {
  /** The page header without its compressed size, which compression decides. */
  readonly header: { type: string; dictionary_page_header?: object; data_page_header_v2?: object };
  /** Definition levels (data pages): never compressed in a DATA_PAGE_V2. */
  readonly levels?: Uint8Array;
  /** The values' bytes, which the codec compresses. */
  readonly raw: Uint8Array;
  /** The page's first row in the chunk (data pages). */
  readonly firstRow: number;
}

/**
 * A column chunk encoded into pages whose values are not compressed yet: the codec compresses
 * {@link rawPages} between {@link ChunkBuilder.finish} and {@link writeEncodedChunk}.
 */
export interface EncodedChunk {
  readonly type: "string" | "double";
  readonly options: ChunkOptions;
  readonly rows: number;
  readonly dictionary?: EncodedPage;
  readonly pages: readonly EncodedPage[];
  readonly statistics?: Record<string, unknown>;
}

/**
 * Encodes one column chunk as its values arrive, row by row, so that a row group holds bytes
 * and indexes rather than the parsed values (which then die young, and cost the garbage
 * collector little). Text and double values are written as hyparquet-writer's writeColumn
 * writes them: dictionary encoding when the dictionary and its indexes at most halve the plain
 * bytes, else PLAIN; pages cut where their value bytes reach `pageSize`; min/max statistics of
 * doubles. One difference: writeColumn decides against a dictionary from a sample of 1,000
 * values spread over the chunk, this builder from the chunk's first 1,000 values (it cannot see
 * the rest yet); the final rule is the same.
 */
export class ChunkBuilder {
  readonly type: "string" | "double";
  readonly options: ChunkOptions;
  private readonly isText: boolean;
  private rows = 0;
  private nulls = 0;
  private levels = new Uint8Array(1024);
  // Dictionary trial: each distinct value's index, and each row's index (unset for nulls).
  private index: Map<string | number, number> | undefined = new Map();
  private values: (string | number)[] = [];
  private rowIndex = new Int32Array(1024);
  private last: string | number | undefined;
  private lastAt = 0;
  private nonNull = 0;
  private dictionaryBytes = 0;
  private plainBytes = 0;
  // PLAIN: the finished pages and the one being filled.
  private pages: EncodedPage[] = [];
  private page: PageBuffer | undefined;
  private pageFrom = 0;
  private pageBytes = 0;
  private pageNulls = 0;
  // Statistics of doubles (NaN skipped), kept as values arrive in PLAIN, or as distinct values join the dictionary.
  private min: number | undefined;
  private max: number | undefined;
  private nan = 0;

  constructor(type: "string" | "double", options: ChunkOptions) {
    this.type = type;
    this.isText = type === "string";
    this.options = options;
  }

  /** Rows added since the chunk began. */
  get length(): number {
    return this.rows;
  }

  /** Adds one row's value: a string (text) or number (double), or null. */
  add(value: string | number | null): void {
    const row = this.rows++;
    if (row === this.levels.length) this.grow();
    if (value === null) {
      if (this.index) this.nulls++;
      else this.addPlainNull(row);
      return;
    }
    this.levels[row] = 1;
    if (this.index) this.addToDictionary(value, row);
    else this.addPlain(value, row);
  }

  private grow(): void {
    const levels = new Uint8Array(this.levels.length * 2);
    levels.set(this.levels);
    this.levels = levels;
    if (this.index) {
      const rowIndex = new Int32Array(this.levels.length);
      rowIndex.set(this.rowIndex);
      this.rowIndex = rowIndex;
    }
  }

  private addToDictionary(value: string | number, row: number): void {
    const index = this.index!;
    const size = this.isText ? (value as string).length + 4 : 8;
    this.plainBytes += size;
    // A run of one value (a method's type, say) skips the lookup.
    let at = value === this.last ? this.lastAt : index.get(value);
    if (at === undefined) {
      at = this.values.length;
      index.set(value, at);
      this.values.push(value);
      this.dictionaryBytes += size;
      // min/max over the distinct values are those of all values; NaNs are counted one by one.
      if (!this.isText && !Number.isNaN(value)) this.observe(value as number);
    }
    this.last = value;
    this.lastAt = at;
    if (Number.isNaN(value)) this.nan++;
    this.rowIndex[row] = at;
    // writeColumn's first test: distinct bytes above 90% of the values' bytes rule a dictionary out.
    if (++this.nonNull === SAMPLE && this.dictionaryBytes / this.plainBytes > SAMPLE_REJECTION) this.toPlain(row + 1);
  }

  private observe(value: number): void {
    if (Number.isNaN(value)) this.nan++;
    else {
      if (this.min === undefined || value < this.min) this.min = value;
      if (this.max === undefined || value > this.max) this.max = value;
    }
  }

  /** Leaves the dictionary trial: the rows so far become PLAIN pages, and so do the rows to come. */
  private toPlain(rows: number): void {
    const { values, rowIndex, levels } = this;
    this.index = undefined;
    this.values = [];
    this.rowIndex = new Int32Array(0);
    this.nulls = 0;
    this.min = this.max = undefined;
    this.nan = 0;
    this.page = new PageBuffer();
    for (let row = 0; row < rows; row++) {
      if (levels[row]) this.addPlain(values[rowIndex[row]], row);
      else this.addPlainNull(row);
    }
  }

  private addPlainNull(row: number): void {
    // A page whose first value alone reached pageSize ends at the next row, even a null.
    if (this.pageBytes >= this.options.pageSize && row > this.pageFrom) {
      this.closePage(row);
      this.page = new PageBuffer();
      this.pageBytes = 0;
    }
    this.nulls++;
    this.pageNulls++;
  }

  private addPlain(value: string | number, row: number): void {
    let page = this.page;
    if (!page) page = this.page = new PageBuffer();
    const mark = page.length;
    if (this.isText) page.text(value as string);
    else {
      page.double(value as number);
      this.observe(value as number);
    }
    this.pageBytes += page.length - mark - (this.isText ? 4 : 0);
    // A new page starts at the value that brings the page's value bytes to pageSize, as
    // writeColumn's getPageBoundaries decides.
    if (this.pageBytes >= this.options.pageSize && row > this.pageFrom) {
      const bytes = page.bytes.subarray(mark, page.length);
      page.length = mark;
      this.closePage(row);
      this.page = page = new PageBuffer(Math.max(1 << 16, bytes.length * 2));
      page.reserve(bytes.length);
      page.bytes.set(bytes, 0);
      page.length = bytes.length;
      this.pageBytes = bytes.length - (this.isText ? 4 : 0);
    }
  }

  /** Ends the PLAIN page being filled before row `to`. */
  private closePage(to: number): void {
    this.pages.push(this.dataPage(this.pageFrom, to, this.pageNulls, this.page!.view()));
    this.pageFrom = to;
    this.pageNulls = 0;
  }

  private dataPage(from: number, to: number, nulls: number, raw: Uint8Array): EncodedPage {
    const levels = encodeHybrid(this.levels.subarray(from, to), 1);
    return {
      header: {
        type: "DATA_PAGE_V2",
        data_page_header_v2: {
          num_values: to - from,
          num_nulls: nulls,
          num_rows: to - from,
          encoding: this.index ? "RLE_DICTIONARY" : "PLAIN",
          definition_levels_byte_length: levels.length,
          repetition_levels_byte_length: 0,
          is_compressed: true,
        },
      },
      levels,
      raw,
      firstRow: from,
    };
  }

  /**
   * The chunk of the rows added, encoded into pages whose values the codec compresses next; the
   * builder is empty again afterwards, for the next row group.
   */
  finish(): EncodedChunk {
    const n = this.rows;
    // writeColumn's first test, for a chunk of fewer values than the sample; its second test:
    // dictionary and indexes must at most halve the plain bytes.
    if (this.index && this.nonNull < SAMPLE && this.dictionaryBytes > SAMPLE_REJECTION * this.plainBytes)
      this.toPlain(n);
    if (
      this.index &&
      (this.nonNull === 0 ||
        2 * (this.dictionaryBytes + Math.ceil((this.nonNull * bitWidthOf(this.values.length)) / 8)) > this.plainBytes)
    ) {
      this.toPlain(n);
    }
    let dictionary: EncodedPage | undefined;
    const pages = this.pages;
    if (this.index) {
      const page = new PageBuffer();
      for (const value of this.values) {
        if (this.isText) page.text(value as string);
        else page.double(value as number);
      }
      dictionary = {
        header: {
          type: "DICTIONARY_PAGE",
          dictionary_page_header: { num_values: this.values.length, encoding: "PLAIN" },
        },
        raw: page.view(),
        firstRow: 0,
      };
      // Pages of indexes, each up to pageSize at 4 bytes per value, as writeColumn counts them,
      // with as many bits per index as the page's largest index needs.
      const indexes = new Int32Array(Math.min(n, Math.ceil(this.options.pageSize / 4)) + 1);
      let from = 0;
      do {
        let bytes = 0;
        let count = 0;
        let nulls = 0;
        let largest = 0;
        let to = from;
        for (; to < n; to++) {
          const present = this.levels[to];
          const next = present ? bytes + 4 : bytes;
          if (next >= this.options.pageSize && to > from) break;
          bytes = next;
          if (present) {
            const at = this.rowIndex[to];
            indexes[count++] = at;
            if (at > largest) largest = at;
          } else nulls++;
        }
        const bitWidth = bitWidthOf(largest + 1);
        // The page's values: the bit width in one byte, then the indexes.
        pages.push(this.dataPage(from, to, nulls, encodeHybrid(indexes.subarray(0, count), bitWidth, bitWidth)));
        from = to;
      } while (from < n);
    } else if (this.page || n === 0 || pages.length === 0) {
      // The last PLAIN page (a chunk of nulls only has one, with no values).
      pages.push(this.dataPage(this.pageFrom, n, this.pageNulls, this.page ? this.page.view() : new Uint8Array(0)));
    }
    let min = this.min;
    let max = this.max;
    if (min === 0) min = -0;
    if (max === 0) max = 0;
    const statistics =
      this.options.statistics && !this.isText
        ? { min_value: min, max_value: max, null_count: BigInt(this.nulls), nan_count: BigInt(this.nan) }
        : undefined;
    const chunk: EncodedChunk = { type: this.type, options: this.options, rows: n, dictionary, pages, statistics };
    this.reset();
    return chunk;
  }

  private reset(): void {
    this.rows = this.nulls = this.nonNull = this.dictionaryBytes = this.plainBytes = 0;
    this.index = new Map();
    this.values = [];
    this.last = undefined;
    this.rowIndex = new Int32Array(this.levels.length);
    this.levels = new Uint8Array(this.levels.length);
    this.pages = [];
    this.page = undefined;
    this.pageFrom = this.pageBytes = this.pageNulls = 0;
    this.min = this.max = undefined;
    this.nan = 0;
  }
}

/**
 * Parquet's RLE/bit-packing hybrid of `values` at `bitWidth` bits each (after one `lead` byte
 * when given), byte for byte what hyparquet-writer's writeRleBitPackedHybrid writes: a run of 8
 * or more equal values becomes an RLE run; other values go in bit-packed groups of 8, the last
 * group padded with zeros. Written into one array instead of a call per byte.
 */
export function encodeHybrid(values: Uint8Array | Int32Array, bitWidth: number, lead?: number): Uint8Array {
  const n = values.length;
  // Worst case: an RLE run (5 header bytes, 4 value bytes) per 8 values, or bit-packed groups.
  const out = new Uint8Array(16 + Math.ceil(n / 8) * (9 + bitWidth));
  let pos = 0;
  if (lead !== undefined) out[pos++] = lead;
  const varint = (value: number): void => {
    while ((value & ~0x7f) !== 0) {
      out[pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    out[pos++] = value;
  };
  const valueBytes = (bitWidth + 7) >> 3;
  const mask = (1 << bitWidth) - 1;
  const pack = (start: number, groups: number): void => {
    varint((groups << 1) | 1);
    if (bitWidth === 0) return;
    let buffer = 0;
    let bits = 0;
    const end = start + groups * 8;
    for (let i = start; i < end; i++) {
      buffer |= (i < n ? values[i] & mask : 0) << bits;
      bits += bitWidth;
      while (bits >= 8) {
        out[pos++] = buffer & 0xff;
        buffer >>>= 8;
        bits -= 8;
      }
    }
    if (bits > 0) out[pos++] = buffer & 0xff;
  };
  let groups = 0;
  let groupStart = 0;
  let i = 0;
  while (i < n) {
    const first = values[i];
    let run = 1;
    while (i + run < n && values[i + run] === first) run++;
    if (run >= 8) {
      if (groups) {
        pack(groupStart, groups);
        groups = 0;
      }
      varint(run << 1);
      for (let j = 0; j < valueBytes; j++) out[pos++] = (first >> (j << 3)) & 0xff;
      i += run;
    } else {
      if (groups === 0) groupStart = i;
      groups++;
      i += 8;
    }
  }
  if (groups) pack(groupStart, groups);
  return out.subarray(0, pos);
}

/** Bits per dictionary index, as writeColumn computes them. */
function bitWidthOf(distinct: number): number {
  return Math.ceil(Math.log2(distinct));
}

/** The bytes an encoded chunk's codec compresses, dictionary page first. */
export function rawPages(chunk: EncodedChunk): Uint8Array[] {
  return [...(chunk.dictionary ? [chunk.dictionary.raw] : []), ...chunk.pages.map((page) => page.raw)];
}

/**
 * Writes an encoded chunk to `out` with its pages' compressed bodies (in {@link rawPages}'
 * order) and returns its metadata, in the shape hyparquet-writer's writeColumn returns.
 */
export function writeEncodedChunk(
  kit: ChunkKit,
  out: RleWriter,
  chunk: EncodedChunk,
  bodies: readonly Uint8Array[],
): WrittenChunk {
  const { type, options, dictionary, pages } = chunk;
  const isText = type === "string";
  const start = out.offset;
  let uncompressed = 0;
  let body = 0;
  const encodings: string[] = [];
  let dictionaryOffset: bigint | undefined;
  if (dictionary) {
    dictionaryOffset = BigInt(out.offset);
    const compressed = bodies[body++];
    const headerStart = out.offset;
    kit.writePageHeader(out, {
      ...dictionary.header,
      uncompressed_page_size: dictionary.raw.length,
      compressed_page_size: compressed.length,
    });
    uncompressed += out.offset - headerStart + dictionary.raw.length;
    out.appendBytes(compressed);
    encodings.push("PLAIN");
  }
  const encoding = dictionary ? "RLE_DICTIONARY" : "PLAIN";
  encodings.push(encoding);

  const dataOffset = BigInt(out.offset);
  const locations: NonNullable<WrittenChunk["offsetIndex"]>["page_locations"] = [];
  for (const page of pages) {
    const pageOffset = out.offset;
    const levels = page.levels!;
    const compressed = bodies[body++];
    kit.writePageHeader(out, {
      ...page.header,
      uncompressed_page_size: levels.length + page.raw.length,
      compressed_page_size: levels.length + compressed.length,
    });
    uncompressed += out.offset - pageOffset + levels.length + page.raw.length;
    out.appendBytes(levels);
    out.appendBytes(compressed);
    locations.push({
      offset: BigInt(pageOffset),
      compressed_page_size: out.offset - pageOffset,
      first_row_index: BigInt(page.firstRow),
    });
  }

  const count = locations.length;
  return {
    chunk: {
      meta_data: {
        type: isText ? "BYTE_ARRAY" : "DOUBLE",
        encodings,
        path_in_schema: [options.name],
        codec: options.codec,
        num_values: BigInt(chunk.rows),
        total_compressed_size: BigInt(out.offset - start),
        total_uncompressed_size: BigInt(uncompressed),
        data_page_offset: dataOffset,
        dictionary_page_offset: dictionaryOffset,
        statistics: chunk.statistics,
        encoding_stats: options.statistics
          ? [
              ...(dictionary ? [{ page_type: "DICTIONARY_PAGE", encoding: "PLAIN", count: 1 }] : []),
              { page_type: "DATA_PAGE_V2", encoding, count },
            ]
          : undefined,
      },
      file_offset: BigInt(start),
    },
    offsetIndex: count > 1 ? { page_locations: locations } : undefined,
  };
}
