import type { TableSlice } from "./table-input";

/** "3 rows × 4 columns", or "first 20 of 1,234 rows × 4 columns" when cut by `maxRows`. */
export function tableCaption(slice: TableSlice): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const plural = (x: number, word: string) => `${n(x)} ${word}${x === 1 ? "" : "s"}`;
  const columns = plural(slice.columns.length, "column");
  if (slice.rows.length < slice.totalRows) {
    return `first ${n(slice.rows.length)} of ${plural(slice.totalRows, "row")} × ${columns}`;
  }
  return `${plural(slice.totalRows, "row")} × ${columns}`;
}
