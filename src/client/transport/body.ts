// Response bodies: decoded by their Content-Encoding and read within a cap, so that a wrong
// address or a hostile server cannot make the client hold an endless body in memory.
import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** What the client asks for: brotli and gzip (the platform's front end and `matframe serve` send either), deflate welcome. */
export const ACCEPT_ENCODING = "br, gzip, deflate";

/** An error body longer than this is cut: only its `message` is wanted. */
export const ERROR_BODY_LIMIT = 64 * 1024;

/** The body decoded by its `Content-Encoding` (node:zlib streams), the body itself for none; undefined for a coding we cannot decode. */
export function decoderFor(encoding: string | string[] | undefined, body: Readable): Readable | undefined {
  const coding = String(encoding ?? "identity")
    .trim()
    .toLowerCase();
  if (coding === "identity" || coding === "") return body;
  const decoder =
    coding === "gzip" || coding === "x-gzip"
      ? createGunzip()
      : coding === "br"
        ? createBrotliDecompress()
        : coding === "deflate"
          ? createInflate()
          : undefined;
  if (!decoder) return undefined;
  body.on("error", (error) => decoder.destroy(error));
  return body.pipe(decoder);
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
  const announced = Number(headers["content-length"]);
  if (Number.isFinite(announced) && announced > limit) {
    body.destroy();
    return { bytes: 0 };
  }
  // A body of announced length within the limit: undici reads exactly that many bytes and decodes
  // them once, which costs less than a loop over chunks (about 5% of a table read on loopback).
  const text = (body as Readable & { text?: () => Promise<string> }).text;
  if (Number.isFinite(announced) && typeof text === "function") return text.call(body);
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
  return Buffer.concat(chunks, size).toString("utf8");
}
