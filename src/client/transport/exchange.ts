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
  signal: AbortSignal | undefined,
  abandoned: Set<Promise<unknown>>,
): Promise<Exchange> {
  const reader = new Reader(signal);
  try {
    dispatch(options, reader);
  } catch (error) {
    reader.onResponseError(undefined, error as Error);
  }
  // Without a signal there is nothing to listen to (a listener per request on one shared signal
  // would make Node warn of a leak once more than ten were in flight).
  if (!signal) return reader.done;
  if (signal.aborted) return giveUp(reader, signal, abandoned);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      reader.controller?.abort(signal.reason as Error);
      resolve(giveUp(reader, signal, abandoned));
    };
    const stopListening = onceAborted(signal, onAbort);
    void reader.done.then((answer) => {
      stopListening();
      resolve(answer);
    });
  });
}

/** Each signal's waiting exchanges, and the one listener that calls them. */
const waiting = new WeakMap<AbortSignal, { callbacks: Set<() => void>; listener: () => void }>();

/**
 * Calls `onAbort` once when `signal` aborts, until the returned function is called. The same
 * signal may be every request's (the client's own `signal`, one a notebook passes to many calls):
 * one listener on it serves them all, so Node sees one listener per signal (more than ten on one
 * signal make it warn of a leak), and none is left on it once no request waits.
 */
function onceAborted(signal: AbortSignal, onAbort: () => void): () => void {
  let entry = waiting.get(signal);
  if (!entry) {
    const callbacks = new Set<() => void>();
    const listener = (): void => {
      waiting.delete(signal);
      for (const callback of callbacks) callback();
    };
    entry = { callbacks, listener };
    waiting.set(signal, entry);
    signal.addEventListener("abort", listener, { once: true });
  }
  const { callbacks, listener } = entry;
  callbacks.add(onAbort);
  return () => {
    callbacks.delete(onAbort);
    if (callbacks.size > 0 || waiting.get(signal) !== entry) return;
    waiting.delete(signal);
    signal.removeEventListener("abort", listener);
  };
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

  constructor(private readonly signal: AbortSignal | undefined) {
    this.done = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(this.signal.reason as Error);
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
