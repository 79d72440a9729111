import { stringsAt } from "./index-plan";

const EMPTY = new Int32Array(0);

/**
 * For each indexed path, the positions (ascending) of the records holding each value. `_id` is
 * answered from the store's own id map; the other paths are built on first use, once per store
 * (the stores never change in place: a write builds a new one).
 * Built lazily: paid once, by the first query on that path, and no memory for paths never asked.
 */
export class FieldIndexes {
  private readonly built = new Map<string, Map<string, Int32Array>>();

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
    if (values.length === 1) return index.get(values[0]!) ?? EMPTY;
    const seen = new Set<number>();
    for (const value of new Set(values)) for (const position of index.get(value) ?? EMPTY) seen.add(position);
    return Int32Array.from(seen).sort();
  }

  private indexOf(path: string): Map<string, Int32Array> {
    const found = this.built.get(path);
    if (found) return found;
    const lists = new Map<string, number[]>();
    const segments = path.split(".");
    const held: string[] = [];
    this.records.forEach((record, position) => {
      held.length = 0;
      stringsAt(record, segments, 0, held);
      for (const value of held) {
        let positions = lists.get(value);
        if (!positions) lists.set(value, (positions = []));
        // A record holding a value twice (a set listed twice) is one candidate.
        if (positions[positions.length - 1] !== position) positions.push(position);
      }
    });
    // Typed once here, so a lookup hands out the list itself instead of copying it (100,000
    // positions for the owner of every served record). Callers only read it.
    const index = new Map<string, Int32Array>();
    for (const [value, positions] of lists) index.set(value, Int32Array.from(positions));
    this.built.set(path, index);
    return index;
  }
}
