// Whole reads kept in memory and confirmed by their answers' validators: with the
// client's `cache: "memory"`, re-running `toDataFrame` against an unchanged collection costs one
// revalidation per page, all in flight at once, and no parsing.
import type { ReadAnswer } from "../client/transport/read-answers";
import type { BuiltColumns } from "./table/column-builder";

/** A finished read: every answer it came from (each with a validator) and the columns built. */
export interface KeptRead {
  readonly answers: readonly ReadAnswer[];
  readonly built: BuiltColumns;
  readonly pages: number;
}

/** Kept reads per process, least recently used first out. */
export const MAX_KEPT_READS = 8;
/** Cells (rows × columns) all kept reads may hold together: about 20 bytes each, 400 MB at most. */
export const MAX_KEPT_CELLS = 20_000_000;

/**
 * The process's kept reads: like the memory response cache, shared by every client of the
 * process, so a notebook cell that makes a new client still finds them. A kept read is used only
 * after the server has confirmed every answer it came from, so a stale one is never served.
 */
class KeptReads {
  readonly #reads = new Map<string, { read: KeptRead; cells: number }>();
  #cells = 0;

  get(key: string): KeptRead | undefined {
    const entry = this.#reads.get(key);
    if (entry) {
      this.#reads.delete(key);
      this.#reads.set(key, entry);
    }
    return entry?.read;
  }

  set(key: string, read: KeptRead): void {
    this.delete(key);
    const cells = cellsOf(read);
    if (cells > MAX_KEPT_CELLS) return;
    this.#reads.set(key, { read, cells });
    this.#cells += cells;
    // The newest fits by itself, so the oldest go until the rest fit beside it.
    for (const oldest of this.#reads.keys()) {
      if (this.#cells <= MAX_KEPT_CELLS && this.#reads.size <= MAX_KEPT_READS) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.#reads.get(key);
    if (!entry) return;
    this.#reads.delete(key);
    this.#cells -= entry.cells;
  }
}

/** A kept read's size in cells, a long string counting as one cell per 16 characters beyond the first 16. */
function cellsOf(read: KeptRead): number {
  let cells = read.built.rows * read.built.names.length;
  for (const row of read.built.table) {
    for (const cell of row) if (typeof cell === "string" && cell.length > 16) cells += (cell.length - 16) >> 4;
  }
  return cells;
}

export const keptReads = new KeptReads();

/**
 * A copy of a built table whose rows no DataFrame shares: danfo keeps the rows it is given, and
 * may change them (as a user may change the frame), while the kept read must stay as the server
 * confirmed it.
 */
export function copyColumns(built: BuiltColumns): BuiltColumns {
  return { ...built, table: built.table.map((row) => row.slice()) };
}
