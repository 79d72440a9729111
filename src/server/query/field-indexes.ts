import { stringsAt } from "./index-plan";

const EMPTY = new Int32Array(0);

/**
 * One path's index: each value's positions, ascending, as a slice of one shared array (value `k`
 * holds `positions[starts[k]]` up to `positions[starts[k + 1]]`). One array for the whole path
 * instead of one per value: on 100,029 jobs, whose `_material._id` values are nearly all
 * distinct, a list and a typed array per value took 270 ms to build.
 */
interface PathIndex {
  readonly slots: Map<string, number>;
  readonly starts: Int32Array;
  readonly positions: Int32Array;
}

/**
 * For each indexed path, the positions (ascending) of the records holding each value. `_id` is
 * answered from the store's own id map; the other paths are built on first use, once per store
 * (the stores never change in place: a write builds a new one). `matframe serve` builds the
 * reference paths' indexes at start-up (src/server/http/request-warm-up.ts); from code, a path's
 * first query pays for it, and no memory goes to paths never asked.
 */
export class FieldIndexes {
  private readonly built = new Map<string, PathIndex>();

  constructor(
    private readonly records: readonly object[],
    private readonly idPositions: ReadonlyMap<string, number>,
  ) {}

  /** Positions (ascending) of the records holding any of `values` at `path`. */
  lookup(path: string, values: readonly string[]): Int32Array {
    if (path === "_id") {
      const found: number[] = [];
      for (const value of values) {
        const position = this.idPositions.get(value);
        if (position !== undefined) found.push(position);
      }
      return Int32Array.from(found).sort();
    }
    const index = this.indexOf(path);
    // Callers only read what a lookup hands out: a view of the index itself, not a copy.
    const holding = (value: string) => {
      const slot = index.slots.get(value);
      return slot === undefined ? EMPTY : index.positions.subarray(index.starts[slot]!, index.starts[slot + 1]!);
    };
    if (values.length === 1) return holding(values[0]!);
    const seen = new Set<number>();
    for (const value of new Set(values)) for (const position of holding(value)) seen.add(position);
    return Int32Array.from(seen).sort();
  }

  private indexOf(path: string): PathIndex {
    const found = this.built.get(path);
    if (found) return found;
    const slots = new Map<string, number>();
    // Per slot (a value, numbered as first met): how many records hold it, and the last that did.
    const counts: number[] = [];
    const lastHolder: number[] = [];
    // (slot, position) of every holding, in record order.
    const pairs: number[] = [];
    const segments = path.split(".");
    const held: string[] = [];
    this.records.forEach((record, position) => {
      held.length = 0;
      stringsAt(record, segments, 0, held);
      for (const value of held) {
        let slot = slots.get(value);
        if (slot === undefined) {
          slot = counts.length;
          slots.set(value, slot);
          counts.push(0);
          lastHolder.push(-1);
        }
        // A record holding a value twice (a set listed twice) is one candidate.
        if (lastHolder[slot] === position) continue;
        lastHolder[slot] = position;
        counts[slot]! += 1;
        pairs.push(slot, position);
      }
    });
    const starts = new Int32Array(counts.length + 1);
    for (let slot = 0; slot < counts.length; slot++) starts[slot + 1] = starts[slot]! + counts[slot]!;
    const positions = new Int32Array(pairs.length / 2);
    const next = starts.slice(0, counts.length);
    // Records were visited in order, so each value's positions come out ascending.
    for (let i = 0; i < pairs.length; i += 2) positions[next[pairs[i]!]!++] = pairs[i + 1]!;
    const index = { slots, starts, positions };
    this.built.set(path, index);
    return index;
  }
}
