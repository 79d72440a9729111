// Snappy for Parquet pages. The Rust implementation (the snap crate) through the `snappy` package
// (napi-rs, MIT; an optional dependency whose native binary for each platform is an npm package
// of its own); where no binary fits the platform, or it is not installed, hyparquet-writer's own
// port of snappyjs (MIT, Zhipeng Jia; pure JavaScript, published in its `./src/*.js` exports,
// about 0.17 s more per 100,000 records of the default columns). Both
// write the raw block format of Parquet's SNAPPY codec, checked against hyparquet's decoder
// (test/frame/parquet-chunk.test.ts).
import { MissingDependencyError } from "../../errors";

/** Which Snappy compresses: the native library, or its pure JavaScript port. */
export type SnappyBackend = "native" | "js";

type Compress = (input: Uint8Array) => Uint8Array;

let native: { compressSync: Compress } | null | undefined;
let js: Compress | undefined;

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

function loadJs(): Compress {
  if (!js) {
    try {
      js = (require("hyparquet-writer/src/snappy.js") as { snappyCompress: Compress }).snappyCompress;
    } catch (error) {
      throw new MissingDependencyError("hyparquet-writer", "A Parquet export with Snappy compression", {
        cause: error,
      });
    }
  }
  return js;
}

/** The backend this process uses: native when the `snappy` package loads, else JavaScript. */
export function snappyBackend(): SnappyBackend {
  return loadNative() ? "native" : "js";
}

/** Compresses `input` as one Snappy block, on this thread. */
export function snappyCompress(input: Uint8Array, backend: SnappyBackend = snappyBackend()): Uint8Array {
  return backend === "native" && loadNative() ? loadNative()!.compressSync(input) : loadJs()(input);
}
