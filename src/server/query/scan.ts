import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { badRequest } from "../http/http-errors";

/** How long one slice of a scan may hold the event loop before other requests get a turn. */
const SLICE_MS = 10;

/**
 * CPU time one request may spend scanning. A query that needs more (a slow regex over a big
 * collection) is refused with 400 rather than starving everyone else.
 */
export const DEFAULT_SCAN_BUDGET_MS = 5_000;

/**
 * Counts the time a request spends scanning and stops it when its budget is spent; also counts
 * the records its query judged, which the store reports (see `FIND_CHANNEL`).
 */
export class ScanBudget {
  private spentMs = 0;
  /** Records judged by the query so far. */
  judged = 0;

  constructor(private readonly limitMs: number = DEFAULT_SCAN_BUDGET_MS) {}

  spend(ms: number): void {
    this.spentMs += ms;
    if (this.spentMs > this.limitMs) {
      throw badRequest(
        `The query took more than ${this.limitMs} ms to evaluate; make it more selective or simplify its regular expressions.`,
      );
    }
  }
}

/**
 * Visits indices `from` (inclusive) to `to` (exclusive), ascending or descending, until `visit`
 * returns false. Yields to the event loop every few milliseconds so that one long scan does not
 * block other clients.
 */
export async function scanRange(
  from: number,
  to: number,
  visit: (index: number) => boolean,
  budget: ScanBudget,
): Promise<void> {
  const step = from <= to ? 1 : -1;
  let index = from;
  while (index !== to) {
    const sliceStart = performance.now();
    let keepGoing = true;
    for (let n = 1; index !== to; n += 1) {
      keepGoing = visit(index);
      index += step;
      // Checked every 8 records: one record may take a few ms (a costly but allowed $regex).
      if (!keepGoing || ((n & 7) === 0 && performance.now() - sliceStart > SLICE_MS)) break;
    }
    budget.spend(performance.now() - sliceStart);
    if (!keepGoing) return;
    if (index !== to) await yieldToEventLoop();
  }
}
