import { MaterialStore, type StoredRecord } from "../records/store";
import type { Collection } from "./collection";

/**
 * `properties`: the results of jobs, one record per (job, unit, property), linked by
 * `source.info.jobId` and `source.info.unitId` (the unit's `flowchartId`); the public reference
 * results and those of the caller's own jobs. Jobs write them; users only read them.
 */
export function propertyCollection(reference: readonly StoredRecord[], scanBudgetMs?: number): Collection {
  return {
    name: "properties",
    noun: "property",
    served: new MaterialStore(reference, { scanBudgetMs }),
    writable: false,
    ownRecords: "properties",
  };
}

/**
 * `metaproperties`: properties that describe how results were computed rather than a material
 * (pseudopotentials, for one). The local platform has no such data to serve, so it lists none;
 * users only read them.
 */
export function metapropertyCollection(): Collection {
  return {
    name: "metaproperties",
    noun: "metaproperty",
    served: new MaterialStore([]),
    writable: false,
    ownRecords: null,
  };
}
