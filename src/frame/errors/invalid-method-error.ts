import { MatframeError } from "../../client/errors/matframe-error";

/**
 * A record's method object failed the method schema while `strict: true` was set
 * (without `strict`, its method columns become null and a warning counts it).
 */
export class InvalidMethodError extends MatframeError {
  override readonly code: string = "ERR_INVALID_METHOD";
  override readonly name: string = "InvalidMethodError";
  /** The dotted path of the method object, e.g. `"method"`. */
  readonly path: string;
  /** The `_id` of the offending record, when it was fetched. */
  readonly id: string | undefined;

  constructor(path: string, id: string | undefined, row: number) {
    const where = id === undefined ? `row ${row}` : `material ${id} (row ${row})`;
    super(
      `The ${path} of ${where} is not a valid method: "type" and "subtype" must be strings. ` +
        "Leave out strict: true to get nulls and a warning instead.",
    );
    this.path = path;
    this.id = id;
  }
}
