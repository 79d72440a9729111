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
import { Worker } from "node:worker_threads";
import { StructureError } from "../../errors";
import type { StructureRecord } from "../../structure";
import { SearchTimeout } from "../../structure/operations/search";
import { DEFAULT_ANGLE_TOLERANCE, DEFAULT_SYMPREC, latticeTypeOfHall, moyoInput, spaceGroupSymbolOfHall } from "../../structure/symmetry";

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
parentPort.on("message", ({ json, symprec }) => {
  try {
    parentPort.postMessage({ hall: moyo.analyze_cell(json, symprec, "Spglib").hall_number });
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
});
`;

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

/** One worker thread that finds space groups in turn, each within a time budget. */
export class SymmetryThread {
  readonly #budgetMs: number;
  readonly #queue: Search[] = [];
  #worker: Worker | undefined;
  #busy = false;
  #closed = false;

  constructor(budgetMs = SYMMETRY_BUDGET_MS) {
    this.#budgetMs = budgetMs;
  }

  /**
   * The space group's symbol (pymatgen's spelling) and lattice type of a structure, or null when it
   * has none at the default tolerances, is no structure, or took longer than the budget.
   */
  symmetryOf(record: StructureRecord): Promise<FoundSymmetry | null> {
    if (this.#closed) return Promise.resolve(null);
    let input: { json: string; exactSymprec: number };
    try {
      const small = Array.isArray(record.basis?.elements) && record.basis.elements.length <= MAIN_THREAD_ATOMS;
      input = moyoInput(record, { symprec: DEFAULT_SYMPREC, angleTolerance: DEFAULT_ANGLE_TOLERANCE, deadline: Date.now() + this.#budgetMs, search: small });
    } catch (error) {
      if (error instanceof StructureError || error instanceof RangeError || error instanceof SearchTimeout) return Promise.resolve(null);
      throw error;
    }
    return new Promise((resolve) => {
      this.#queue.push({ json: input.json, exactSymprec: input.exactSymprec, resolve });
      this.#next();
    });
  }

  /** Stops the worker; searches not started yet answer null. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const search of this.#queue.splice(0)) search.resolve(null);
    await this.#worker?.terminate();
    this.#worker = undefined;
  }

  #start(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { module: require.resolve("@spglib/moyo-wasm"), wasm: require.resolve("@spglib/moyo-wasm/moyo_wasm_bg.wasm") },
    });
    worker.unref();
    return worker;
  }

  #next(): void {
    if (this.#busy || this.#closed) return;
    const search = this.#queue.shift();
    if (!search) return;
    this.#busy = true;
    const worker = (this.#worker ??= this.#start());
    const finish = (found: FoundSymmetry | null) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("error", onError);
      this.#busy = false;
      search.resolve(found);
      this.#next();
    };
    const onMessage = (answer: { hall?: number; error?: string }) => finish(answer.hall === undefined ? null : { spaceGroupSymbol: spaceGroupSymbolOfHall(answer.hall), latticeType: latticeTypeOfHall(answer.hall) });
    const onError = () => {
      this.#worker = undefined;
      finish(null);
    };
    const timer = setTimeout(() => {
      this.#worker = undefined;
      void worker.terminate();
      finish(null);
    }, this.#budgetMs);
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.postMessage({ json: search.json, symprec: search.exactSymprec });
  }
}
