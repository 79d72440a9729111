import { MaterialStore, type StoredRecord } from "../records/store";
import { PLAIN_COLLECTION, type Collection } from "./collection";

/**
 * `materials` as a collection: the served materials (bundled, `--data`, synthetic) and each
 * account's own, with the rules the material handlers apply; sets and defaults use it.
 */
export function materialCollection(served: MaterialStore): Collection {
  // Creates, updates, deletes, copies and imports are answered by the material handlers (write-handlers.ts).
  return {
    ...PLAIN_COLLECTION,
    name: "materials",
    noun: "material",
    served,
    writable: true,
    ownRecords: "materials",
    copyTo: "materials",
    sets: true,
    defaults: true,
    entityClass: "Material",
  };
}

/**
 * `bank-materials`: every public material, read and copied into an account: the served
 * materials and the reference results' materials (the Materials Project structures the
 * reference jobs computed), which `GET /materials` does not list.
 */
export function bankMaterialCollection(
  served: MaterialStore,
  reference: readonly StoredRecord[],
  scanBudgetMs?: number,
): Collection {
  // Both runs already in _id order: the store's sort merges them in one pass (100,000 synthetic
  // materials would otherwise be sorted again).
  const records: StoredRecord[] = [];
  for (let i = 0; i < served.size; i += 1) records.push(served.at(i)!);
  records.push(
    ...reference
      .filter((record) => !served.get(record._id))
      .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)),
  );
  return {
    ...PLAIN_COLLECTION,
    name: "bank-materials",
    noun: "bank material",
    served: new MaterialStore(records, { scanBudgetMs }),
    writable: false,
    ownRecords: null,
    copyTo: "materials",
  };
}
