import { MaterialStore, type StoredRecord } from "../records/store";
import type { Collection } from "./collection";

/**
 * `materials` as a collection: the served materials (bundled, `--data`, synthetic) and each
 * account's own, with the rules the material handlers apply; sets and defaults use it.
 */
export function materialCollection(served: MaterialStore): Collection {
  return { name: "materials", noun: "material", served, writable: true, ownRecords: "materials" };
}

/**
 * `bank-materials`: every public material, read and copied into an account: the served
 * materials and the reference results' materials (the Materials Project structures the
 * reference jobs computed), which `GET /materials` does not list.
 */
export function bankMaterialCollection(served: readonly StoredRecord[], reference: readonly StoredRecord[], scanBudgetMs?: number): Collection {
  const known = new Set(served.map((record) => record._id));
  const records = [...served, ...reference.filter((record) => !known.has(record._id))];
  return { name: "bank-materials", noun: "bank material", served: new MaterialStore(records, { scanBudgetMs }), writable: false, ownRecords: null };
}
