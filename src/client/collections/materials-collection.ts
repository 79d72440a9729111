import type { MaterialRecord } from "../../schemas";
import { Collection } from "../collection";
import { moveRecordsToSet, movedRecords, setBody, type CreateSetOptions, type MoveToSetOptions } from "./entity-sets";
import { internalsOf } from "../client-internals";

/**
 * `client.materials`: a collection of material records, with the platform's sets. A set is a
 * material record with `isEntitySet: true`; its members name it in `inSet`, so
 * `client.materials.list({ query: { "inSet._id": set._id } })` lists them.
 */
export class MaterialsCollection extends Collection<MaterialRecord> {
  /**
   * Creates an empty set of your materials: `PUT /materials/create-set` with `{ name, tags }`.
   * Resolves to the set (a record with `isEntitySet: true`).
   * @example const set = await client.materials.createSet("Band-gap study");
   */
  async createSet(name: string, options: CreateSetOptions = {}): Promise<MaterialRecord> {
    const body = setBody(name, options);
    return this.checkWritten(
      await internalsOf(this.connection).writeData("PUT", `${this.name}/create-set`, { body, signal: options.signal }),
    ) as MaterialRecord;
  }

  /**
   * Moves materials of yours into one of your sets (and out of `fromSetId`): one
   * `POST /materials/<id>/move-to-set?newSetId=` per material. Resolves to the moved records.
   * @example await client.materials.moveToSet(set._id, [si._id, gaas._id]);
   */
  async moveToSet(
    setId: string,
    ids: string | readonly string[],
    options: MoveToSetOptions = {},
  ): Promise<MaterialRecord[]> {
    return movedRecords(await moveRecordsToSet(this.connection, this.name, setId, ids, options)) as MaterialRecord[];
  }
}
