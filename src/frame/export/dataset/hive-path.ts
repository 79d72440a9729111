// Hive-style partition folders (`lattice.type=FCC/`), named as Hive and Spark name them so that
// DuckDB, Polars, Spark and Arrow read the folder's value back as a column and prune on it.
// The convention: the characters Hive's FileUtils.escapePathName and Spark's
// ExternalCatalogUtils.escapePathName escape become `%XX` (upper-case hex of the UTF-16 code
// unit); everything else, non-ASCII included, is kept as it is; a null or empty value is the
// folder `__HIVE_DEFAULT_PARTITION__`, which those readers read back as null.
import { ValidationError } from "../../../errors";

/** The folder value Hive and Spark write for null (and the empty string), and read back as null. */
export const HIVE_DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__";

/**
 * Most distinct values a `partitionBy` column may have: 100, Hive's default limit of dynamic
 * partitions per writer (`hive.exec.max.dynamic.partitions.pernode`). Each value holds an open
 * file and one row group in memory, so the bound also bounds memory and file handles.
 */
export const MAX_PARTITION_VALUES = 100;

/** Longest folder name most file systems take (ext4, APFS, NTFS: 255 bytes or code units). */
const MAX_NAME_BYTES = 255;

// Control characters 0x01-0x1F, `"`, `#`, `%`, `'`, `*`, `/`, `:`, `=`, `?`, `\`, DEL, `{`, `[`,
// `]`, `^`: Hive's and Spark's list. NUL is added: no file system takes it in a name.
const ESCAPED = /[\u0000-\u001F"#%'*/:=?\\\u007F{[\]^]/g;

/** A partition column's name or value as Hive and Spark write it in a folder name. */
export function escapePathName(text: string): string {
  return text.replace(ESCAPED, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

/**
 * The folder of one partition value: `column=value`, escaped. Text is written as it is, numbers
 * and booleans as JavaScript prints them; null, a missing value and "" are the default partition.
 *
 * @throws ValidationError when the value is an object or an array (a partition column holds one
 *   plain value per record), or the folder name would be longer than a file system takes.
 */
export function partitionFolder(column: string, value: unknown, id: unknown): string {
  let text: string;
  if (value === null || value === undefined || value === "") text = HIVE_DEFAULT_PARTITION;
  else if (typeof value === "string") text = escapePathName(value);
  else if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") text = String(value);
  else {
    throw new ValidationError(
      "partitionBy",
      `partitionBy ${column} holds ${Array.isArray(value) ? "an array" : "an object"} in record ${String(id)}: a partition column needs one plain value (text, number or boolean) per record. Partition by a column inside it, such as ${column}.type.`,
    );
  }
  const folder = `${escapePathName(column)}=${text}`;
  if (Buffer.byteLength(folder) > MAX_NAME_BYTES) {
    throw new ValidationError(
      "partitionBy",
      `partitionBy ${column} has a value too long for a folder name (${Buffer.byteLength(folder)} bytes with the column's name; file systems take ${MAX_NAME_BYTES}) in record ${String(id)}. Partition by a column of short values, such as a type or a category.`,
    );
  }
  return folder;
}

/** The error for a column with more distinct values than {@link MAX_PARTITION_VALUES}. */
export function tooManyValues(column: string, id: unknown): ValidationError {
  return new ValidationError(
    "partitionBy",
    `partitionBy ${column} has more than ${MAX_PARTITION_VALUES} distinct values (value ${MAX_PARTITION_VALUES + 1} came with record ${String(id)}): ` +
      "a hive-partitioned dataset is for columns of few values, such as lattice.type or method.subtype, and this many folders would slow every reader. " +
      "Nothing was written. Partition by a column of fewer values, or read every row and filter in the reader",
    { remedy: { leaveOut: ["partitionBy"] } },
  );
}
