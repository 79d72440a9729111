import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, statSync } from "node:fs";
import { describeOwner, releasePidLock, takePidLock } from "../../pid-lock";
import { checkLmdbFile } from "./lmdb-file";
import * as path from "node:path";
import { DatasetError, MissingDependencyError, ServerOptionsError } from "../../errors";
import type { StoredRecord } from "./store";

/**
 * Where written records are kept: in memory only, or in an embedded database (LMDB) with
 * `--store DIR`. Each `put` or `remove` is one transaction, resolved only once committed to disk,
 * so a `kill -9` leaves every acknowledged write whole and no write half-applied.
 */
export interface RecordBackend {
  /** Every record kept, with the collection it belongs to, read once at start. */
  load(): KeptRecord[];
  put(record: StoredRecord, collection: string): Promise<void>;
  remove(id: string, collection: string): Promise<void>;
  /** Applies every change in one transaction: after a crash, all of them are there or none. */
  commit(changes: readonly BackendChange[]): Promise<void>;
  close(): Promise<void>;
}

/** One change of a transaction: a record to put or an id to remove, in a collection. */
export type BackendChange = ({ put: StoredRecord } | { remove: string }) & { collection: string };

/** A record and its collection (`materials`, `jobs`, ...), as a backend keeps it. */
export interface KeptRecord {
  collection: string;
  record: StoredRecord;
}

/** The collection whose records a store written before the other collections existed holds. */
export const FIRST_COLLECTION = "materials";

/**
 * The key of a record in the store: its `_id` for a material (as stores written before the other
 * collections existed keep them), `<collection>/<_id>` for the rest. Written ids never hold a `/`.
 */
export function storeKey(collection: string, id: string): string {
  return collection === FIRST_COLLECTION ? id : `${collection}/${id}`;
}

/** Without `--store`: writes live as long as the process. */
export class MemoryBackend implements RecordBackend {
  load(): KeptRecord[] {
    return [];
  }
  async put(): Promise<void> {}
  async remove(): Promise<void> {}
  async commit(): Promise<void> {}
  async close(): Promise<void> {}
}

/** The file inside the store directory (LMDB keeps a `-lock` file beside it). */
export const STORE_FILE = "materials.mdb";

interface LmdbDatabase {
  put(key: string, value: unknown): Promise<boolean>;
  remove(key: string): Promise<boolean>;
  transaction<T>(action: () => T): Promise<T>;
  getRange(options?: object): Iterable<{ key: unknown; value: unknown }>;
  close(): Promise<void>;
}

type LmdbOpen = (options: Record<string, unknown>) => LmdbDatabase;

function loadLmdb(): LmdbOpen {
  try {
    // Loaded only with --store: an optional peer dependency with a native binary.
    return (require("lmdb") as { open: LmdbOpen }).open;
  } catch (error) {
    throw new MissingDependencyError("lmdb", "The local platform's store (keeping written records on disk)", {
      cause: error,
      hint: "Without a store, written records live in memory until the server stops.",
    });
  }
}

/** Records in LMDB, one JSON value per `_id`. */
export class LmdbBackend implements RecordBackend {
  private constructor(
    private readonly db: LmdbDatabase,
    private readonly file: string,
    private readonly lock: string,
  ) {}

  /** Opens (creating it if needed) the store in `dir`. */
  static open(dir: string): LmdbBackend {
    const open = loadLmdb();
    preparePrivateDirectory(dir);
    const file = path.join(dir, STORE_FILE);
    const lock = takeStoreLock(dir);
    try {
      // A damaged file is refused here, with a message: LMDB maps it into memory and would die of
      // a signal (SIGSEGV, SIGBUS) on the first page that is not there.
      checkLmdbFile(file);
      // The store holds every account's records: its files are the owner's only, created so
      // before LMDB opens them (it would create them with the umask's 0644).
      for (const name of [STORE_FILE, `${STORE_FILE}-lock`]) createPrivate(path.join(dir, name));
      // JSON values (not msgpack) so the file holds the records as the API shows them.
      return new LmdbBackend(open({ path: file, encoding: "json", compression: false }), file, lock);
    } catch (error) {
      releasePidLock(lock);
      if (error instanceof ServerOptionsError) throw error;
      throw new ServerOptionsError(
        `Cannot open the store ${file}: ${(error as Error).message}. Is it an LMDB store matframe wrote?`,
      );
    }
  }

  load(): KeptRecord[] {
    const records: KeptRecord[] = [];
    try {
      for (const { key, value } of this.db.getRange()) {
        const record = value as StoredRecord;
        const slash = typeof key === "string" ? key.indexOf("/") : -1;
        const collection = slash === -1 ? FIRST_COLLECTION : (key as string).slice(0, slash);
        if (
          typeof key !== "string" ||
          typeof record !== "object" ||
          record === null ||
          storeKey(collection, record._id) !== key
        ) {
          throw new DatasetError(
            `The store ${this.file} holds an entry that is not a record (key ${JSON.stringify(key)}).`,
          );
        }
        records.push({ collection, record });
      }
    } catch (error) {
      if (error instanceof DatasetError) throw error;
      throw new DatasetError(`Cannot read the store ${this.file}: ${(error as Error).message}.`);
    }
    return records;
  }

  async put(record: StoredRecord, collection: string): Promise<void> {
    await this.db.put(storeKey(collection, record._id), record);
  }

  async remove(id: string, collection: string): Promise<void> {
    await this.db.remove(storeKey(collection, id));
  }

  async commit(changes: readonly BackendChange[]): Promise<void> {
    // Inside lmdb-js's transaction callback each put and remove applies at once to the one write
    // transaction, which commits (or not) as a whole.
    await this.db.transaction(() => {
      for (const change of changes) {
        if ("put" in change) void this.db.put(storeKey(change.collection, change.put._id), change.put);
        else void this.db.remove(storeKey(change.collection, change.remove));
      }
    });
  }

  async close(): Promise<void> {
    await this.db.close();
    releasePidLock(this.lock);
  }
}

/** The file that marks a store as open by one server: its process id. */
export const STORE_LOCK = "matframe-serve.lock";

/**
 * One server per store: each keeps the written records in memory too, so a second server on the
 * same directory would neither see the first one's writes nor be seen. A lock left by a server
 * that was killed (its process is gone) is taken over.
 */
function takeStoreLock(dir: string): string {
  const lock = path.join(dir, STORE_LOCK);
  let held: ReturnType<typeof takePidLock>;
  try {
    held = takePidLock(lock);
  } catch (error) {
    throw new ServerOptionsError(`Cannot lock the store ${dir}: ${(error as Error).message}.`, { option: "store" });
  }
  if (!held.taken) {
    throw new ServerOptionsError(
      `The store ${dir} is in use by another matframe server (${describeOwner(held.owner)}); stop that one, or give this server another store directory. ` +
        `If no server uses it (that host is gone), remove ${path.join(dir, STORE_LOCK)}.`,
      { option: "store" },
    );
  }
  return lock;
}

/**
 * Creates the store directory 0700, or checks an existing one: a directory others can write is
 * refused (they could plant the lock or the data file), and one others can read is tightened.
 */
function preparePrivateDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ServerOptionsError(whyNotMade(dir, error as NodeJS.ErrnoException), { option: "store" });
  }
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink())
    throw new ServerOptionsError(`The store ${dir} is a symbolic link; give the real directory as the store.`, {
      option: "store",
    });
  if (process.platform === "win32") return;
  if ((stat.mode & 0o022) !== 0) {
    throw new ServerOptionsError(
      `The store directory ${dir} can be written by other users (mode ${(stat.mode & 0o777).toString(8)}); matframe will not keep records there. ` +
        `Run \`chmod 700 ${dir}\`, or give a store directory of your own.`,
      { option: "store" },
    );
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, stat.mode & 0o700);
}

/**
 * Why the store's folder could not be made, in words a user can act on: a file where the folder
 * (or one of its parents) should be is named, rather than left as mkdir's EEXIST or ENOTDIR.
 */
function whyNotMade(dir: string, error: NodeJS.ErrnoException): string {
  const file = error.code === "EEXIST" || error.code === "ENOTDIR" ? fileInPath(dir) : undefined;
  const remedy = "give the path of a folder (one that does not exist yet is created).";
  if (file === path.resolve(dir))
    return `The store ${dir} is a file, not a folder: the store is a folder of its own, for the database and the jobs' files; ${remedy}`;
  if (file !== undefined)
    return `The store ${dir} cannot be made: ${file} in its path is a file, not a folder; ${remedy}`;
  return `Cannot create the store directory ${dir}: ${error.message}.`;
}

/** The nearest existing path at or above `dir` when it is no folder (a link followed), else undefined. */
function fileInPath(dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      return statSync(at).isDirectory() ? undefined : at;
    } catch {
      if (path.dirname(at) === at) return undefined;
    }
  }
}

/** Creates `file` 0600 if it is missing (never through a symlink), or makes an existing one 0600. */
function createPrivate(file: string): void {
  try {
    closeSync(openSync(file, "wx", 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const stat = lstatSync(file);
    if (!stat.isFile())
      throw new ServerOptionsError(
        `${file} in the store is not a regular file (a symbolic link?); matframe will not open it.`,
      );
    if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}
