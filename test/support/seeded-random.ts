// Every random input of a test comes from here, from a seed the test names, so a failure can be
// replayed: the seed is printed with the failure, and MATFRAME_TEST_SEED runs it again with another.
import { onTestFailed } from "vitest";

/** mulberry32: small, fast and good enough for test inputs (not for anything secret). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generator of numbers in [0, 1) and the seed it started from. */
export interface SeededRandom {
  readonly seed: number;
  /** The next number in [0, 1), as `Math.random()` gives. */
  next(): number;
  /** The next whole number in [0, `below`). */
  int(below: number): number;
  /** `length` bytes, as `crypto.randomBytes` gives but replayable. */
  bytes(length: number): Buffer;
}

/**
 * A seeded generator. `seed` is the test's own; the environment variable MATFRAME_TEST_SEED, when
 * set, replaces it (to try other inputs, or replay the ones a failure printed). Called inside a
 * test, a failure of that test prints the seed; inputs made while tests are collected (outside
 * any test) name their seed in the test's title instead.
 */
export function seededRandom(seed: number): SeededRandom {
  const fromEnv = process.env.MATFRAME_TEST_SEED;
  const used = fromEnv === undefined || fromEnv === "" ? seed >>> 0 : Number.parseInt(fromEnv, 10) >>> 0;
  try {
    onTestFailed(() => {
      console.error(`random inputs from seed ${used} (replay: MATFRAME_TEST_SEED=${used})`);
    });
  } catch {
    // Outside a running test (at a file's top level or in beforeAll) there is no test to attach to.
  }
  const next = mulberry32(used);
  const int = (below: number): number => Math.floor(next() * below);
  return { seed: used, next, int, bytes: (length) => Buffer.from(Array.from({ length }, () => int(256))) };
}
