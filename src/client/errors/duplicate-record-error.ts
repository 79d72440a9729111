import { MatframeError } from "./matframe-error";

/**
 * An offset walk saw the same record twice: the collection changed under the walk, so
 * records may also have been missed. Thrown unless `onDuplicate` is given.
 */
export class DuplicateRecordError extends MatframeError {
  override readonly code: string = "ERR_DUPLICATE_RECORD";
  override readonly name: string = "DuplicateRecordError";
  /** The `_id` seen twice. */
  readonly id: string;
  /** The page (1-based) on which it was seen the second time. */
  readonly page: number;

  constructor(message: string, id: string, page: number) {
    super(message);
    this.id = id;
    this.page = page;
  }
}
