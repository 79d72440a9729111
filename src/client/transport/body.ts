// Response bodies: decoded by their Content-Encoding and read within a cap, so that a wrong
// address or a hostile server cannot make the client hold an endless body in memory.
import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { brotliDecompress, createBrotliDecompress, createGunzip, createInflate, gunzip, inflate } from "node:zlib";

/** What the client asks for: brotli and gzip (the platform's front end and `matframe serve` send either), deflate welcome. */
export const ACCEPT_ENCODING = "br, gzip, deflate";

/** An error body longer than this is cut: only its `message` is wanted. */
export const ERROR_BODY_LIMIT = 64 * 1024;

/** A content coding the client decodes. */
export type Coding = "identity" | "gzip" | "br" | "deflate";

/** The body's coding by its `Content-Encoding` (`x-gzip` is gzip); undefined for a coding we cannot decode. */
export function codingOf(encoding: string | string[] | undefined): Coding | undefined {
  const coding = String(encoding ?? "identity")
    .trim()
    .toLowerCase();
  if (coding === "identity" || coding === "") return "identity";
  if (coding === "gzip" || coding === "x-gzip") return "gzip";
  return coding === "br" || coding === "deflate" ? coding : undefined;
}

/** The body decoded as a stream (an error body, read only in part), the body itself for identity. */
export function decoderFor(coding: Coding, body: Readable): Readable {
  if (coding === "identity") return body;
  const decoder = coding === "gzip" ? createGunzip() : coding === "br" ? createBrotliDecompress() : createInflate();
  body.on("error", (error) => decoder.destroy(error));
  return body.pipe(decoder);
}

type Decode = (buffer: Buffer, options: { maxOutputLength: number; chunkSize: number }) => Promise<Buffer>;
const WHOLE_DECODERS: Record<Exclude<Coding, "identity">, Decode> = {
  gzip: promisify(gunzip) as Decode,
  br: promisify(brotliDecompress) as Decode,
  deflate: promisify(inflate) as Decode,
};

/**
 * Reads a compressed 2xx body whole, then decodes it in one call on libuv's thread pool. A
 * decoding stream hands every 16 KiB back to JavaScript: measured on pages of 500 records (30 KB
 * of brotli, 440 KB of JSON), one call costs the event loop a third less, which a walk's pages
 * share with the parsing of their neighbours. The compressed bytes are read within `limit`, and
 * decoding stops at `limit` bytes (zlib's `maxOutputLength`), so a small bomb is still refused.
 * `onBytes` is told when the compressed bytes are in, before they are decoded.
 */
export async function readDecodedWithin(
  body: Readable,
  coding: Exclude<Coding, "identity">,
  headers: IncomingHttpHeaders,
  limit: number,
  onBytes?: () => void,
): Promise<string | { bytes: number }> {
  const raw = await readBytesWithin(body, headers, limit);
  if (!Buffer.isBuffer(raw)) return raw;
  onBytes?.();
  try {
    return (
      await WHOLE_DECODERS[coding](raw, { maxOutputLength: limit, chunkSize: outputChunk(raw.length, limit) })
    ).toString("utf8");
  } catch (cause) {
    if ((cause as { code?: unknown } | null)?.code === "ERR_BUFFER_TOO_LARGE") return { bytes: limit + 1 };
    throw cause;
  }
}

/**
 * The size of the pieces zlib decodes into: about what the body will decode to (JSON pages of
 * records shrink 12 to 16 times under gzip and brotli), within 16 KiB (zlib's own) and 1 MiB. Each
 * piece is a call back into JavaScript and a copy; zlib's 16 KiB made a page of 500 records 27 of
 * them, about half a millisecond of the event loop a page, which the parsing of its neighbours waits for.
 */
function outputChunk(compressed: number, limit: number): number {
  return Math.max(16 * 1024, Math.min(compressed * 16, 1024 * 1024, limit));
}

/** Drops a body we will not read; undici reports the drop as an error nobody needs to hear. */
export function discard(body: Readable): void {
  body.on("error", () => {});
  body.destroy();
}

/** zlib's errors (Z_DATA_ERROR, ERR__ERROR_FORMAT_PADDING_1, ...): a body that does not decode. */
export function isDecodeError(cause: unknown): boolean {
  const code = String((cause as { code?: unknown } | null)?.code ?? "");
  return code.startsWith("Z_") || code.startsWith("ERR__ERROR_FORMAT") || code.startsWith("ERR_BROTLI");
}

/** At most about `limit` bytes of a body, as text (an error body: only its message is wanted). */
export async function readCapped(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the stream, so an oversized body is never left half-read.
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Reads a 2xx body, counting bytes as they arrive: a body over `limit` (announced by its
 * Content-Length, or streamed endlessly) is dropped at once, never held in memory whole.
 */
export async function readWithin(
  body: Readable,
  headers: IncomingHttpHeaders,
  limit: number,
): Promise<string | { bytes: number }> {
  // A body of announced length within the limit: undici reads exactly that many bytes and decodes
  // them once, which costs less than a loop over chunks (about 5% of a table read on loopback).
  const announced = Number(headers["content-length"]);
  const text = (body as Readable & { text?: () => Promise<string> }).text;
  if (Number.isFinite(announced) && announced <= limit && typeof text === "function") return text.call(body);
  const bytes = await readBytesWithin(body, headers, limit);
  return Buffer.isBuffer(bytes) ? bytes.toString("utf8") : bytes;
}

/** The bytes of a body, counted as they arrive: over `limit` (announced or streamed), dropped at once. */
async function readBytesWithin(
  body: Readable,
  headers: IncomingHttpHeaders,
  limit: number,
): Promise<Buffer | { bytes: number }> {
  const announced = Number(headers["content-length"]);
  if (Number.isFinite(announced) && announced > limit) {
    body.destroy();
    return { bytes: 0 };
  }
  const whole = (body as Readable & { arrayBuffer?: () => Promise<ArrayBuffer> }).arrayBuffer;
  if (Number.isFinite(announced) && typeof whole === "function") return Buffer.from(await whole.call(body));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      return { bytes: size };
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}
