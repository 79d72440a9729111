import { createHash, randomBytes } from "node:crypto";
import { constants, mkdirSync, statSync } from "node:fs";
import { open, readdir, readFile, rename, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Raw } from "./parse";
import { ValidationError } from "../../errors";

/** Asynchronous: a request never waits on a synchronous call (test/client/directory-cache.test.ts). */
const randomHex = promisify(randomBytes);
/** Reads never follow a symbolic link planted where an entry should be (0 where there is no such flag). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Where the client keeps responses it may revalidate: `"memory"` (shared by every client of the
 * process, so re-running a notebook cell that makes a new client still finds them) or a directory
 * (kept across kernel restarts).
 */
export type CacheSetting = "memory" | { dir: string; maxBytes?: number };

/** One kept response: its validator and its decoded body. */
export interface CachedResponse {
  etag: string;
  text: string;
}

/**
 * A store of revalidatable responses. Entries are only ever used after the server confirmed them
 * with a 304, so a lost or evicted entry costs a body, never correctness.
 */
export interface ResponseCache {
  /** True for the process's memory (`"memory"`), which may also keep whole reads. */
  readonly inMemory: boolean;
  /** The kept response, which becomes the most recently used. */
  get(key: string): Promise<CachedResponse | undefined>;
  /** The kept body's size, without using the entry (no LRU touch), or undefined; never touches the disk. */
  sizeOf(key: string): number | undefined;
  /** Keeps a response; never rejects (a cache that cannot write forgets). */
  set(key: string, value: CachedResponse): Promise<void>;
  delete(key: string): Promise<void>;
}

/** @default 256 MiB for memory, 1 GiB for a directory */
export const DEFAULT_MEMORY_CACHE_BYTES = 256 * 1024 * 1024;
const DEFAULT_DIR_CACHE_BYTES = 1024 * 1024 * 1024;

/** The cache key: method, origin, path with query and account, hashed (so a directory never names a query). */
export function cacheKey(url: string, accountId: string | undefined): string {
  return createHash("sha256")
    .update(`GET\n${accountId ?? ""}\n${url}`)
    .digest("hex");
}

/** Least recently used entries go first once the bodies pass `maxBytes`. */
class MemoryCache implements ResponseCache {
  readonly inMemory = true;
  readonly #entries = new Map<string, CachedResponse>();
  #bytes = 0;
  constructor(readonly maxBytes: number) {}

  /** Answers kept now. */
  get entryCount(): number {
    return this.#entries.size;
  }

  get(key: string): Promise<CachedResponse | undefined> {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return Promise.resolve(hit);
  }

  sizeOf(key: string): number | undefined {
    return this.#entries.get(key)?.text.length;
  }

  set(key: string, value: CachedResponse): Promise<void> {
    this.#remove(key);
    const size = value.text.length * 2;
    if (size > this.maxBytes) return Promise.resolve();
    this.#entries.set(key, value);
    this.#bytes += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.text.length * 2;
    }
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.#remove(key);
    return Promise.resolve();
  }

  #remove(key: string): void {
    const old = this.#entries.get(key);
    if (!old) return;
    this.#entries.delete(key);
    this.#bytes -= old.text.length * 2;
  }
}

/**
 * One file per response, named by the key's hash, written to a temporary name and renamed (a
 * crash never leaves half an entry). The directory is created private (0700, files 0600): it
 * holds the account's records. Past `maxBytes`, the least recently used files are removed: an
 * in-memory index keeps the order, each use (a hit, so also every 304) moves an entry to the
 * end and sets its file's time, which is how the order survives a restart (the index is built
 * from the files' times when the cache opens). Requests only ever wait for asynchronous file
 * calls; the only synchronous ones are creating and checking the directory when the client is
 * made, so that an unusable `dir` is an error there.
 *
 * The folder must be private: owned by this user and writable by no one else. A folder others
 * may write is refused, not tightened (its permissions are the owner's choice, and may serve
 * others): there, anyone could plant a link named like an entry or its temporary file and
 * receive the account's records, or hand the client answers of their own. Entries are written
 * through exclusive temporary files with random names (`wx`: never through an existing name, a
 * link included) and read without following links.
 */
class DirectoryCache implements ResponseCache {
  readonly inMemory = false;
  /** Entries by key, least recently used first, with their file sizes. */
  readonly #index = new Map<string, number>();
  #bytes = 0;
  /** Reading the directory once, when the cache opens. */
  readonly #ready: Promise<void>;
  /** Writes under way, by key: a read of that key waits for its write. */
  readonly #writing = new Map<string, Promise<void>>();

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    checkPrivate(dir);
    this.#ready = this.#load().catch(() => undefined);
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    await this.#ready;
    await this.#writing.get(key);
    if (!this.#index.has(key)) return undefined;
    const file = this.#file(key);
    let raw: string;
    try {
      raw = await readFile(file, { encoding: "utf8", flag: constants.O_RDONLY | NOFOLLOW });
    } catch {
      this.#forget(key);
      return undefined;
    }
    const newline = raw.indexOf("\n");
    const etag = newline > 0 ? raw.slice(0, newline) : "";
    if (!etag.startsWith('"')) return undefined;
    this.#touch(key);
    // The file's time carries the order to the next process; losing it only costs order.
    const now = new Date();
    utimes(file, now, now).catch(() => undefined);
    return { etag, text: raw.slice(newline + 1) };
  }

  sizeOf(key: string): number | undefined {
    return this.#index.get(key);
  }

  set(key: string, value: CachedResponse): Promise<void> {
    const previous = this.#writing.get(key) ?? Promise.resolve();
    const write = previous
      .then(() => this.#write(key, value))
      .finally(() => {
        if (this.#writing.get(key) === write) this.#writing.delete(key);
      });
    this.#writing.set(key, write);
    return write;
  }

  delete(key: string): Promise<void> {
    this.#forget(key);
    return rm(this.#file(key), { force: true }).catch(() => undefined);
  }

  #file(key: string): string {
    return join(this.dir, `${key}.json`);
  }

  async #write(key: string, value: CachedResponse): Promise<void> {
    await this.#ready;
    // A random name made exclusively: no one can guess it to plant a link there first, and an
    // existing name (a link included) makes the write fail rather than go through it.
    const temporary = join(this.dir, `.${key}.${(await randomHex(12)).toString("hex")}.tmp`);
    const content = `${value.etag}\n${value.text}`;
    try {
      const handle = await open(temporary, "wx", 0o600);
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
      await rename(temporary, this.#file(key));
    } catch {
      // A full or read-only disk makes the cache forget, not the request fail.
      await rm(temporary, { force: true }).catch(() => undefined);
      return;
    }
    this.#forget(key);
    const size = Buffer.byteLength(content);
    this.#index.set(key, size);
    this.#bytes += size;
    if (this.#bytes > this.maxBytes) await this.#trim();
  }

  #touch(key: string): void {
    const size = this.#index.get(key);
    if (size === undefined) return;
    this.#index.delete(key);
    this.#index.set(key, size);
  }

  #forget(key: string): void {
    const size = this.#index.get(key);
    if (size === undefined) return;
    this.#index.delete(key);
    this.#bytes -= size;
  }

  /** The index from the files there, oldest use first. */
  async #load(): Promise<void> {
    const names = (await readdir(this.dir)).filter((name) => name.endsWith(".json") && !name.startsWith("."));
    const found = await Promise.all(
      names.map(async (name) => {
        try {
          const s = await stat(join(this.dir, name));
          return [{ key: name.slice(0, -".json".length), size: s.size, mtime: s.mtimeMs }];
        } catch {
          return [];
        }
      }),
    );
    for (const f of found.flat().sort((x, y) => x.mtime - y.mtime)) {
      // An entry written or read by this process while the directory was read is newer than all.
      if (this.#index.has(f.key)) continue;
      this.#index.set(f.key, f.size);
      this.#bytes += f.size;
    }
    if (this.#bytes > this.maxBytes) await this.#trim();
  }

  /** Removes the least recently used entries until the cache is back under 80% of `maxBytes`. */
  async #trim(): Promise<void> {
    const removals: Promise<unknown>[] = [];
    for (const [key] of this.#index) {
      if (this.#bytes <= this.maxBytes * 0.8) break;
      this.#forget(key);
      removals.push(rm(this.#file(key), { force: true }).catch(() => undefined));
    }
    await Promise.all(removals);
  }
}

/**
 * Refuses a cache folder that is not this user's own, or that others may write to.
 * @throws ValidationError saying which, and how to make it private.
 */
function checkPrivate(dir: string): void {
  const s = statSync(dir);
  if (!s.isDirectory()) throw new ValidationError("cache", "it is not a folder");
  const uid = process.getuid?.();
  if (uid !== undefined && s.uid !== uid) {
    throw new ValidationError(
      "cache",
      `it belongs to another user (uid ${s.uid}), who could read and change the answers kept there; choose a folder of your own`,
    );
  }
  // Off POSIX (Windows) the mode bits say nothing about other users: the owner check above is skipped there too.
  if (uid !== undefined && (s.mode & 0o022) !== 0) {
    const mode = (s.mode & 0o777).toString(8).padStart(3, "0");
    throw new ValidationError(
      "cache",
      `other users may write to it (mode ${mode}), so they could plant files where the account's records are kept; ` +
        `make it private (chmod 700 ${JSON.stringify(dir)}) or choose a private folder`,
    );
  }
}

let sharedMemoryCache: MemoryCache | undefined;

/**
 * Forgets the process's memory cache: clients made after this start with an empty one. For test
 * files that share a process, which must not see each other's answers. @internal
 */
export function resetMemoryCache(): void {
  sharedMemoryCache = undefined;
}

/** Answers the process's memory cache keeps now (0 before any client used it). @internal */
export function memoryCacheEntries(): number {
  return sharedMemoryCache?.entryCount ?? 0;
}

/** The store for a `cache` setting. */
export function openCache(setting: CacheSetting): ResponseCache {
  if (setting === "memory") return (sharedMemoryCache ??= new MemoryCache(DEFAULT_MEMORY_CACHE_BYTES));
  return new DirectoryCache(setting.dir, setting.maxBytes ?? DEFAULT_DIR_CACHE_BYTES);
}

/**
 * Keeps a 200 that carries a validator and may be stored (RFC 9111 section 3: no `no-store`), and
 * forgets the key otherwise: without a validator nothing can be confirmed, so nothing is kept.
 */
export function keepOrForget(cache: ResponseCache, key: string, outcome: Raw): Promise<void> {
  const etag = outcome.headers.etag;
  const control = String(outcome.headers["cache-control"] ?? "").toLowerCase();
  if (outcome.status === 200 && typeof etag === "string" && etag !== "" && !control.includes("no-store")) {
    return cache.set(key, { etag, text: outcome.text });
  }
  return cache.delete(key);
}
