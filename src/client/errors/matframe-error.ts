/**
 * The root of every error matframe throws on purpose. Catch this to catch them all;
 * switch on `code` (stable across versions) rather than on the message.
 */
export class MatframeError extends Error {
  /** A stable machine-readable code, e.g. `"ERR_AUTHENTICATION"`. */
  readonly code: string = "ERR_MATFRAME";
  override readonly name: string = "MatframeError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
