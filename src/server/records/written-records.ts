import { randomBytes } from "node:crypto";
import { type BackendChange, FIRST_COLLECTION, type RecordBackend } from "./record-backend";
import { HttpError } from "../http/http-errors";
import { MaterialStore, type StoredRecord } from "./store";

/** What one account may keep on the local platform (all its collections together). */
export interface AccountQuota {
  /** Records at most. */
  readonly records: number;
  /** Bytes of their JSON, together, at most. */
  readonly bytes: number;
}

/** Default quota: room for a class's work, not for filling the server's memory or disk. */
export const DEFAULT_QUOTA: AccountQuota = { records: 10_000, bytes: 256 * 1024 * 1024 };

/** A change a write makes: a record to put or an id to remove, in a collection (materials unless named). */
export type WrittenChange<T> = RecordChange & { result: T };

/** A record to put or an id to remove, in a collection (materials unless named). */
export type RecordChange = ({ put: StoredRecord } | { remove: string }) & { collection?: string };

/** Changes that commit together or not at all, and what the transaction resolves to. */
export interface WrittenTransaction<T> {
  changes: readonly RecordChange[];
  result: T;
  /**
   * Written past the quota: only for the server's own bookkeeping that must never fail (a job
   * that ends in `error` because its results did not fit), never for what a user sends.
   */
  pastQuota?: boolean;
}

/**
 * The records accounts wrote through the API, in every collection (materials, workflows, jobs,
 * ...), kept in memory (and, with `--store`, in the backend). Each account's records of one
 * collection form their own small {@link MaterialStore}, built on first read after a change, so
 * the served records' stores (and their cached walks) are never rebuilt. Writes run one at a
 * time, and memory changes only after the backend committed. The quota counts an account's
 * records of every collection together.
 */
export class WrittenRecords {
  private readonly byId = new Map<string, StoredRecord>();
  private readonly collectionById = new Map<string, string>();
  /** JSON bytes of each record, and their sum per owner, for the quota. */
  private readonly sizeById = new Map<string, number>();
  private readonly bytesByOwner = new Map<string, number>();
  private readonly countByOwner = new Map<string, number>();
  private readonly idsByShelf = new Map<string, Set<string>>();
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
    private readonly quota: AccountQuota = DEFAULT_QUOTA,
  ) {
    for (const { record, collection } of backend.load()) this.remember(record, collection);
  }

  get size(): number {
    return this.byId.size;
  }

  /** The record of `collection` with this id, whoever owns it. */
  get(id: string, collection = FIRST_COLLECTION): StoredRecord | undefined {
    return this.collectionById.get(id) === collection ? this.byId.get(id) : undefined;
  }

  /** Every record of `collection`, whoever owns it. */
  *recordsOf(collection: string): Generator<StoredRecord> {
    for (const [id, kept] of this.collectionById) if (kept === collection) yield this.byId.get(id)!;
  }

  /** Whether any collection has a record with this id. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /**
   * What an account sees of the written records, as a short string that changes whenever one of
   * its records is written or removed (and with every start of the server). Reads take it before
   * they look at any record, so a write during a read makes its answer's version obsolete at once.
   */
  versionFor(ownerId: string): string {
    return `${this.epoch}.${this.changedAt.get(ownerId) ?? 0}`;
  }

  /** How many records `ownerId` has in `collection` (no store is built for it). */
  countOf(ownerId: string, collection = FIRST_COLLECTION): number {
    return this.idsByShelf.get(shelf(collection, ownerId))?.size ?? 0;
  }

  /** The records of `ownerId` in `collection` as a store to query, or undefined when it has none. */
  storeOf(ownerId: string, collection = FIRST_COLLECTION): MaterialStore | undefined {
    const key = shelf(collection, ownerId);
    const ids = this.idsByShelf.get(key);
    if (!ids || ids.size === 0) return undefined;
    let store = this.stores.get(key);
    if (!store) {
      store = new MaterialStore(
        [...ids].map((id) => this.byId.get(id)!),
        { scanBudgetMs: this.scanBudgetMs },
      );
      this.stores.set(key, store);
    }
    return store;
  }

  /**
   * Runs `change` alone (no other write in between) and keeps what it returns: a record to put
   * or an id to remove. The backend commits first; only then does memory change.
   */
  write<T>(change: () => WrittenChange<T>): Promise<T> {
    return this.transact(() => {
      const { result, ...one } = change();
      return { changes: [one], result };
    });
  }

  /**
   * Runs `build` alone (no other write in between) and commits every change it returns in one
   * transaction of the backend: a crash leaves all of them or none. `build` reads the records as
   * they are at that moment, so a check it makes (a job still running) holds when it commits.
   * Removing an id the collection does not hold is no change.
   */
  transact<T>(build: () => WrittenTransaction<T>): Promise<T> {
    const run = this.queue.then(async () => {
      const next = build();
      const changes: BackendChange[] = [];
      for (const change of next.changes) {
        const collection = change.collection ?? FIRST_COLLECTION;
        if ("put" in change) {
          const existing = this.collectionById.get(change.put._id);
          if (existing !== undefined && existing !== collection)
            throw new HttpError(409, `id ${change.put._id} is taken by ${existing}`);
          changes.push({ put: change.put, collection });
        } else if (this.collectionById.get(change.remove) === collection) {
          changes.push({ remove: change.remove, collection });
        }
      }
      if (changes.length === 0) return next.result;
      if (!next.pastQuota) this.checkQuota(changes);
      const [only] = changes;
      if (changes.length > 1 || only === undefined) await this.backend.commit(changes);
      else if ("put" in only) await this.backend.put(only.put, only.collection);
      else await this.backend.remove(only.remove, only.collection);
      for (const change of changes) {
        if ("put" in change) this.remember(change.put, change.collection);
        else this.forget(change.remove);
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

  /**
   * Refuses changes that would take an owner past the quota: more records, or more bytes, than
   * allowed, where the changes add to them (a replaced record's own size is freed first).
   */
  private checkQuota(changes: readonly BackendChange[]): void {
    const added = new Map<string, { records: number; bytes: number }>();
    const delta = (owner: string) => {
      let found = added.get(owner);
      if (!found) added.set(owner, (found = { records: 0, bytes: 0 }));
      return found;
    };
    for (const change of changes) {
      const id = "put" in change ? change.put._id : change.remove;
      const previous = this.byId.get(id);
      if (previous) {
        const owner = delta(this.ownerOf(previous));
        owner.records -= 1;
        owner.bytes -= this.sizeById.get(id) ?? 0;
      }
      if ("put" in change) {
        const owner = delta(this.ownerOf(change.put));
        owner.records += 1;
        owner.bytes += Buffer.byteLength(JSON.stringify(change.put));
      }
    }
    for (const [owner, more] of added) {
      const records = (this.countByOwner.get(owner) ?? 0) + more.records;
      if (more.records > 0 && records > this.quota.records) {
        throw new HttpError(
          403,
          `Your account has ${records - more.records} records, its quota on this server (${this.quota.records}); delete some before creating more (the server's operator sets the quota).`,
        );
      }
      const bytes = (this.bytesByOwner.get(owner) ?? 0) + more.bytes;
      if (more.bytes > 0 && bytes > this.quota.bytes) {
        throw new HttpError(
          403,
          `This write would take your account's records to ${bytes} bytes, past its quota on this server (${this.quota.bytes} bytes); delete or shrink some records (the server's operator sets the quota).`,
        );
      }
    }
  }

  private ownerOf(record: StoredRecord): string {
    return String((record.owner as { _id?: unknown } | undefined)?._id ?? "");
  }

  private remember(record: StoredRecord, collection: string): void {
    const previous = this.byId.get(record._id);
    if (previous) this.forget(record._id);
    this.byId.set(record._id, record);
    this.collectionById.set(record._id, collection);
    const owner = this.ownerOf(record);
    const size = Buffer.byteLength(JSON.stringify(record));
    this.sizeById.set(record._id, size);
    this.bytesByOwner.set(owner, (this.bytesByOwner.get(owner) ?? 0) + size);
    this.countByOwner.set(owner, (this.countByOwner.get(owner) ?? 0) + 1);
    const key = shelf(collection, owner);
    let ids = this.idsByShelf.get(key);
    if (!ids) this.idsByShelf.set(key, (ids = new Set()));
    ids.add(record._id);
    this.stores.delete(key);
    this.changedAt.set(owner, ++this.changes);
  }

  private forget(id: string): void {
    const record = this.byId.get(id);
    if (!record) return;
    const key = shelf(this.collectionById.get(id)!, this.ownerOf(record));
    this.byId.delete(id);
    this.collectionById.delete(id);
    const owner = this.ownerOf(record);
    this.bytesByOwner.set(owner, (this.bytesByOwner.get(owner) ?? 0) - (this.sizeById.get(id) ?? 0));
    this.countByOwner.set(owner, (this.countByOwner.get(owner) ?? 0) - 1);
    this.sizeById.delete(id);
    this.idsByShelf.get(key)?.delete(id);
    this.stores.delete(key);
    this.changedAt.set(owner, ++this.changes);
  }
}

/** The key of one account's records of one collection. */
function shelf(collection: string, owner: string): string {
  return `${collection}\u0000${owner}`;
}
