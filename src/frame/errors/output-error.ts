import { MatframeError } from "../../client/errors/matframe-error";

/** An export's output could not be written (missing directory, no permission, disk full, closed stream). */
export class OutputError extends MatframeError {
  override readonly code: string = "ERR_OUTPUT";
  override readonly name: string = "OutputError";
  /** The target path, when the output was a file. */
  readonly path: string | undefined;

  constructor(message: string, path?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
  }
}
