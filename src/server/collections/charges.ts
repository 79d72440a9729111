import { MaterialStore } from "../records/store";
import { PLAIN_COLLECTION, type Collection } from "./collection";

/**
 * `charges`: what the platform bills an account for its jobs' compute (the official client's
 * `charges.get_by_job` looks one up by `jid`). The local platform bills nothing, so every account's
 * charges are an empty list, answered as any collection's list (query and projection checked).
 */
export function chargeCollection(): Collection {
  return {
    ...PLAIN_COLLECTION,
    name: "charges",
    noun: "charge",
    served: new MaterialStore([]),
    writable: false,
    ownRecords: null,
  };
}
