// Snappy for Parquet pages: the Rust implementation (the snap crate) through the `snappy` package
// (napi-rs, MIT; an optional dependency whose native binary for each platform is an npm package
// of its own). Where no binary fits the platform, or it is not installed, no compressor is given
// and hyparquet-writer uses its built-in one (its ParquetWriter's documented fallback for SNAPPY,
// a port of snappyjs, pure JavaScript): the same block format, about 0.17 s more per 100,000
// records of the default columns. Both are read back by hyparquet and DuckDB in the tests.

/** Which Snappy compresses: the native library, or hyparquet-writer's built-in JavaScript one. */
export type SnappyBackend = "native" | "js";

type Compress = (input: Uint8Array) => Uint8Array;

let native: { compressSync: Compress } | null | undefined;

function loadNative(): typeof native {
  if (native === undefined) {
    try {
      native = require("snappy") as NonNullable<typeof native>;
    } catch {
      native = null; // no binary for this platform, or the optional dependency was left out
    }
  }
  return native;
}

/** The backend this process uses: native when the `snappy` package loads, else JavaScript. */
export function snappyBackend(): SnappyBackend {
  return loadNative() ? "native" : "js";
}

/** The native compressor for hyparquet-writer's `compressors.SNAPPY`, or undefined for its built-in one. */
export function nativeSnappy(): Compress | undefined {
  const lib = loadNative();
  return lib ? (input) => lib.compressSync(input) : undefined;
}
