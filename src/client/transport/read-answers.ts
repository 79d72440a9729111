// What a read tells about the answers it was built from, so that the frame layer can keep a
// finished read and confirm it later (src/frame/kept-reads.ts keeps them).

/** One answer a read was built from: its query string and the validator it came with. */
export interface ReadAnswer {
  readonly search: Readonly<Record<string, string>>;
  readonly etag: string;
}

/** How a read may be kept and confirmed; given by a client whose cache is in memory. */
export interface ReadKeeping {
  /** What decides the read's result: account, platform, collection, walk and columns. */
  readonly key: string;
  /** Sends every answer's request with its validator; true when the server confirms them all. */
  confirm(answers: readonly ReadAnswer[], signal?: AbortSignal): Promise<boolean>;
}
