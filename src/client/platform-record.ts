// The one shape every platform record has, below the collections, the paging and the response
// checks that all name it (so none of them imports another for it).

/** What every platform record is: a plain object with a string `_id`. */
export interface PlatformRecord {
  _id: string;
  [key: string]: unknown;
}
