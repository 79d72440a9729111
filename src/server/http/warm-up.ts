import type { RecordProjection, SerializedRecords } from "./serialized";

/** What the request warm-up did, once it ended. */
export interface RequestWarmUpReport {
  /** Requests sent. */
  requests: number;
  /** Of those, answered with 200 (the others' paths did not read what they meant to). */
  answered: number;
  /** Milliseconds from its first request to its end. */
  ms: number;
  /** Why it ended: every request sent, a client's request came, its time bound reached, or the server closing. */
  ended: "done" | "request" | "time" | "closed";
  /** The first read not answered with 200: its path (without the query) and what it got. */
  firstUnanswered?: { path: string; status: number | "failed" };
}

/** What the background warm-up did, once it ended. */
export interface WarmUpReport {
  /** Records serialised (each counted once per projection). */
  records: number;
  /** Of those, for results tables (property records, their jobs and materials; `warmResults`). */
  resultsRecords: number;
  /** Milliseconds of work in slices (not counting the pauses for requests). */
  workMs: number;
  /** Why it ended: all done, the kept-JSON budget spent, its work bound reached, or the server closing. */
  ended: "done" | "budget" | "time" | "closed";
  /** The reads the server sent itself first (src/server/http/request-warm-up.ts), when it did. */
  reads?: RequestWarmUpReport;
}

/** Served records in `_id` order, as the store holds them. */
export interface OrderedRecords {
  readonly size: number;
  at(index: number): Record<string, unknown> | undefined;
}

/** Records to keep the JSON of in one projection (`undefined`: whole records). */
export interface WarmForm {
  readonly source: OrderedRecords;
  readonly projection: RecordProjection | undefined;
  /** What they are for: a walk of the served materials, or a results table's reads. */
  readonly for: "materials" | "results";
}

/** Records per slice: about 1 ms of serialising once warm, 3-10 ms in the very first slices. */
const SLICE_RECORDS = 100;

/**
 * Milliseconds without a request before the warm-up goes on: the requests of one call come a few
 * milliseconds apart, and a slice between them would delay the call's next request (a first
 * `results.toDataFrame` on 100,029 materials took 0.18-0.31 s instead of 0.07 s with the
 * warm-up resuming between requests).
 */
export const WARM_UP_IDLE_MS = 100;

/** Most milliseconds the warm-up works in all: the whole records of 100,029 materials took 1.3 s. */
export const WARM_UP_WORK_MS = 5_000;

/**
 * Serialises the served records in the background after the server listens, so that a first
 * walk finds them kept (SerializedRecords) and costs about what a second does: on 100,029
 * materials, a fresh server's first walk of `toDataFrame()`'s default columns took 4.3-5.9 s of
 * server CPU, 2.3 s once they were kept. Done before listening it would delay the start by
 * seconds; done here it uses the time a user takes to start a client. It works in small slices
 * on `setImmediate`, in `_id` order (the order of a walk), and only once no request has come
 * for a moment: a request waits at most one slice, and a walk that comes early serialises its
 * own pages as it would have without the warm-up (this skips what the walk kept).
 */
export class WarmUp {
  readonly #forms: readonly WarmForm[];
  readonly #serialized: SerializedRecords;
  readonly #maxWorkMs: number;
  #form = 0;
  #next = 0;
  #records = 0;
  #resultsRecords = 0;
  #workMs = 0;
  #answering = 0;
  #scheduled: NodeJS.Immediate | undefined;
  #idle: NodeJS.Timeout | undefined;
  readonly #idleMs: number;
  #ended: WarmUpReport["ended"] | undefined;
  #started = false;
  #finish!: (report: WarmUpReport) => void;
  /** Resolves when the warm-up ends, for whatever reason. */
  readonly ended: Promise<WarmUpReport>;

  /** Keeps the JSON of each form's records, form by form, in their order. */
  constructor(
    forms: readonly WarmForm[],
    serialized: SerializedRecords,
    { maxWorkMs = WARM_UP_WORK_MS, idleMs = WARM_UP_IDLE_MS, start = true } = {},
  ) {
    this.#idleMs = idleMs;
    this.#forms = forms.filter((form) => form.source.size > 0);
    this.#serialized = serialized;
    this.#maxWorkMs = maxWorkMs;
    this.ended = new Promise((resolve) => {
      this.#finish = resolve;
    });
    if (this.#forms.length === 0) this.#end("done");
    else if (start) this.start();
  }

  /**
   * Begins the slices (made with `start: false`, the warm-up counts requests before it works:
   * serve starts it after its own first reads, and a request under way then still holds it).
   */
  start(): void {
    this.#started = true;
    if (this.#answering === 0 && this.#idle === undefined) this.#schedule();
  }

  /** A request is being answered: no slice runs until every such request has ended. */
  requestStarted(): void {
    this.#answering += 1;
    clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  /** A request was answered; the warm-up goes on once none has come for `idleMs`. */
  requestEnded(): void {
    this.#answering -= 1;
    if (this.#answering > 0 || this.#ended !== undefined) return;
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      if (this.#answering === 0) this.#schedule();
    }, this.#idleMs);
  }

  /** Stops the warm-up (the server is closing). */
  stop(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    clearTimeout(this.#idle);
    this.#scheduled = undefined;
    this.#idle = undefined;
    this.#end("closed");
  }

  #schedule(): void {
    if (this.#started && this.#ended === undefined && this.#scheduled === undefined)
      this.#scheduled = setImmediate(() => this.#slice());
  }

  #slice(): void {
    this.#scheduled = undefined;
    // requestEnded schedules the next once requests stop.
    if (this.#ended !== undefined || this.#answering > 0 || this.#idle !== undefined) return;
    if (this.#serialized.full || this.#workMs >= this.#maxWorkMs) {
      this.#end(this.#serialized.full ? "budget" : "time");
      return;
    }
    const started = performance.now();
    const { source, projection, for: use } = this.#forms[this.#form]!;
    const end = Math.min(this.#next + SLICE_RECORDS, source.size);
    const records: Record<string, unknown>[] = [];
    for (let i = this.#next; i < end; i++) {
      const record = source.at(i);
      if (record) records.push(record);
    }
    this.#serialized.keep(records, projection);
    this.#records += records.length;
    if (use === "results") this.#resultsRecords += records.length;
    this.#next = end;
    if (this.#next >= source.size) {
      this.#form += 1;
      this.#next = 0;
    }
    this.#workMs += performance.now() - started;
    if (this.#form >= this.#forms.length) this.#end("done");
    else this.#schedule();
  }

  #end(why: WarmUpReport["ended"]): void {
    if (this.#ended !== undefined) return;
    this.#ended = why;
    this.#finish({ records: this.#records, resultsRecords: this.#resultsRecords, workMs: this.#workMs, ended: why });
  }
}
