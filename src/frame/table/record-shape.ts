import { RecordShapeError } from "../../errors";

/**
 * A record nested deeper than the stack allows (JSON.stringify of a cell throws RangeError)
 * becomes a `RecordShapeError` naming the record; other errors pass through.
 */
export function recordShapeError(error: unknown, record: unknown): unknown {
  if (!(error instanceof RangeError)) return error;
  const id = (record as { _id?: unknown } | null)?._id;
  const which = typeof id === "string" ? `Record ${JSON.stringify(id)}` : "A record";
  return new RecordShapeError(
    `${which} cannot be made into table cells: ${error.message} (a value nested too deeply?). Leave that field out of the columns, or fix the record.`,
    typeof id === "string" ? id : undefined,
    { cause: error },
  );
}
