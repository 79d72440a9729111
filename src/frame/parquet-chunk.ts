// One column chunk of a row group, for the flat, optional text and double columns that a table
// export writes: the pages hyparquet-writer's writeColumn would write (same encodings, page
// boundaries, dictionary rule and statistics), without its per-value work that a flat column
// does not need: a TextEncoder call and a Uint8Array per string, copies of the values for the
// schema walk, the page slices and the null filter. Text goes straight into the page buffer as
// UTF-8. The result has writeColumn's shape, so hyparquet-writer's footer, page indexes and the
// resume state (src/frame/parquet.ts) treat both alike. Why: README, "Parquet and Arrow".

/** The parts of hyparquet-writer this file uses (its types are ESM-only, so they are restated). */
export interface ChunkKit {
  ByteWriter: new (initialSize?: number) => RleWriter;
  writePageHeader(writer: RleWriter, header: object): void;
  writeRleBitPackedHybrid(writer: RleWriter, values: ArrayLike<number>, bitWidth: number): number;
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
  readonly compress?: (input: Uint8Array) => Uint8Array;
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
  bytes = Buffer.allocUnsafe(1 << 16);
  length = 0;

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

  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/**
 * Writes one column chunk of `values` (strings or numbers, `null` for missing) to `out` and
 * returns its metadata. `type` is the column's Parquet type: `"string"` (BYTE_ARRAY, UTF8) or
 * `"double"`.
 */
export function writeChunk(kit: ChunkKit, out: RleWriter, type: "string" | "double", values: readonly (string | number | null)[], options: ChunkOptions): WrittenChunk {
  const n = values.length;
  const isText = type === "string";
  const start = out.offset;
  let uncompressed = 0;
  const encodings: string[] = [];

  const levels = new Uint8Array(n);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (values[i] === null) nulls++;
    else levels[i] = 1;
  }
  const statistics = options.statistics && !isText ? doubleStatistics(values as readonly (number | null)[], nulls) : undefined;

  const dictionary = buildDictionary(values, isText, n - nulls);
  let dictionaryOffset: bigint | undefined;
  if (dictionary) {
    dictionaryOffset = BigInt(out.offset);
    const page = new PageBuffer();
    for (const value of dictionary.values) {
      if (isText) page.text(value as string);
      else page.double(value as number);
    }
    const raw = page.view();
    const body = options.compress ? options.compress(raw) : raw;
    const headerStart = out.offset;
    kit.writePageHeader(out, {
      type: "DICTIONARY_PAGE",
      uncompressed_page_size: raw.length,
      compressed_page_size: body.length,
      dictionary_page_header: { num_values: dictionary.values.length, encoding: "PLAIN" },
    });
    uncompressed += out.offset - headerStart + raw.length;
    out.appendBytes(body);
    encodings.push("PLAIN");
  }
  const encoding = dictionary ? "RLE_DICTIONARY" : "PLAIN";
  encodings.push(encoding);

  const dataOffset = BigInt(out.offset);
  const locations: NonNullable<WrittenChunk["offsetIndex"]>["page_locations"] = [];
  const levelWriter = new kit.ByteWriter(1024);
  const page = new PageBuffer();
  let from = 0;
  do {
    // A new page starts at the value that brings the page's value bytes (UTF-8 bytes for text, 4
    // per dictionary index) to pageSize, as writeColumn's getPageBoundaries decides.
    const pageOffset = out.offset;
    page.length = 0;
    let bytes = 0;
    let pageNulls = 0;
    let to = from;
    for (; to < n; to++) {
      const value = values[to];
      const mark = page.length;
      if (value !== null && !dictionary) {
        if (isText) page.text(value as string);
        else page.double(value as number);
      }
      bytes += value === null ? 0 : dictionary ? 4 : isText ? page.length - mark - 4 : 8;
      if (bytes >= options.pageSize && to > from) {
        page.length = mark;
        break;
      }
      if (value === null) pageNulls++;
    }
    levelWriter.index = levelWriter.offset = 0;
    const levelBytes = kit.writeRleBitPackedHybrid(levelWriter, levels.subarray(from, to), 1);
    let raw = page.view();
    if (dictionary) {
      const { indexes } = dictionary;
      let count = 0;
      for (let i = from; i < to; i++) if (levels[i]) indexes[count++] = dictionary.rowIndex[i];
      // writeColumn's bit width is that of the page's largest index; the dictionary's is as valid
      // for readers, and equal whenever a page holds the last distinct value.
      const bitWidth = Math.ceil(Math.log2(dictionary.values.length));
      const rle = new kit.ByteWriter(16 + count);
      rle.appendUint8(bitWidth);
      kit.writeRleBitPackedHybrid(rle, indexes.subarray(0, count), bitWidth);
      raw = rle.getBytes();
    }
    const body = options.compress ? options.compress(raw) : raw;
    const headerStart = out.offset;
    kit.writePageHeader(out, {
      type: "DATA_PAGE_V2",
      uncompressed_page_size: levelBytes + raw.length,
      compressed_page_size: levelBytes + body.length,
      data_page_header_v2: {
        num_values: to - from,
        num_nulls: pageNulls,
        num_rows: to - from,
        encoding,
        definition_levels_byte_length: levelBytes,
        repetition_levels_byte_length: 0,
        is_compressed: true,
      },
    });
    uncompressed += out.offset - headerStart + levelBytes + raw.length;
    out.appendBytes(levelWriter.getBytes());
    out.appendBytes(body);
    locations.push({ offset: BigInt(pageOffset), compressed_page_size: out.offset - pageOffset, first_row_index: BigInt(from) });
    from = to;
  } while (from < n);

  const pages = locations.length;
  return {
    chunk: {
      meta_data: {
        type: isText ? "BYTE_ARRAY" : "DOUBLE",
        encodings,
        path_in_schema: [options.name],
        codec: options.codec,
        num_values: BigInt(n),
        total_compressed_size: BigInt(out.offset - start),
        total_uncompressed_size: BigInt(uncompressed),
        data_page_offset: dataOffset,
        dictionary_page_offset: dictionaryOffset,
        statistics,
        encoding_stats: options.statistics
          ? [...(dictionary ? [{ page_type: "DICTIONARY_PAGE", encoding: "PLAIN", count: 1 }] : []), { page_type: "DATA_PAGE_V2", encoding, count: pages }]
          : undefined,
      },
      file_offset: BigInt(start),
    },
    offsetIndex: pages > 1 ? { page_locations: locations } : undefined,
  };
}

interface Dictionary {
  values: (string | number)[];
  /** Each row's index into `values` (unset for nulls). */
  rowIndex: Int32Array;
  /** Scratch for one page's non-null indexes. */
  indexes: Int32Array;
}

/** The values' byte estimate as writeColumn makes it: a string's length (plus 4), 8 per double. */
function sizeOf(value: string | number, isText: boolean): number {
  return isText ? (value as string).length + 4 : 8;
}

function buildDictionary(values: readonly (string | number | null)[], isText: boolean, nonNull: number): Dictionary | undefined {
  const n = values.length;
  if (nonNull === 0) return undefined;
  const sample = Math.min(n, SAMPLE);
  const seen = new Set<string | number | null>();
  let sampleDistinct = 0;
  let sampleTotal = 0;
  for (let i = 0; i < sample; i++) {
    const value = values[sample === 1 ? 0 : Math.floor((i * (n - 1)) / (sample - 1))];
    if (value === null) continue;
    const size = sizeOf(value, isText);
    sampleTotal += size;
    if (!seen.has(value)) {
      seen.add(value);
      sampleDistinct += size;
    }
  }
  if (!sampleTotal || sampleDistinct / sampleTotal > SAMPLE_REJECTION) return undefined;

  const index = new Map<string | number, number>();
  const dictionary: (string | number)[] = [];
  const rowIndex = new Int32Array(n);
  let dictionaryBytes = 0;
  let plainBytes = 0;
  for (let i = 0; i < n; i++) {
    const value = values[i];
    if (value === null) continue;
    const size = sizeOf(value, isText);
    plainBytes += size;
    let at = index.get(value);
    if (at === undefined) {
      at = dictionary.length;
      index.set(value, at);
      dictionary.push(value);
      dictionaryBytes += size;
    }
    rowIndex[i] = at;
  }
  const indexBytes = Math.ceil((nonNull * Math.ceil(Math.log2(dictionary.length))) / 8);
  if (2 * (dictionaryBytes + indexBytes) > plainBytes) return undefined;
  return { values: dictionary, rowIndex, indexes: new Int32Array(n) };
}

/** Footer statistics of a double column as writeColumn computes them (NaN skipped, signed zeros). */
function doubleStatistics(values: readonly (number | null)[], nulls: number): Record<string, unknown> {
  let min: number | undefined;
  let max: number | undefined;
  let nan = 0;
  for (const value of values) {
    if (value === null) continue;
    if (Number.isNaN(value)) nan++;
    else {
      if (min === undefined || value < min) min = value;
      if (max === undefined || value > max) max = value;
    }
  }
  if (min === 0) min = -0;
  if (max === 0) max = 0;
  return { min_value: min, max_value: max, null_count: BigInt(nulls), nan_count: BigInt(nan) };
}
