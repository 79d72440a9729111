import { randomBytes } from "node:crypto";
import type { RecordBackend } from "./record-backend";
import { MaterialStore, type StoredRecord } from "./store";

/**
 * The records accounts wrote through the API, kept in memory (and, with `--store`, in the
 * backend). Each account's records form their own small {@link MaterialStore}, built on first
 * read after a change, so the served materials' store (and its cached walks) is never rebuilt.
 * Writes run one at a time, and memory changes only after the backend committed.
 */
export class WrittenRecords {
  private readonly byId = new Map<string, StoredRecord>();
  private readonly idsByOwner = new Map<string, Set<string>>();
  private readonly stores = new Map<string, MaterialStore>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Changes so far; each owner remembers the count at its last change, so a version never repeats. */
  private changes = 0;
  private readonly changedAt = new Map<string, number>();
  /** Differs on every start, so a version from an earlier run (whose records may differ) never matches. */
  private readonly epoch = randomBytes(12).toString("base64url");

  constructor(
    private readonly backend: RecordBackend,
    private readonly scanBudgetMs?: number,
  ) {
    for (const record of backend.load()) this.remember(record);
  }

  get size(): number {
    return this.byId.size;
  }

  /** The record with this id, whoever owns it. */
  get(id: string): StoredRecord | undefined {
    return this.byId.get(id);
  }

  /**
   * What an account sees of the written records, as a short string that changes whenever one of
   * its records is written or removed (and with every start of the server). Reads take it before
   * they look at any record, so a write during a read makes its answer's version obsolete at once.
   */
  versionFor(ownerId: string): string {
    return `${this.epoch}.${this.changedAt.get(ownerId) ?? 0}`;
  }

  /** The records of `ownerId` as a store to query, or undefined when it has none. */
  storeOf(ownerId: string): MaterialStore | undefined {
    const ids = this.idsByOwner.get(ownerId);
    if (!ids || ids.size === 0) return undefined;
    let store = this.stores.get(ownerId);
    if (!store) {
      store = new MaterialStore([...ids].map((id) => this.byId.get(id)!), { scanBudgetMs: this.scanBudgetMs });
      this.stores.set(ownerId, store);
    }
    return store;
  }

  /**
   * Runs `change` alone (no other write in between) and keeps what it returns: a record to put
   * or an id to remove. The backend commits first; only then does memory change.
   */
  write<T>(change: () => { put: StoredRecord; result: T } | { remove: string; result: T }): Promise<T> {
    const run = this.queue.then(async () => {
      const next = change();
      if ("put" in next) {
        await this.backend.put(next.put);
        this.remember(next.put);
      } else {
        await this.backend.remove(next.remove);
        this.forget(next.remove);
      }
      return next.result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Waits for the writes under way, then closes the backend. */
  async close(): Promise<void> {
    await this.queue;
    await this.backend.close();
  }

  private ownerOf(record: StoredRecord): string {
    return String((record.owner as { _id?: unknown } | undefined)?._id ?? "");
  }

  private remember(record: StoredRecord): void {
    const previous = this.byId.get(record._id);
    if (previous) this.forget(record._id);
    this.byId.set(record._id, record);
    const owner = this.ownerOf(record);
    let ids = this.idsByOwner.get(owner);
    if (!ids) this.idsByOwner.set(owner, (ids = new Set()));
    ids.add(record._id);
    this.stores.delete(owner);
    this.changedAt.set(owner, ++this.changes);
  }

  private forget(id: string): void {
    const record = this.byId.get(id);
    if (!record) return;
    this.byId.delete(id);
    const owner = this.ownerOf(record);
    this.idsByOwner.get(owner)?.delete(id);
    this.stores.delete(owner);
    this.changedAt.set(owner, ++this.changes);
  }
}
