// The end of the chain: one request dispatched through the composed dispatcher, its answer read
// whole into text. Our own handler rather than undici's `request()`: no body stream to build and
// drain for a page that is wanted whole.
import type { IncomingHttpHeaders } from "node:http";
import type { Controller, Dispatch, DispatchOptions, Handler } from "./interceptors/forward";
import type { Raw } from "./parse";

/** What one exchange ended with: the answer, or the error undici (or an interceptor) gave. */
export type Exchange = Raw | { error: unknown; answered: boolean };

/**
 * Sends `options` through `dispatch` and reads the answer. The signal ends the wait at once,
 * whether or not undici has the request on a connection yet: undici sees an abort only once the
 * request has one, and a connection through a proxy waits for its answer to CONNECT with no time
 * limit, so a proxy that accepts and never answers would hold the caller's timeout and Ctrl-C
 * for ever. An exchange given up on stays in `abandoned` until undici lets go of it (so that
 * closing the pool destroys it rather than waits), and its answer, if one ever comes, is dropped.
 */
export function exchange(
  dispatch: Dispatch,
  options: DispatchOptions,
  signal: AbortSignal,
  abandoned: Set<Promise<unknown>>,
): Promise<Exchange> {
  const reader = new Reader(signal);
  try {
    dispatch(options, reader);
  } catch (error) {
    reader.onResponseError(undefined, error as Error);
  }
  if (signal.aborted) return giveUp(reader, signal, abandoned);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      reader.controller?.abort(signal.reason as Error);
      resolve(giveUp(reader, signal, abandoned));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    void reader.done.then((answer) => {
      signal.removeEventListener("abort", onAbort);
      resolve(answer);
    });
  });
}

function giveUp(reader: Reader, signal: AbortSignal, abandoned: Set<Promise<unknown>>): Promise<Exchange> {
  abandoned.add(reader.done);
  void reader.done.finally(() => abandoned.delete(reader.done));
  return Promise.resolve({ error: signal.reason, answered: false });
}

/** Collects one answer's status, headers and body. */
class Reader implements Handler {
  controller: Controller | undefined;
  readonly done: Promise<Exchange>;
  #settle!: (answer: Exchange) => void;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  #chunks: Buffer[] = [];
  #size = 0;
  #answered = false;

  constructor(private readonly signal: AbortSignal) {
    this.done = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    if (this.signal.aborted) controller.abort(this.signal.reason as Error);
  }

  onResponseStart(_c: Controller, status: number, headers: IncomingHttpHeaders): void {
    this.#status = status;
    this.#headers = headers;
    this.#answered = true;
  }

  onResponseData(_c: Controller, chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
  }

  onResponseEnd(): void {
    const chunks = this.#chunks;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size);
    this.#chunks = [];
    this.#settle({ status: this.#status, headers: this.#headers, text: body.toString("utf8") });
  }

  onResponseError(_c: Controller | undefined, error: Error): void {
    this.#chunks = [];
    this.#settle({ error, answered: this.#answered });
  }
}
