/**
 * Runs password hashes one at a time, fairly across client addresses, with a bounded wait.
 *
 * Each login costs ~50 ms of scrypt; hashed in parallel, a burst would take every core from the
 * clients already reading, so hashes run one at a time. A plain first-come queue let one client's
 * burst of wrong logins (1,000 distinct usernames) delay everybody's login by 38 s. Here each address has its own queue, served in turn, so another address's login
 * waits for at most one hash per address ahead of it; one address may have `maxPerSource` hashes
 * waiting and all addresses `maxWaiting`, beyond which a login is refused at once (503 with
 * `Retry-After`) instead of queueing for ever.
 */
export class FairHashQueue {
  readonly #queues = new Map<string, Array<() => void>>();
  #waiting = 0;
  #running = false;

  constructor(
    readonly maxWaiting: number,
    readonly maxPerSource: number,
  ) {}

  /** Hashes waiting now (not counting the one running). */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Runs `work` when it is this source's turn. Resolves to `undefined` without running it when
   * the queue is full (the caller refuses the login).
   */
  async run<T>(source: string, work: () => Promise<T>): Promise<{ value: T } | undefined> {
    const queue = this.#queues.get(source) ?? [];
    if (this.#waiting >= this.maxWaiting || queue.length >= this.maxPerSource) return undefined;
    await new Promise<void>((resolve) => {
      queue.push(resolve);
      this.#queues.set(source, queue);
      this.#waiting += 1;
      this.#next();
    });
    try {
      return { value: await work() };
    } finally {
      this.#running = false;
      this.#next();
    }
  }

  /** Starts the next hash: the first waiting one of the source whose turn it is. */
  #next(): void {
    if (this.#running) return;
    // Map order is insertion order: the source served is moved to the back, so sources take turns.
    for (const [source, queue] of this.#queues) {
      const start = queue.shift();
      this.#queues.delete(source);
      if (queue.length > 0) this.#queues.set(source, queue);
      if (start) {
        this.#running = true;
        this.#waiting -= 1;
        start();
        return;
      }
    }
  }
}
