import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

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
  get(key: string): CachedResponse | undefined;
  /** The kept body's length in characters, without using the entry (no LRU touch), or undefined. */
  sizeOf(key: string): number | undefined;
  set(key: string, value: CachedResponse): void;
  delete(key: string): void;
}

/** @default 256 MiB for memory, 1 GiB for a directory */
export const DEFAULT_MEMORY_CACHE_BYTES = 256 * 1024 * 1024;
const DEFAULT_DIR_CACHE_BYTES = 1024 * 1024 * 1024;

/** The cache key: method, origin, path with query and account, hashed (so a directory never names a query). */
export function cacheKey(url: string, accountId: string | undefined): string {
  return createHash("sha256").update(`GET\n${accountId ?? ""}\n${url}`).digest("hex");
}

/** Least recently used entries go first once the bodies pass `maxBytes`. */
class MemoryCache implements ResponseCache {
  readonly inMemory = true;
  readonly #entries = new Map<string, CachedResponse>();
  #bytes = 0;
  constructor(readonly maxBytes: number) {}

  get(key: string): CachedResponse | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  sizeOf(key: string): number | undefined {
    return this.#entries.get(key)?.text.length;
  }

  set(key: string, value: CachedResponse): void {
    this.delete(key);
    const size = value.text.length * 2;
    if (size > this.maxBytes) return;
    this.#entries.set(key, value);
    this.#bytes += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.text.length * 2;
    }
  }

  delete(key: string): void {
    const old = this.#entries.get(key);
    if (!old) return;
    this.#entries.delete(key);
    this.#bytes -= old.text.length * 2;
  }
}

/**
 * One file per response, named by the key's hash, written to a temporary name and renamed (a
 * crash never leaves half an entry). The directory is created private (0700, files 0600): it
 * holds the account's records. Past `maxBytes`, the oldest files are removed.
 */
class DirectoryCache implements ResponseCache {
  readonly inMemory = false;
  #bytes: number | undefined;
  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  get(key: string): CachedResponse | undefined {
    let raw: string;
    try {
      raw = readFileSync(join(this.dir, `${key}.json`), "utf8");
    } catch {
      return undefined;
    }
    const newline = raw.indexOf("\n");
    const etag = newline > 0 ? raw.slice(0, newline) : "";
    if (!etag.startsWith('"')) return undefined;
    return { etag, text: raw.slice(newline + 1) };
  }

  sizeOf(key: string): number | undefined {
    try {
      return statSync(join(this.dir, `${key}.json`)).size;
    } catch {
      return undefined;
    }
  }

  set(key: string, value: CachedResponse): void {
    const file = join(this.dir, `${key}.json`);
    const temporary = join(this.dir, `.${key}.${randomBytes(4).toString("hex")}.tmp`);
    const content = `${value.etag}\n${value.text}`;
    try {
      writeFileSync(temporary, content, { mode: 0o600 });
      renameSync(temporary, file);
    } catch {
      // A full or read-only disk makes the cache forget, not the request fail.
      rmSync(temporary, { force: true });
      return;
    }
    this.#bytes = (this.#bytes ?? this.#measure()) + Buffer.byteLength(content);
    if (this.#bytes > this.maxBytes) this.#trim();
  }

  delete(key: string): void {
    rmSync(join(this.dir, `${key}.json`), { force: true });
    this.#bytes = undefined;
  }

  #files(): { path: string; size: number; mtime: number }[] {
    return readdirSync(this.dir)
      .filter((name) => name.endsWith(".json"))
      .flatMap((name) => {
        try {
          const s = statSync(join(this.dir, name));
          return [{ path: join(this.dir, name), size: s.size, mtime: s.mtimeMs }];
        } catch {
          return [];
        }
      });
  }

  #measure(): number {
    return this.#files().reduce((sum, f) => sum + f.size, 0);
  }

  #trim(): void {
    const files = this.#files().sort((x, y) => x.mtime - y.mtime);
    let total = files.reduce((sum, f) => sum + f.size, 0);
    for (const f of files) {
      if (total <= this.maxBytes * 0.8) break;
      rmSync(f.path, { force: true });
      total -= f.size;
    }
    this.#bytes = total;
  }
}

let sharedMemoryCache: MemoryCache | undefined;

/** The store for a `cache` setting. */
export function openCache(setting: CacheSetting): ResponseCache {
  if (setting === "memory") return (sharedMemoryCache ??= new MemoryCache(DEFAULT_MEMORY_CACHE_BYTES));
  return new DirectoryCache(setting.dir, setting.maxBytes ?? DEFAULT_DIR_CACHE_BYTES);
}
