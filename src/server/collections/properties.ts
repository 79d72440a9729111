import { statSync } from "node:fs";
import { MaterialStore, type StoredRecord } from "../records/store";
import { PLAIN_COLLECTION, type Collection } from "./collection";
import { pseudopotentialRecords } from "../compute";
import { deterministicId } from "../records/ids";
import { PUBLIC_OWNER } from "../records/owners";

/**
 * `properties`: the results of jobs, one record per (job, unit, property), linked by
 * `source.info.jobId` and `source.info.unitId` (the unit's `flowchartId`); the public reference
 * results and those of the caller's own jobs. Jobs write them; users only read them.
 */
export function propertyCollection(reference: readonly StoredRecord[], scanBudgetMs?: number): Collection {
  return {
    ...PLAIN_COLLECTION,
    name: "properties",
    noun: "property",
    served: new MaterialStore(reference, { scanBudgetMs }),
    writable: false,
    ownRecords: "properties",
    readOnlyHint: "Jobs write properties: submit a job (POST /jobs/<id>/submit).",
  };
}

/**
 * `metaproperties`: properties that describe how results were computed rather than a material.
 * On the local platform they are the pseudopotentials its jobs can run with (ESSE's
 * `methods_directory/physical/psp/file`), public to every account; read from the machine's
 * pseudopotential folders on the first request that lists them, since hashing every file costs
 * more than a server's start. Users only read them.
 */
export function metapropertyCollection(scanBudgetMs?: number): Collection {
  let served: MaterialStore | undefined;
  return {
    ...PLAIN_COLLECTION,
    name: "metaproperties",
    noun: "metaproperty",
    get served(): MaterialStore {
      served ??= new MaterialStore(pseudopotentialMetaproperties(), { scanBudgetMs });
      return served;
    },
    writable: false,
    ownRecords: null,
  };
}

/** The machine's pseudopotentials as public metaproperty records, each with an id that does not change between runs. */
function pseudopotentialMetaproperties(): StoredRecord[] {
  return pseudopotentialRecords().map((record) => {
    const data = record.data as { path: string };
    return {
      _id: deterministicId(`metaproperty:pseudopotential:${data.path}`),
      ...record,
      owner: { ...PUBLIC_OWNER },
      // The file's own date: when the package that brought it was built.
      createdAt: statSync(data.path).mtime.toISOString(),
    };
  });
}
