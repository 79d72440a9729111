// The pieces every interceptor of the transport shares: what a request tells them beyond HTTP,
// and a handler that passes every event on, which each interceptor extends with the events it
// changes. undici's own `DecoratorHandler` is deprecated in undici 7, so this is ours.
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";

/** What a request tells the retry interceptor (`interceptors/retry.ts`), and what it is told back. */
export interface AttemptNotes {
  /** The caller's signal, whose abort is told apart from an attempt's timeout. */
  signal?: AbortSignal;
  /** Sent once, never again (a revalidation, a measurement). */
  once?: boolean;
  /** Told as each attempt has gone out (1 for the first). */
  onAttempt?: (attempt: number) => void;
  /** Set by the interceptor: the attempts made so far. */
  attempts?: number;
}

/** What one request tells the interceptors, beside its HTTP fields (undici passes unknown fields on). */
export interface RequestNotes {
  /** A login: its answer waits for the password hash, so it says nothing of the link. */
  login?: boolean;
  /** Whose answer this is (the account id): a GET with a scope may be kept and revalidated. */
  cacheScope?: string;
  /** Told once a 2xx (or 304) answer's bytes are all in, before they are decoded and parsed. */
  onReceived?: () => void;
  /** For the retry interceptor: the caller's signal, a request sent once, attempts told back. */
  attempts?: AttemptNotes;
}

/** The dispatch options of the transport's requests. */
export type DispatchOptions = Dispatcher.DispatchOptions & { matframe?: RequestNotes };
/** One step of the chain: undici's `Dispatcher.dispatch` as an interceptor sees it. */
export type Dispatch = (options: DispatchOptions, handler: Dispatcher.DispatchHandler) => boolean;
/** An interceptor for `Dispatcher.compose`. */
export type Interceptor = (dispatch: Dispatch) => Dispatch;
export type Controller = Dispatcher.DispatchController;
export type Handler = Dispatcher.DispatchHandler;

/** Passes every event to `next`; subclasses override the ones they change. */
export class Forward implements Handler {
  constructor(protected readonly next: Handler) {}

  onRequestStart(controller: Controller, context: unknown): void {
    this.next.onRequestStart?.(controller, context);
  }

  onResponseStart(controller: Controller, status: number, headers: IncomingHttpHeaders, message?: string): void {
    this.next.onResponseStart?.(controller, status, headers, message);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.next.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Controller, trailers: IncomingHttpHeaders): void {
    this.next.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Controller, error: Error): void {
    this.next.onResponseError?.(controller, error);
  }
}

/** Whether a status is a success whose body is the answer (the others carry an error message). */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** One header's value as a string (the first of several). */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
