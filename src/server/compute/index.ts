// The engine room's one door: running a job's workflow for real on this machine (Quantum ESPRESSO
// first). Nothing here knows HTTP or the store: the queue (src/server/collections) calls these with
// plain records and a folder, and turns the outcome into job status, property records and files.

export type { ComputedFile, ComputedProperty, ComputeJobInput, ComputeOutcome, UnitReport } from "./compute-types";
export { computability, computeJob, filesLeftIn } from "./run-job";
export { pseudopotentialRecords } from "./pseudopotentials";
export { type UnitStatus, withUnitStatus, withUnitsEnded, withUnitsIdle } from "./unit-status";
