import { MatframeError } from "../../client/errors/matframe-error";

/** An export was asked to write a file that already exists, without `force`. */
export class TargetExistsError extends MatframeError {
  override readonly code: string = "ERR_TARGET_EXISTS";
  override readonly name: string = "TargetExistsError";
  /** The path that was not overwritten. */
  readonly path: string;

  constructor(path: string) {
    super(`${path} already exists; pass force: true (--force on the command line) to overwrite it, or choose another path.`);
    this.path = path;
  }
}
