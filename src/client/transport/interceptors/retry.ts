// Attempts: each request is sent again as the retry policy says (`nextStep`: idempotent reads on
// 408/429/5xx and broken connections, writes only when they never left, with jitter and
// `Retry-After`), each attempt within its own time limit. An attempt's answer is held until it
// has ended, so that a body that fails halfway (one that does not decode, a connection cut) can
// still be tried again: the handlers after see only the attempt that counts.
import type { IncomingHttpHeaders } from "node:http";
import { classifyFailure, type Failure } from "../failure";
import { retryAfterMs, sleep } from "../retry";
import { nextStep } from "../retry-policy";
import type { AttemptNotes, Controller, Dispatch, DispatchOptions, Handler, Interceptor } from "./forward";

export type { AttemptNotes } from "./forward";

/** The code of the error a request ends with when its last attempt failed without an answer. */
export const GAVE_UP_CODE = "MATFRAME_ATTEMPTS_FAILED";

/** The error the last failed attempt is reported with: its failure, classified. */
export type GaveUp = Error & { code: typeof GAVE_UP_CODE; failure: Failure };

export interface RetrySettings {
  maxRetries: number;
  /** Each attempt's time limit, in ms (the client's `timeout`). */
  timeoutMs: number;
  /**
   * Attempts given up on while undici still holds them (timed out before a connection, say:
   * undici looks at an abort only once a request has one). The pool's owner destroys the pool
   * rather than wait for them when it closes.
   */
  abandoned: Set<Promise<unknown>>;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Sends each request until it succeeds or `nextStep` says to stop. */
export function retry(settings: RetrySettings): Interceptor {
  return (dispatch) => (options, handler) => {
    new Run(dispatch, options, handler, settings).start();
    return true;
  };
}

/** One request's attempts. */
class Run {
  readonly #notes: AttemptNotes;
  #attempt = 0;
  #timeouts = 0;
  #current: Attempt | undefined;
  #waiting: AbortController | undefined;
  #done = false;
  /** What the handlers after hold to abort the request, whichever attempt is under way. */
  readonly #controller: Controller;

  constructor(
    private readonly dispatch: Dispatch,
    private readonly options: DispatchOptions,
    private readonly next: Handler,
    private readonly settings: RetrySettings,
  ) {
    this.#notes = options.matframe?.attempts ?? {};
    this.#controller = new RunController((why) => this.#abort(why));
  }

  start(): void {
    this.next.onRequestStart?.(this.#controller, {});
    // Aborted before the first attempt (the caller's signal had already fired): none is sent.
    if (this.#controller.aborted) this.#giveUp({ kind: "aborted", cause: this.#controller.reason });
    else this.#send();
  }

  #send(): void {
    const attempt = new Attempt(this);
    this.#current = attempt;
    this.#notes.attempts = ++this.#attempt;
    attempt.timer = setTimeout(() => {
      attempt.timeout.abort(new DOMException("The attempt timed out", "TimeoutError"));
      this.#drop(attempt, attempt.timeout.signal.reason as Error);
    }, this.settings.timeoutMs);
    try {
      this.dispatch(this.options, attempt);
    } catch (error) {
      attempt.onResponseError(undefined, error as Error);
    }
    this.#notes.onAttempt?.(this.#attempt);
  }

  /** The caller aborted (through the handlers after): the attempt or the wait ends now. */
  #abort(reason: Error): void {
    if (this.#done) return;
    this.#waiting?.abort(reason);
    if (this.#current) this.#drop(this.#current, reason);
  }

  /** Gives up on an attempt undici may still hold: its late events are ignored. */
  #drop(attempt: Attempt, reason: Error): void {
    if (attempt.dropped) return;
    attempt.dropped = true;
    attempt.controller?.abort(reason);
    this.settings.abandoned.add(attempt.settled);
    void attempt.settled.finally(() => this.settings.abandoned.delete(attempt.settled));
    this.failed(attempt, reason);
  }

  /** An attempt ended with an answer: handed on, or tried again (a 503, say). */
  answered(attempt: Attempt, trailers: IncomingHttpHeaders): void {
    clearTimeout(attempt.timer);
    if (attempt.status < 200 || attempt.status >= 300) {
      const wait = retryAfterMs(attempt.headers);
      const step = this.#step({ status: attempt.status, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
      if (step.action === "retry") return void this.#wait(step.delayMs);
    }
    this.#finish();
    const c = this.#controller;
    this.next.onResponseStart?.(c, attempt.status, attempt.headers, attempt.message);
    for (const chunk of attempt.chunks) this.next.onResponseData?.(c, chunk);
    this.next.onResponseEnd?.(c, trailers);
  }

  /** An attempt ended without an answer (or with one cut short): tried again, or reported. */
  failed(attempt: Attempt, error: Error): void {
    clearTimeout(attempt.timer);
    if (this.#done) return;
    const failure = classifyFailure(error, this.#notes.signal, attempt.timeout.signal, attempt.answered);
    if (failure.kind === "timeout") this.#timeouts++;
    const step = this.#step({ failure });
    if (step.action === "retry") return void this.#wait(step.delayMs);
    this.#giveUp(failure);
  }

  #step(outcome: Parameters<typeof nextStep>[0]["outcome"]) {
    if (this.#controller.aborted) return { action: "fail" } as const;
    return nextStep({
      method: this.options.method as Method,
      login: this.options.matframe?.login,
      attempt: this.#attempt,
      maxRetries: this.#notes.once ? 0 : this.settings.maxRetries,
      timeouts: this.#timeouts,
      outcome,
    });
  }

  async #wait(ms: number): Promise<void> {
    this.#current = undefined;
    const waiting = new AbortController();
    this.#waiting = waiting;
    try {
      await sleep(ms, waiting.signal);
    } catch (cause) {
      return this.#giveUp({ kind: "aborted", cause });
    } finally {
      this.#waiting = undefined;
    }
    this.#send();
  }

  #giveUp(failure: Failure): void {
    this.#finish();
    const error = Object.assign(new Error(`gave up after ${this.#attempt} attempt(s): ${failure.kind}`), {
      code: GAVE_UP_CODE,
      failure,
    });
    this.next.onResponseError?.(this.#controller, error);
  }

  #finish(): void {
    this.#done = true;
    this.#current = undefined;
  }
}

/** One attempt's answer, held until it ends. */
class Attempt implements Handler {
  controller: Controller | undefined;
  readonly timeout = new AbortController();
  timer: ReturnType<typeof setTimeout> | undefined;
  dropped = false;
  answered = false;
  status = 0;
  headers: IncomingHttpHeaders = {};
  message: string | undefined;
  chunks: Buffer[] = [];
  readonly settled: Promise<void>;
  #settle!: () => void;

  constructor(private readonly run: Run) {
    this.settled = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    if (this.dropped) controller.abort(new Error("attempt given up"));
  }

  onResponseStart(_c: Controller, status: number, headers: IncomingHttpHeaders, message?: string): void {
    if (this.dropped) return;
    this.answered = true;
    this.status = status;
    this.headers = headers;
    this.message = message;
  }

  onResponseData(_c: Controller, chunk: Buffer): void {
    if (!this.dropped) this.chunks.push(chunk);
  }

  onResponseEnd(_c: Controller, trailers: IncomingHttpHeaders): void {
    this.#settle();
    if (!this.dropped) this.run.answered(this, trailers);
  }

  onResponseError(_c: Controller | undefined, error: Error): void {
    this.#settle();
    this.chunks = [];
    if (!this.dropped) this.run.failed(this, error);
  }
}

/**
 * The controller the handlers after hold: an abort ends whichever attempt or wait is under way.
 * A class, not an object literal with getters: one is made per request, on the hot path.
 */
class RunController implements Controller {
  reason: Error | null = null;

  constructor(private readonly onAbort: (reason: Error) => void) {}

  get aborted(): boolean {
    return this.reason !== null;
  }

  get paused(): boolean {
    return false;
  }

  abort(reason: Error): void {
    this.reason ??= reason;
    this.onAbort(reason);
  }

  pause(): void {}

  resume(): void {}
}
