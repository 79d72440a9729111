import { MatframeError } from "../../client/errors/matframe-error";

/** An optional package that a feature needs is not installed. */
export class MissingDependencyError extends MatframeError {
  override readonly code: string = "ERR_MISSING_DEPENDENCY";
  override readonly name: string = "MissingDependencyError";
  /** The npm package to install. */
  readonly packageName: string;

  constructor(packageName: string, feature: string, options?: { cause?: unknown; hint?: string }) {
    const hint = options?.hint ? ` ${options.hint}` : "";
    super(`${feature} needs the optional package ${packageName}, which is not installed: run \`npm install ${packageName}\`.${hint}`, options);
    this.packageName = packageName;
  }
}
