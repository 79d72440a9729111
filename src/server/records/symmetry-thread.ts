// The space groups of written structures, found off the event loop. moyo's search is fast for most
// structures (a few milliseconds) but grows steeply with the atoms of a highly symmetric supercell
// (a 512-atom silicon supercell: about 4 s; a 400-atom grid: about 17 s), and it runs as one
// synchronous WebAssembly call that nothing can interrupt on the thread that made it. So the local
// platform runs it in a worker thread, one search at a time, and gives each search a time budget:
// past it the worker is terminated (the only way to stop the call), the record is stored without a
// `symmetry` entry, and the next search starts a fresh worker. Which operations hold is decided
// first, on this thread, by the same tolerance rules as `symmetryOf` (spglib's, pymatgen's defaults;
// it gives up past the same budget); the worker's moyo then names the group of the structure made
// exactly symmetric under them.
//
// Waiting searches are taken in turn across accounts (start-time fair queuing with one unit a
// search), not first come first served: an account that sends many expensive structures at once
// waits behind itself, and another account's search waits for at most the one running plus one
// search of each other account waiting. Waiting work is capped per account and in all; past a cap
// the write is refused (503 with Retry-After) instead of queueing without end.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { MatframeError, StructureError } from "../../errors";
import type { StructureRecord } from "../../structure";
import { SearchTimeout } from "../../structure/operations/search";
import {
  DEFAULT_ANGLE_TOLERANCE,
  DEFAULT_SYMPREC,
  latticeTypeOfHall,
  moyoInput,
  spaceGroupSymbolOfHall,
} from "../../structure/symmetry";

/**
 * Most atoms whose operations are decided on the server's own thread by spglib's tolerance rules
 * (about a millisecond here). Larger cells go to moyo in the worker as they are, judged by moyo's own
 * tolerance handling, so that no search holds up other requests.
 */
export const MAIN_THREAD_ATOMS = 64;

/** Default time one space-group search may take before the record is stored without it. */
export const SYMMETRY_BUDGET_MS = 2_000;

// Plain JavaScript, so the worker runs the same from the build and from the test sources.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
const moyo = require(workerData.module);
moyo.initSync({ module: readFileSync(workerData.wasm) });
const answers = workerData.answers;
parentPort.on("message", ({ json, symprec }) => {
  answers.postMessage({ started: true });
  try {
    answers.postMessage({ hall: moyo.analyze_cell(json, symprec, "Spglib").hall_number });
  } catch (error) {
    answers.postMessage({ error: String(error) });
  }
});
`;

/**
 * Time a fresh worker may take to load moyo before its first search starts; the search's budget
 * counts from then, so a short budget is not spent on starting the worker after a stopped search.
 */
const WORKER_START_MS = 10_000;

/**
 * Searches one account may have waiting; more are refused (the client retries later). A script
 * that imports a folder with every request at once stays under it; a flood does not.
 */
export const MAX_WAITING_PER_ACCOUNT = 64;
/** Searches all accounts may have waiting together. */
export const MAX_WAITING = 512;

/** The caps of {@link SymmetryThread}, for tests and the options. */
export interface SymmetryLimits {
  /** @default 2000 */
  budgetMs?: number;
  /** @default 64 */
  maxWaitingPerAccount?: number;
  /** @default 512 */
  maxWaiting?: number;
}

/**
 * Too much symmetry work is waiting: thrown by `SymmetryThread.find` and answered by the write
 * handler with 503 and `retryAfterSeconds`.
 */
export class SymmetryQueueFull extends MatframeError {
  override readonly code: string = "ERR_SYMMETRY_QUEUE_FULL";
  override readonly name: string = "SymmetryQueueFull";

  constructor(
    /** Whose cap was reached: the caller's own, or the server's in all. */
    readonly whose: "account" | "server",
    readonly retryAfterSeconds: number,
  ) {
    super(`The symmetry search queue of the ${whose} is full; retry in ${retryAfterSeconds} s.`);
  }
}

/** A worker and the port it answers on (read synchronously when the budget runs out). */
interface SearchWorker {
  worker: Worker;
  answers: MessagePort;
}

interface Answer {
  started?: true;
  hall?: number;
  error?: string;
}

/** What a written structure's symmetry gives its record: the space group's symbol and the lattice type. */
export interface FoundSymmetry {
  /** pymatgen's spelling, e.g. `"P6_3mc"`. */
  spaceGroupSymbol: string;
  /** The platform's lattice type of the Bravais lattice, e.g. `"HEX"`. */
  latticeType: string;
}

interface Search {
  json: string;
  exactSymprec: number;
  resolve(found: FoundSymmetry | null): void;
}

/** One account's waiting searches and its place in the rotation. */
interface AccountQueue {
  searches: Search[];
  /** Virtual start of its next search: the account with the lowest goes next. */
  next: number;
}

/** One worker thread that finds space groups in turn across accounts, each within a time budget. */
export class SymmetryThread {
  readonly #budgetMs: number;
  readonly #maxWaitingPerAccount: number;
  readonly #maxWaiting: number;
  /** Accounts with searches waiting, in the order they started waiting (ties go to the earlier). */
  readonly #waiting = new Map<string, AccountQueue>();
  #waitingCount = 0;
  /** Virtual start of the search running (or last run): an account that starts waiting joins here. */
  #virtual = 0;
  /** Recent searches' mean duration (ms), for the `Retry-After` of a refused one. */
  #meanMs = 50;
  #worker: SearchWorker | undefined;
  #busy = false;
  /** Ends the running search with no answer (on close). */
  #abandon: (() => void) | undefined;
  #closed = false;

  constructor(limits: SymmetryLimits | number = {}) {
    const given = typeof limits === "number" ? { budgetMs: limits } : limits;
    this.#budgetMs = given.budgetMs ?? SYMMETRY_BUDGET_MS;
    this.#maxWaitingPerAccount = given.maxWaitingPerAccount ?? MAX_WAITING_PER_ACCOUNT;
    this.#maxWaiting = given.maxWaiting ?? MAX_WAITING;
  }

  /** Searches waiting (not the one running). */
  get waiting(): number {
    return this.#waitingCount;
  }

  /**
   * The space group's symbol (pymatgen's spelling) and lattice type of a structure, or null when it
   * has none at the default tolerances, is no structure, or took longer than the budget. `account`
   * is whose turn it takes. Throws {@link SymmetryQueueFull} when that account, or the server, has
   * too much waiting.
   */
  symmetryOf(record: StructureRecord, account: string): Promise<FoundSymmetry | null> {
    if (this.#closed) return Promise.resolve(null);
    let json: string;
    let exactSymprec: number;
    try {
      const small = Array.isArray(record.basis?.elements) && record.basis.elements.length <= MAIN_THREAD_ATOMS;
      const input = moyoInput(record, {
        symprec: DEFAULT_SYMPREC,
        angleTolerance: DEFAULT_ANGLE_TOLERANCE,
        deadline: Date.now() + this.#budgetMs,
        search: small,
      });
      json = input.json();
      exactSymprec = input.exactSymprec;
    } catch (error) {
      if (error instanceof StructureError || error instanceof RangeError || error instanceof SearchTimeout)
        return Promise.resolve(null);
      throw error;
    }
    const queue = this.#waiting.get(account);
    const own = queue?.searches.length ?? 0;
    if (own >= this.#maxWaitingPerAccount) throw new SymmetryQueueFull("account", this.#retryAfter(own));
    if (this.#waitingCount >= this.#maxWaiting)
      throw new SymmetryQueueFull("server", this.#retryAfter(this.#waitingCount));
    return new Promise((resolve) => {
      if (queue) queue.searches.push({ json, exactSymprec, resolve });
      else this.#waiting.set(account, { searches: [{ json, exactSymprec, resolve }], next: this.#virtual });
      this.#waitingCount += 1;
      this.#next();
    });
  }

  /** Stops the worker; searches not started yet answer null. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const queue of this.#waiting.values()) for (const search of queue.searches) search.resolve(null);
    this.#waiting.clear();
    this.#waitingCount = 0;
    this.#abandon?.();
    this.#worker?.answers.close();
    await this.#worker?.worker.terminate();
    this.#worker = undefined;
  }

  /** Seconds after which `searches` waiting searches are likely done, at the recent pace. */
  #retryAfter(searches: number): number {
    return Math.max(1, Math.ceil((searches * this.#meanMs) / 1000));
  }

  /** The next search in fair order: the waiting account with the lowest virtual start. */
  #take(): Search | undefined {
    let chosen: [string, AccountQueue] | undefined;
    for (const entry of this.#waiting) if (!chosen || entry[1].next < chosen[1].next) chosen = entry;
    if (!chosen) return undefined;
    const [account, queue] = chosen;
    const search = queue.searches.shift()!;
    this.#waitingCount -= 1;
    this.#virtual = queue.next;
    queue.next += 1;
    if (queue.searches.length === 0) this.#waiting.delete(account);
    return search;
  }

  #start(): SearchWorker {
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        module: require.resolve("@spglib/moyo-wasm"),
        wasm: require.resolve("@spglib/moyo-wasm/moyo_wasm_bg.wasm"),
        answers: port2,
      },
      transferList: [port2],
    });
    worker.unref();
    port1.unref();
    return { worker, answers: port1 };
  }

  #next(): void {
    if (this.#busy || this.#closed) return;
    const search = this.#take();
    if (!search) return;
    this.#busy = true;
    const { worker, answers } = (this.#worker ??= this.#start());
    const started = performance.now();
    const found = (hall: number | undefined): FoundSymmetry | null =>
      hall === undefined
        ? null
        : { spaceGroupSymbol: spaceGroupSymbolOfHall(hall), latticeType: latticeTypeOfHall(hall) };
    const finish = (result: FoundSymmetry | null) => {
      clearTimeout(timer);
      this.#meanMs = 0.8 * this.#meanMs + 0.2 * (performance.now() - started);
      answers.off("message", onAnswer);
      worker.off("error", onError);
      this.#busy = false;
      this.#abandon = undefined;
      search.resolve(result);
      this.#next();
    };
    const onAnswer = (answer: Answer) => {
      if (answer.started) {
        clearTimeout(timer);
        timer = setTimeout(onBudgetSpent, this.#budgetMs);
        return;
      }
      finish(found(answer.hall));
    };
    const onError = () => {
      this.#worker = undefined;
      answers.close();
      finish(null);
    };
    const onBudgetSpent = () => {
      // A busy event loop may run this timer after the answer arrived: an answer waiting counts.
      for (let queued = receiveMessageOnPort(answers); queued; queued = receiveMessageOnPort(answers)) {
        const answer = queued.message as Answer;
        if (!answer.started) {
          finish(found(answer.hall));
          return;
        }
      }
      this.#worker = undefined;
      answers.close();
      void worker.terminate();
      finish(null);
    };
    let timer = setTimeout(onBudgetSpent, this.#budgetMs + WORKER_START_MS);
    this.#abandon = () => finish(null);
    answers.on("message", onAnswer);
    worker.on("error", onError);
    worker.postMessage({ json: search.json, symprec: search.exactSymprec });
  }
}
