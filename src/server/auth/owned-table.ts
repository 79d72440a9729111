// A table bounded twice: per owner (an account, a client address) and in all. The table a flood
// fills must not be the one everybody else's entries live in: one owner at its bound pushes out
// its own oldest entry, and a full table pushes out the oldest entry of whoever holds the most,
// so a flood by one owner never ends another's entry while the flooder holds more than they do.

/** The bounds of an {@link OwnedTable}. */
export interface OwnedTableLimits {
  /** Entries kept at most, from all owners together. */
  max: number;
  /** Entries one owner keeps at most. */
  maxPerOwner: number;
}

/** Entries by key, each with its owner; insertion order is age (oldest first). */
export class OwnedTable<V> {
  private readonly entries = new Map<string, { owner: string; value: V }>();
  /** Each owner's keys, oldest first. */
  private readonly keysOf = new Map<string, Set<string>>();

  constructor(private readonly limits: OwnedTableLimits) {}

  /** Adds an entry; returns the values pushed out to make room (their owners' oldest). */
  add(key: string, owner: string, value: V): V[] {
    this.delete(key);
    this.entries.set(key, { owner, value });
    let own = this.keysOf.get(owner);
    if (!own) this.keysOf.set(owner, (own = new Set()));
    own.add(key);
    const evicted: V[] = [];
    if (own.size > this.limits.maxPerOwner) evicted.push(this.delete(own.values().next().value as string)!);
    if (this.entries.size > this.limits.max) evicted.push(this.delete(this.oldestOfLargestOwner())!);
    return evicted;
  }

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Removes an entry; returns its value, or undefined when there was none. */
  delete(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    const own = this.keysOf.get(entry.owner);
    own?.delete(key);
    if (own?.size === 0) this.keysOf.delete(entry.owner);
    return entry.value;
  }

  /** Entries `owner` holds now. */
  countOf(owner: string): number {
    return this.keysOf.get(owner)?.size ?? 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Every value, oldest first. */
  values(): IterableIterator<V> {
    return (function* (entries) {
      for (const entry of entries.values()) yield entry.value;
    })(this.entries);
  }

  /**
   * The key of the oldest entry of the owner holding the most: a scan of the owners, run only
   * when the whole table is full (10,000 owners take some tens of microseconds).
   */
  private oldestOfLargestOwner(): string {
    let largest: Set<string> | undefined;
    for (const own of this.keysOf.values()) if (!largest || own.size > largest.size) largest = own;
    return largest!.values().next().value as string;
  }
}
