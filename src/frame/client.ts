import { ApiClient } from "../client/api-client";
import { FrameCollection } from "./frame-collection";

/**
 * The matframe client: an `ApiClient` whose collections are `FrameCollection`s, so they read
 * into DataFrames and export CSV and NDJSON as well as iterate.
 *
 * @example
 * const client = await Client.login({ baseUrl: "http://127.0.0.1:4000", username: "demo", password: "demo" });
 * const df = await client.materials.toDataFrame({ columns: ["formula", "lattice.a"] });
 * await client.logout();
 */
export class Client extends ApiClient {
  /** A collection that supports the list action, e.g. `client.collection("materials")`. */
  override collection(name: string): FrameCollection {
    return super.collection(name) as FrameCollection;
  }

  /** `client.collection("materials")`. */
  override get materials(): FrameCollection {
    return this.collection("materials");
  }

  protected override createCollection(name: string): FrameCollection {
    return new FrameCollection(this, name);
  }
}
