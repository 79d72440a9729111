// The rows that several Parquet writers of one dataset (a hive-partitioned export's, one per
// value) may hold together. Each writer holds its row group until it is full; with many values
// filling at once, that is many row groups in memory. Past the budget, a writer holding at least
// its share closes its group early: memory stays near the budget, whatever the number of values
// and rows, and the groups of a busy dataset come out smaller than `rowGroupSize`.

/**
 * Rows the writers of one dataset hold together before they close row groups early: four of
 * DuckDB's row groups (4 x 122,880), or one `rowGroupSize` when that is larger.
 */
export const DATASET_ROWS_HELD = 4 * 122_880;

/** The rows held by the writers of one dataset, and how many they may hold. */
export class RowBudget {
  /** Rows in the writers' unwritten row groups. */
  held = 0;
  /** Writers open. */
  writers = 0;

  constructor(readonly limit: number) {}

  /** True when the writers hold more than the limit and one holding `rows` has at least its share. */
  over(rows: number): boolean {
    return this.held > this.limit && rows * this.writers >= this.held;
  }
}
