// Where a Parquet export's row groups are encoded: in the export's own thread, or in a worker
// thread so that the walk (fetching, parsing and reading the next row group) overlaps the encoding
// of the previous one. The export is bound by its one JavaScript thread (README, "Parquet and
// Arrow"); the encoding is about a third of that thread's work.
//
// One worker serves every Parquet export of the process at once (a partitioned export's parts
// included): the parts' walks share one main thread, which produces row groups more slowly than
// one worker encodes them, so a second worker would only add its start-up and memory. It starts
// with the first export that asks for it and is stopped when the last one ends, however it ends.
import { existsSync } from "node:fs";
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import type { TypedCell } from "./column-types";
import { ParquetEncoder, type EncoderSetup, type SavedParquetWriter } from "./parquet-encoder";

/** A request to the worker, for the encoder `id`. */
export type EncoderRequest =
  | { readonly op: "open"; readonly id: number; readonly setup: EncoderSetup }
  | { readonly op: "group"; readonly id: number; readonly columns: TypedCell[][]; readonly snapshot: boolean }
  | { readonly op: "finish"; readonly id: number };

/** The worker's answer to one request: bytes to append, the writer's state, or an error. */
export interface EncoderReply {
  readonly id: number;
  readonly bytes?: Uint8Array;
  readonly state?: SavedParquetWriter;
  readonly error?: { readonly name: string; readonly message: string; readonly stack?: string };
}

/** One file's encoder as writeParquet drives it; the results come in the order of the calls. */
export interface GroupEncoder {
  /** Encodes a row group; with `snapshot`, also returns the writer's state after it. */
  group(columns: TypedCell[][], snapshot: boolean): Promise<{ bytes: Uint8Array; state?: SavedParquetWriter }>;
  /** The footer's bytes. */
  finish(): Promise<Uint8Array>;
  /** Frees the encoder (and stops the worker when no other export uses it). */
  close(): void;
}

/** An encoder in the calling thread. */
export function threadEncoder(setup: EncoderSetup): GroupEncoder {
  const encoder = new ParquetEncoder(setup);
  return {
    group: async (columns, snapshot) => {
      const bytes = encoder.group(columns);
      return { bytes, ...(snapshot ? { state: encoder.snapshot() } : {}) };
    },
    finish: async () => encoder.finish(),
    close: () => undefined,
  };
}

// The compiled worker (dist/frame/parquet-worker.js). Running from TypeScript sources (vitest),
// there is none beside this module, and writeParquet encodes in its own thread.
const WORKER_FILE = path.join(__dirname, "parquet-worker.js");
let workerFileFound: boolean | undefined;

/** Whether the compiled worker file is beside this module. */
export function workerAvailable(): boolean {
  return (workerFileFound ??= existsSync(WORKER_FILE));
}

interface Waiter {
  resolve(reply: EncoderReply): void;
  reject(error: unknown): void;
}

class SharedWorker {
  readonly worker = new Worker(WORKER_FILE);
  users = 0;
  private nextId = 0;
  private stopped = false;
  // Each encoder's requests in the order they were sent; the worker answers in that order.
  private readonly waiting = new Map<number, Waiter[]>();

  constructor(private readonly onGone: () => void) {
    // An export still running keeps the process alive through its walk; the worker must not.
    this.worker.unref();
    this.worker.on("message", (reply: EncoderReply) => this.waiting.get(reply.id)?.shift()?.resolve(reply));
    this.worker.on("error", (error) => this.fail(error));
    this.worker.on("exit", (code) => this.fail(new Error(`the Parquet encoding worker stopped (exit code ${code})`)));
  }

  hold(): () => void {
    this.users++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.users === 0) this.stop();
    };
  }

  open(setup: EncoderSetup): GroupEncoder {
    const id = this.nextId++;
    this.users++;
    this.waiting.set(id, []);
    const opened = this.request({ op: "open", id, setup });
    opened.catch(() => undefined);
    let closed = false;
    return {
      group: async (columns, snapshot) => {
        await opened;
        const reply = await this.request({ op: "group", id, columns, snapshot });
        return { bytes: reply.bytes!, ...(reply.state ? { state: reply.state } : {}) };
      },
      finish: async () => {
        await opened;
        return (await this.request({ op: "finish", id })).bytes!;
      },
      close: () => {
        if (closed) return;
        closed = true;
        this.waiting.delete(id);
        if (--this.users === 0) this.stop();
        else this.worker.postMessage({ op: "close", id });
      },
    };
  }

  private request(request: EncoderRequest): Promise<EncoderReply> {
    return new Promise<EncoderReply>((resolve, reject) => {
      const queue = this.waiting.get(request.id);
      if (this.stopped || !queue) return reject(new Error("the Parquet encoding worker has stopped"));
      queue.push({
        resolve: (reply) => (reply.error ? reject(rebuildError(reply.error)) : resolve(reply)),
        reject,
      });
      this.worker.postMessage(request);
    });
  }

  private stop(): void {
    this.stopped = true;
    this.onGone();
    void this.worker.terminate();
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onGone();
    for (const queue of this.waiting.values()) for (const waiter of queue.splice(0)) waiter.reject(error);
    void this.worker.terminate();
  }
}

let shared: SharedWorker | undefined;

function sharedWorker(): SharedWorker {
  if (!shared) {
    const worker: SharedWorker = new SharedWorker(() => {
      if (shared === worker) shared = undefined;
    });
    shared = worker;
  }
  return shared;
}

/** An encoder in the process's shared worker, started if none runs. */
export function workerEncoder(setup: EncoderSetup): GroupEncoder {
  return sharedWorker().open(setup);
}

/**
 * Starts the shared worker ahead of its first row group (its start-up and first, unoptimised
 * group would otherwise hold up the walk); the returned function lets it go.
 */
export function warmWorker(): () => void {
  return sharedWorker().hold();
}

/** How many workers are running now (for tests: none once every export has ended). */
export function runningWorkers(): number {
  return shared ? 1 : 0;
}

function rebuildError(error: NonNullable<EncoderReply["error"]>): Error {
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  if (error.stack) rebuilt.stack = error.stack;
  return rebuilt;
}
