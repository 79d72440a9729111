/**
 * File names unique within one folder, compared without case (macOS and Windows file systems
 * ignore it). A colliding name gets the first free suffix `-2`, `-3`, ... of its base; each base
 * remembers where its last search ended, so 8,000 records sharing one base cost about 8,000
 * lookups, not the 32 million a search from `-2` each time would.
 */
export class UniqueNames {
  /** Names given or reserved, lower-cased. */
  readonly #taken = new Set<string>();
  /** For each lower-cased `base.ext`, the next suffix worth trying. */
  readonly #next = new Map<string, number>();
  /** Lookups made so far: what keeps the cost linear, counted so that a test can see it. */
  probes = 0;

  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.#taken.add(name.toLowerCase());
  }

  /** Reserves a name already used (a file of an earlier run, the index). */
  reserve(name: string): void {
    this.#taken.add(name.toLowerCase());
  }

  /** Whether a name is given or reserved (case ignored). */
  has(name: string): boolean {
    return this.#taken.has(name.toLowerCase());
  }

  /**
   * `base.ext` if free, else `base-N.ext` with the smallest N from where this base's last search
   * ended. A suffix skipped once is taken for good (names are never released), so the search never
   * needs to look back: every failed lookup passes a name that is taken, and each taken name can
   * stop only the one base it ends in, which bounds the lookups by the names given.
   */
  take(base: string, ext: string): string {
    const key = `${base}.${ext}`.toLowerCase();
    let name = `${base}.${ext}`;
    let n = this.#next.get(key);
    if (n === undefined) {
      this.probes++;
      if (!this.#taken.has(name.toLowerCase())) return this.#give(name, key, 2);
      n = 2;
    }
    for (; ; n++) {
      name = `${base}-${n}.${ext}`;
      this.probes++;
      if (!this.#taken.has(name.toLowerCase())) return this.#give(name, key, n + 1);
    }
  }

  #give(name: string, key: string, next: number): string {
    this.#taken.add(name.toLowerCase());
    this.#next.set(key, next);
    return name;
  }
}
