import { MatframeError } from "./matframe-error";

/** An option was invalid; thrown before any request is sent. */
export class ValidationError extends MatframeError {
  override readonly code: string = "ERR_INVALID_OPTION";
  override readonly name: string = "ValidationError";
  /** The option at fault, e.g. `"pageSize"` or `"projection.skip"`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super(message);
    this.option = option;
  }
}
