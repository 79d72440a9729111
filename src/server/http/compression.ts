import { createHash } from "node:crypto";
import { brotliCompress, constants, gzip } from "node:zlib";
import { promisify } from "node:util";

/** What `--compression` allows: none, one coding, or whichever the client prefers. */
export type CompressionMode = "off" | "gzip" | "br" | "auto";
/** A content coding the server can send. */
export type Coding = "gzip" | "br";

/** Bodies smaller than this go out as they are: compressing them saves less than its cost. */
export const MIN_COMPRESS_BYTES = 1024;

/**
 * Levels chosen by measurement on a page of 500 whole records (554 KB, one core of the bench
 * machine): gzip 1/4/6 gave 8.8/11.1/13.9x in 1.8/3.1/3.7 ms, brotli 1/4/5 gave 10.7/13.5/16.8x in
 * 1.0/2.6/4.1 ms. gzip 6 and brotli 4 give most of the bytes for well under the 5 ms it takes to
 * build the page; brotli also decodes faster (0.5 ms against 1.2 ms). See docs/local-platform.md.
 */
const GZIP_LEVEL = 6;
const BROTLI_QUALITY = 4;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * Compresses on libuv's thread pool (zlib's asynchronous API), so a big page never blocks the
 * event loop, and other clients, while it is compressed.
 */
export function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  return coding === "gzip"
    ? gzipAsync(body, { level: GZIP_LEVEL })
    : brotliAsync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          [constants.BROTLI_PARAM_LGWIN]: brotliWindowBits(body.length),
        },
      });
}

/**
 * The smallest brotli window that holds the whole body (up to brotli's default of 22 bits, 4 MB),
 * so that every match the default window would find is still found. The default is sized for
 * streams; at quality 4 it also brings a bigger match finder, and the encoder's memory, which
 * Node reports to V8 as external memory, is many times a page's size: six pages compressed at
 * once set off full garbage collections of the server's whole heap (two in a first walk of
 * 20,029 materials' default columns, each marking every record on both cores). With the window
 * fitted to the page (19 bits for 339 KB) the pages came out the same size (11.8x) for half the
 * CPU, and the walk set off no collection. A window of `bits` holds (1 << bits) - 16 bytes
 * (RFC 7932, section 9.1).
 */
export function brotliWindowBits(bytes: number): number {
  let bits = constants.BROTLI_MIN_WINDOW_BITS;
  while (bits < constants.BROTLI_DEFAULT_WINDOW && (1 << bits) - 16 < bytes) bits++;
  return bits;
}

/**
 * Compressed bodies by the hash of what they compress, so that the same page asked for by many
 * clients (a class pulling one collection, a re-run) is compressed once: hashing a page costs a
 * tenth of compressing it. Compressions under way are shared too. The least recently used go
 * first once the compressed bytes pass the budget.
 */
export class CompressedBodies {
  readonly #done = new Map<string, Buffer>();
  readonly #running = new Map<string, Promise<Buffer>>();
  /** A read's validator and coding -> the key of its compressed body in `#done`, least recently used first. */
  readonly #reads = new Map<string, string>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  /**
   * The compressed answer sent before to a read with this strong validator (`Reply.etag`, which
   * names one body) in this coding, while it is kept; else undefined. A walk's pages asked for
   * again (a re-run, a class pulling one collection) are then answered without looking at a
   * record, joining the page's JSON or hashing it: most of what a page costs the server.
   */
  keptRead(etag: string, coding: Coding): Buffer | undefined {
    const read = `${coding}:${etag}`;
    const key = this.#reads.get(read);
    if (key === undefined) return undefined;
    this.#reads.delete(read);
    const done = this.#done.get(key);
    if (!done) return undefined;
    this.#reads.set(read, key);
    this.#done.delete(key);
    this.#done.set(key, done);
    return done;
  }

  /** `body` compressed; with the `etag` of the read it answers, found again by `keptRead`. */
  async compress(body: Buffer, coding: Coding, etag?: string): Promise<Buffer> {
    const key = `${coding}:${createHash("sha256").update(body).digest("base64url")}`;
    if (etag !== undefined) this.#rememberRead(`${coding}:${etag}`, key);
    const done = this.#done.get(key);
    if (done) {
      this.#done.delete(key);
      this.#done.set(key, done);
      return done;
    }
    let running = this.#running.get(key);
    if (!running) {
      running = compress(body, coding).finally(() => this.#running.delete(key));
      this.#running.set(key, running);
      running.then(
        (compressed) => this.#keep(key, compressed),
        () => undefined,
      );
    }
    return running;
  }

  #rememberRead(read: string, key: string): void {
    this.#reads.delete(read);
    this.#reads.set(read, key);
    // Entries are small (two short strings); the bodies they point to are what the budget bounds.
    if (this.#reads.size > MAX_KEPT_READS) this.#reads.delete(this.#reads.keys().next().value!);
  }

  #keep(key: string, compressed: Buffer): void {
    if (compressed.length > this.maxBytes || this.#done.has(key)) return;
    this.#done.set(key, compressed);
    this.#bytes += compressed.length;
    for (const [oldest, kept] of this.#done) {
      if (this.#bytes <= this.maxBytes) break;
      this.#done.delete(oldest);
      this.#bytes -= kept.length;
    }
  }
}

/** Reads remembered by validator: the pages of 60 walks of 100,000 materials, about 3 MB of keys. */
const MAX_KEPT_READS = 12_000;

/** Room for the compressed pages of several whole walks of 100,000 materials (8 to 40 MB each). */
export const COMPRESSED_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * The coding to answer with, from the request's `Accept-Encoding` (RFC 9110 section 12.5.3):
 * the allowed coding with the highest q-value above 0, brotli first on a tie; `identity` or
 * nothing acceptable means none. `*` stands for any coding not named. Unknown codings are ignored.
 */
export function chooseCoding(acceptEncoding: string | string[] | undefined, mode: CompressionMode): Coding | undefined {
  if (mode === "off" || acceptEncoding === undefined) return undefined;
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(",") : acceptEncoding;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(param);
      if (match) q = Math.min(1, Math.max(0, Number(match[1]) || 0));
    }
    weights.set(name.trim(), q);
  }
  const allowed: Coding[] = mode === "auto" ? ["br", "gzip"] : [mode];
  let best: Coding | undefined;
  let bestQ = 0;
  for (const coding of allowed) {
    const q = weights.get(coding) ?? weights.get("*") ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}
