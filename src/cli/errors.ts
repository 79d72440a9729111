// How every command reports a failure: one line on stderr (never a stack), worded in the flags
// the user typed, and one exit code rule. Remedies come from the errors' structured fields
// (`option`, `remedy`, `path`, `column`), never from rewriting the library's sentences.
import { printable } from "./printable";
import {
  ApiError,
  AuthenticationError,
  ColumnTypeError,
  ConnectionError,
  DuplicateRecordError,
  EmptyColumnError,
  MatframeError,
  ResponseTooLargeError,
  ResponseValidationError,
  TargetExistsError,
  libraryName,
  TimeoutError,
  ValidationError,
  withRemedy,
} from "../errors";

/** A mistake in the command line (a flag, its value, a missing argument); exit code 1. */
export class UsageError extends MatframeError {
  override readonly code: string = "ERR_USAGE";
  override readonly name: string = "UsageError";
}

/** Exit codes of every command, as docs/cli.md documents them. */
export const EXIT = { ok: 0, usage: 1, api: 2, network: 3 } as const;

/**
 * The exit code for `error`: 3 when the platform could not be reached in time (connection,
 * timeout); 2 when it refused (authentication, any HTTP error) or answered what matframe cannot
 * use (a malformed, oversized or repeating answer); 1 for everything the user can fix here
 * (flags, options, files).
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return EXIT.network;
  if (
    error instanceof ApiError ||
    error instanceof ResponseValidationError ||
    error instanceof ResponseTooLargeError ||
    error instanceof DuplicateRecordError
  ) {
    return EXIT.api;
  }
  return EXIT.usage;
}

/** How a command words the options of the library. */
export interface Wording {
  /** The flag that sets each library option (`maxItems` → `--max-items`). */
  readonly flags: Readonly<Record<string, string>>;
  /** The command that lists each collection (`jobs` → `` `matframe jobs list` ``), where the command has one. */
  readonly lists?: Readonly<Record<string, string>>;
  /** The command that ends records of each collection (`jobs` → `` `matframe jobs terminate ID` ``), where there is one. */
  readonly ends?: Readonly<Record<string, string>>;
  /**
   * What the user typed to name where files are written, as a path that exists is refused:
   * `--output` (the default), `--download folder`.
   */
  readonly writesTo?: string;
  /** Where refused credentials came from (`"OIDC_ACCESS_TOKEN"`, `the saved login "default"`), to say how to renew them. */
  readonly credentialsFrom?: string;
}

/** `error` as one line in the command's words. */
export function describeError(error: unknown, wording: Wording): string {
  if (!(error instanceof Error)) return String(error);
  const flag = (option: string): string => wording.flags[option] ?? option;
  if (error instanceof TargetExistsError)
    return `${error.path} already exists; pass --force to overwrite it, or choose another ${wording.writesTo ?? "--output"}.`;
  if (error instanceof ColumnTypeError) {
    return (
      `column "${error.column}" is typed ${error.type}, but record ${error.id ?? "(no _id)"} has ${error.value} there; ` +
      `give it a type that holds every value with --types ${error.column}=string, or leave it out of --columns. Nothing was written.`
    );
  }
  if (error instanceof EmptyColumnError) {
    return (
      `Column "${error.column}" is empty: none of the ${error.rows.toLocaleString("en-US")} records has a value at that path` +
      (error.suggestion ? `; did you mean ${error.suggestion}?` : "; check the path's spelling.") +
      " Nothing was written (--strict)."
    );
  }
  let reason = error instanceof MatframeError ? error.reason : error.message;
  if (error instanceof ValidationError && wording.flags[error.option]) {
    // "maxItems must be ..." becomes "--max-items must be ...": the words of the flag the user typed.
    const { option } = error;
    if (reason.startsWith(`${option} `)) reason = `${flag(option)}${reason.slice(option.length)}`;
    // Not when the message names the variable the value came from (MATFRAME_PROFILE, API_HOST).
    else if (!reason.startsWith("--") && !/^[A-Z][A-Z0-9_]+ /.test(reason)) reason = `${flag(option)}: ${reason}`;
  }
  const remedy = error instanceof MatframeError ? error.remedy : undefined;
  if (!remedy) return reason;
  if ("logInAgain" in remedy && error instanceof AuthenticationError)
    return `${reason}: log in again (${renewal(wording.credentialsFrom)}).`;
  // A client option the commands do not expose (the request `timeout`): the reason's own advice stands.
  if ("orRaise" in remedy) return reason;
  return withRemedy(reason, remedy, (name, kind) => {
    // A collection this command has no words for is named by the library's call.
    if (kind === "list") return wording.lists?.[name] ?? libraryName(name, kind);
    if (kind === "end") return wording.ends?.[name] ?? libraryName(name, kind);
    return flag(name);
  });
}

/** How to get credentials that work again, by where the refused ones came from. */
function renewal(credentialsFrom: string | undefined): string {
  if (credentialsFrom === undefined) return "`matframe login`, or new MATFRAME_* credentials";
  if (credentialsFrom.startsWith("the saved login")) return `\`matframe login\` to replace ${credentialsFrom}`;
  return `new values for ${credentialsFrom}, or \`matframe login\``;
}

/**
 * Prints `error` as one line, `matframe <command>: ...`, and returns its exit code. A message may
 * quote what a platform or provider sent (an entry's id, a server's reason): its controls are
 * written out, so they cannot drive the terminal.
 */
export function reportError(command: string, error: unknown, wording: Wording): number {
  process.stderr.write(`matframe ${command}: ${printable(describeError(error, wording).replace(/\s*\n\s*/g, " "))}\n`);
  return exitCodeFor(error);
}
