// Snappy for Parquet pages, from snappyjs (MIT, Zhipeng Jia; pure JavaScript, loaded on first
// use). Its compressor writes into one array sized for the worst case; hyparquet-writer's own
// copy of the same algorithm grows its output a byte call at a time, which made Snappy about 10%
// of a Parquet export's CPU. Same algorithm, same bytes (test/frame/parquet-chunk.test.ts).
import { MissingDependencyError } from "../errors";

let compressImpl: ((input: Uint8Array) => Uint8Array) | undefined;

/** Compresses `input` as one Snappy block (the raw format Parquet's SNAPPY codec uses). */
export function snappyCompress(input: Uint8Array): Uint8Array {
  if (!compressImpl) {
    try {
      compressImpl = (require("snappyjs") as { compress(input: Uint8Array): Uint8Array }).compress;
    } catch (error) {
      throw new MissingDependencyError("snappyjs", "A Parquet export with Snappy compression", { cause: error });
    }
  }
  return compressImpl(input);
}
