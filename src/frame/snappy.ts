// Snappy compression (https://github.com/google/snappy/blob/main/format_description.txt) for
// Parquet pages. The algorithm is the reference one as hyparquet-writer ports it (from snappyjs,
// MIT, Zhipeng Jia), but writes into one output array sized for the worst case instead of a
// growing ByteWriter one byte call at a time: that made Snappy ~10% of a Parquet export's CPU.

const MAX_HASH_TABLE_BITS = 14;
const MAX_OFFSET = 0xffff;
// Matching stops this far from the end, so that 4-byte loads never read past the input.
const INPUT_MARGIN = 15;
const hashTables: (Uint32Array | undefined)[] = [];

/** The most bytes Snappy can take for `length` input bytes (the reference `MaxCompressedLength`). */
function maxCompressedLength(length: number): number {
  return 32 + length + Math.floor(length / 6);
}

function hash(key: number, shift: number): number {
  return Math.imul(key, 0x1e35a7bd) >>> shift;
}

function load32(a: Uint8Array, i: number): number {
  return a[i] | (a[i + 1] << 8) | (a[i + 2] << 16) | (a[i + 3] << 24);
}

/** Compresses `input` as one Snappy block (the raw format Parquet's SNAPPY codec uses). */
export function snappyCompress(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(maxCompressedLength(input.length));
  let op = 0;
  // The uncompressed length, as a varint.
  for (let n = input.length; ; n >>>= 7) {
    if (n < 0x80) {
      out[op++] = n;
      break;
    }
    out[op++] = (n & 0x7f) | 0x80;
  }

  const end = input.length;
  let nextEmit = 0;
  if (end >= INPUT_MARGIN) {
    let bits = 1;
    while (1 << bits <= end && bits <= MAX_HASH_TABLE_BITS) bits++;
    bits--;
    const shift = 32 - bits;
    const table = (hashTables[bits] ??= new Uint32Array(1 << bits));
    table.fill(0);
    const limit = end - INPUT_MARGIN;
    let ip = 1;
    let nextHash = hash(load32(input, ip), shift);
    outer: for (;;) {
      // Look for a 4-byte match, skipping faster the longer none is found.
      let skip = 32;
      let nextIp = ip;
      let candidate: number;
      do {
        ip = nextIp;
        const h = nextHash;
        nextIp = ip + (skip++ >>> 5);
        if (ip > limit) break outer;
        nextHash = hash(load32(input, nextIp), shift);
        candidate = table[h];
        table[h] = ip;
      } while (ip - candidate > MAX_OFFSET || load32(input, ip) !== load32(input, candidate));

      op = emitLiteral(input, nextEmit, ip, out, op);
      // Emit copies for as long as the bytes at ip match earlier ones.
      do {
        const base = ip;
        let matched = 4;
        while (ip + matched + 4 <= end && load32(input, ip + matched) === load32(input, candidate + matched)) matched += 4;
        while (ip + matched < end && input[ip + matched] === input[candidate + matched]) matched++;
        ip += matched;
        op = emitCopy(base - candidate, matched, out, op);
        nextEmit = ip;
        if (ip >= limit) break outer;
        table[hash(load32(input, ip - 1), shift)] = ip - 1;
        const h = hash(load32(input, ip), shift);
        candidate = table[h];
        table[h] = ip;
      } while (ip - candidate <= MAX_OFFSET && load32(input, ip) === load32(input, candidate));
      nextHash = hash(load32(input, ++ip), shift);
    }
  }
  if (nextEmit < end) op = emitLiteral(input, nextEmit, end, out, op);
  return out.subarray(0, op);
}

// The emitters take and return the output position: a position that closures share lives in a
// context slot, which made every byte written a memory round trip.

/** Writes `input[from..to)` as a literal at `op`; returns the position after it. */
function emitLiteral(input: Uint8Array, from: number, to: number, out: Uint8Array, op: number): number {
  const n = to - from - 1;
  if (n < 60) {
    out[op++] = n << 2;
  } else if (n < 0x100) {
    out[op++] = 60 << 2;
    out[op++] = n;
  } else if (n < 0x10000) {
    out[op++] = 61 << 2;
    out[op++] = n & 0xff;
    out[op++] = n >>> 8;
  } else if (n < 0x1000000) {
    out[op++] = 62 << 2;
    out[op++] = n & 0xff;
    out[op++] = (n >>> 8) & 0xff;
    out[op++] = n >>> 16;
  } else {
    out[op++] = 63 << 2;
    out[op++] = n & 0xff;
    out[op++] = (n >>> 8) & 0xff;
    out[op++] = (n >>> 16) & 0xff;
    out[op++] = n >>> 24;
  }
  if (to - from < 16) {
    for (let i = from; i < to; i++) out[op++] = input[i];
    return op;
  }
  out.set(input.subarray(from, to), op);
  return op + to - from;
}

/** Writes a copy of `length` bytes from `offset` back at `op`; returns the position after it. */
function emitCopy(offset: number, length: number, out: Uint8Array, op: number): number {
  // Copies of 64 bytes while more than 67 remain, so that the last one is at least 4 long.
  while (length >= 68) {
    out[op++] = 2 | (63 << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
    length -= 64;
  }
  if (length > 64) {
    out[op++] = 2 | (59 << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
    length -= 60;
  }
  if (length < 12 && offset < 2048) {
    out[op++] = 1 | ((length - 4) << 2) | ((offset >>> 8) << 5);
    out[op++] = offset & 0xff;
  } else {
    out[op++] = 2 | ((length - 1) << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
  }
  return op;
}
