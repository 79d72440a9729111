// Bodies decoded by their Content-Encoding. A 2xx body (a page) is read whole and decoded in one
// call on libuv's thread pool, into pieces about the page's size; an error body is decoded as a
// stream, so that `errorBodyCap` can cut it early. Either way the decoded size is capped
// (`limit`, zlib's `maxOutputLength` for a page), so a small bomb is refused, not expanded.
import type { IncomingHttpHeaders } from "node:http";
import type { Transform } from "node:stream";
import { promisify } from "node:util";
import { brotliDecompress, createBrotliDecompress, createGunzip, createInflate, gunzip, inflate } from "node:zlib";
import { bodyTooLarge } from "./body-caps";
import { type Controller, Forward, type Handler, type Interceptor, headerValue, isSuccess } from "./forward";

/** What the client asks for: brotli and gzip (the platform's front end and `matframe serve` send either), deflate welcome. */
export const ACCEPT_ENCODING = "br, gzip, deflate";

/** The code of the error a request is aborted with when its answer is in a coding we cannot decode. */
export const UNSUPPORTED_CODING_CODE = "MATFRAME_UNSUPPORTED_CODING";

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

/** zlib's errors (Z_DATA_ERROR, ERR__ERROR_FORMAT_PADDING_1, ...): a body that does not decode. */
export function isDecodeError(cause: unknown): boolean {
  const code = String((cause as { code?: unknown } | null)?.code ?? "");
  return code.startsWith("Z_") || code.startsWith("ERR__ERROR_FORMAT") || code.startsWith("ERR_BROTLI");
}

type Coded = Exclude<Coding, "identity">;
type Decode = (buffer: Buffer, options: { maxOutputLength: number; chunkSize: number }) => Promise<Buffer>;
const WHOLE_DECODERS: Record<Coded, Decode> = {
  gzip: promisify(gunzip) as Decode,
  br: promisify(brotliDecompress) as Decode,
  deflate: promisify(inflate) as Decode,
};
const STREAM_DECODERS: Record<Coded, () => Transform> = {
  gzip: createGunzip,
  br: createBrotliDecompress,
  deflate: createInflate,
};

/**
 * Decodes gzip, br and deflate bodies (at most `limit` bytes decoded for a 2xx), and tells the
 * request's `onReceived` when a 2xx or 304 answer's bytes are all in, before decoding them. A
 * coding it cannot decode aborts the request with `UNSUPPORTED_CODING_CODE`; a body that does
 * not decode ends in zlib's error (see `isDecodeError`).
 */
export function decompress(limit: number): Interceptor {
  return (dispatch) => (options, handler) =>
    dispatch(options, new Decompress(handler, limit, options.matframe?.onReceived));
}

class Decompress extends Forward {
  #mode: "pass" | "whole" | "stream" | "refused" = "pass";
  #coding: Coded = "gzip";
  #received = false;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  #decoder: Transform | undefined;
  #upstreamEnded = false;

  constructor(
    next: Handler,
    private readonly limit: number,
    private readonly onReceived: (() => void) | undefined,
  ) {
    super(next);
  }

  override onResponseStart(c: Controller, status: number, headers: IncomingHttpHeaders, message?: string): void {
    this.#received = isSuccess(status) || status === 304;
    const coding = codingOf(headers["content-encoding"]);
    if (coding === undefined) {
      this.#mode = "refused";
      const said = headerValue(headers, "content-encoding");
      c.abort(
        Object.assign(new Error(`unsupported content coding ${said}`), { code: UNSUPPORTED_CODING_CODE, coding: said }),
      );
      return;
    }
    if (coding === "identity" || status === 204 || status === 304) {
      super.onResponseStart(c, status, headers, message);
      return;
    }
    this.#coding = coding;
    // The headers now describe the decoded body, as undici's own decompress interceptor leaves them.
    const { "content-encoding": _coding, "content-length": _length, ...decoded } = headers;
    if (isSuccess(status)) this.#mode = "whole";
    else this.#startStream(c);
    super.onResponseStart(c, status, decoded, message);
  }

  override onResponseData(c: Controller, chunk: Buffer): void {
    if (this.#mode === "pass") {
      super.onResponseData(c, chunk);
      return;
    }
    if (this.#mode === "whole") {
      this.#chunks.push(chunk);
      this.#size += chunk.length;
    } else if (this.#mode === "stream") this.#decoder?.write(chunk);
  }

  override onResponseEnd(c: Controller, trailers: IncomingHttpHeaders): void {
    this.#upstreamEnded = true;
    if (this.#mode === "refused") return;
    if (this.#received) this.onReceived?.();
    if (this.#mode === "pass") {
      super.onResponseEnd(c, trailers);
      return;
    }
    if (this.#mode === "stream") {
      this.#decoder?.end();
      return;
    }
    if (this.#mode === "whole") void this.#decodeWhole(c, trailers);
  }

  override onResponseError(c: Controller, error: Error): void {
    this.#decoder?.destroy();
    super.onResponseError(c, error);
  }

  async #decodeWhole(c: Controller, trailers: IncomingHttpHeaders): Promise<void> {
    const raw = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
    let decoded: Buffer;
    try {
      decoded = await WHOLE_DECODERS[this.#coding](raw, {
        maxOutputLength: this.limit,
        chunkSize: outputChunk(raw.length, this.limit),
      });
    } catch (cause) {
      const tooLarge = (cause as { code?: unknown } | null)?.code === "ERR_BUFFER_TOO_LARGE";
      super.onResponseError(c, tooLarge ? bodyTooLarge(this.limit + 1, this.limit) : (cause as Error));
      return;
    }
    super.onResponseData(c, decoded);
    super.onResponseEnd(c, trailers);
  }

  /** An error body, decoded as it comes; a downstream abort (the error body cut) stops the decoder too. */
  #startStream(c: Controller): void {
    this.#mode = "stream";
    const decoder = STREAM_DECODERS[this.#coding]();
    this.#decoder = decoder;
    const own: Controller = {
      get aborted() {
        return c.aborted;
      },
      get paused() {
        return c.paused;
      },
      get reason() {
        return c.reason;
      },
      abort: (reason) => {
        decoder.destroy();
        c.abort(reason);
      },
      pause: () => c.pause(),
      resume: () => c.resume(),
    };
    decoder.on("data", (chunk: Buffer) => super.onResponseData(own, chunk));
    decoder.on("end", () => super.onResponseEnd(own, {}));
    decoder.on("error", (error) => {
      // Whichever comes first tells the handlers after: the upstream's error once aborted, else this.
      this.#mode = "refused";
      if (this.#upstreamEnded) super.onResponseError(own, error);
      else c.abort(error);
    });
  }
}

/**
 * The size of the pieces zlib decodes a page into: about what the body will decode to (JSON pages
 * of records shrink 12 to 16 times under gzip and brotli), within 16 KiB (zlib's own) and 1 MiB.
 * Each piece is a call back into JavaScript and a copy; zlib's 16 KiB made a page of 500 records
 * 27 of them, about half a millisecond of the event loop a page, which the parsing of its
 * neighbours waits for. Decoding in one call, rather than as a stream, cost the event loop a third less.
 */
function outputChunk(compressed: number, limit: number): number {
  return Math.max(16 * 1024, Math.min(compressed * 16, 1024 * 1024, limit));
}
