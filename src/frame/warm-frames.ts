// For entries whose users always build tables (`matframe/notebook`): what a first table pays on
// top of later ones, paid when the entry is imported instead. A fresh process's first
// `results.toDataFrame` took 1.5-2 times its second against a warm server: the frame's modules
// were loaded and its code run for the first time inside the call (docs/performance.md, "The
// first call").
import { planColumns } from "./table/column-spec";
import { preloadDanfo } from "./dataframe/danfo";
import { recordsToFrame } from "./dataframe/to-dataframe";
// The modules a first results table and a first collection table load on demand (the root entry
// leaves them to their first call): loaded with this entry.
import * as results from "./results/index";
import { resultsLoaded } from "./results/results-view";
import "./collection-reads";

/**
 * Two records made here for this only, shaped as the platform's (nested paths, a missing value,
 * a method): the table is built and dropped, never shown.
 */
const RECORDS = [
  {
    _id: "warm-1",
    formula: "Si",
    lattice: { a: 3.867, type: "FCC" },
    derivedProperties: { density: 2.3 },
    method: { type: "pseudopotential", subtype: "us" },
    tags: ["a"],
  },
  { _id: "warm-2", formula: "C", lattice: { a: 2.5 }, derivedProperties: { density: null }, tags: [] },
];
const COLUMNS = ["_id", "formula", "lattice.a", "lattice.type", "derivedProperties.density", "method", "tags"];

/**
 * Loads danfojs-node, and builds one small table through
 * the same builder, so that danfo's constructor and the table code have run once. Takes 10-30 ms
 * of a process's start; does nothing without danfo,
 * whose absence the first `toDataFrame` reports with its hint.
 * @returns whether danfojs-node is loaded.
 */
export function warmFrames(): boolean {
  resultsLoaded(results);
  if (!preloadDanfo()) return false;
  // An array is built at once (no await before the table): the work is done when this returns.
  void recordsToFrame(RECORDS, planColumns(COLUMNS), { onWarning: () => {} }).catch(() => undefined);
  return true;
}
