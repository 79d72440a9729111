// The state file of a resumable export, one codec for a single file's progress and a dataset's:
// JSON with the request it belongs to and a seal over what it says.
//
// What the seal protects against: accidental damage. A state file cut short by a full disk, a
// machine switched off between writes that were not both fsynced, a state beside a partial file
// it does not describe (the progress carries the partial bytes' SHA-256), or a hand edit of its
// cursor or counts would otherwise make a resumed export skip or repeat records without a word;
// with the seal it is refused and the user is told to restart. The seal is an unkeyed SHA-256,
// so it is NOT a defence against someone who may write the folder: they can recompute it. The
// output folder's permissions are that defence (the state file is written 0600, and resumable
// exports refuse progress directories that are links or another user's).
import * as fs from "node:fs";
import { createHash } from "node:crypto";
import { OutputError, ResumeError } from "../../../errors";
import { writeFileAtomic } from "../atomic/atomic-file";
import { commitPoint } from "./commit-points";

/** The layout version every state file carries. */
const VERSION = 1;

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` compare (and seal) equal. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The seal of a state file: SHA-256 over its request and the part of it that says how far it got. */
export function sealOf(request: unknown, progress: unknown): string {
  return createHash("sha256")
    .update(`matframe-resume-1\n${canonical(request)}\n${canonical(progress)}`)
    .digest("hex");
}

/** How one kind of state file is laid out. */
export interface StateLayout<State extends { readonly request: unknown }> {
  /** True when a parsed file has this layout (the version is checked before). */
  readonly valid: (state: State) => boolean;
  /** The part sealed beside the request. */
  readonly sealed: (state: State) => unknown;
}

/**
 * Reads a state file, or undefined when there is none.
 * @throws ResumeError when it cannot be read as `layout` or its seal does not match;
 *   OutputError when the file cannot be read at all.
 */
export async function readSealedState<State extends { readonly request: unknown }>(
  file: string,
  label: string,
  layout: StateLayout<State>,
): Promise<State | undefined> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new OutputError(`Cannot read the saved progress of ${label} (${file}): ${(error as Error).message}.`, file, {
      cause: error,
    });
  }
  let state: State & { matframeResume?: unknown; seal?: unknown };
  try {
    state = JSON.parse(text) as typeof state;
    if (state?.matframeResume !== VERSION || !state.request || !layout.valid(state))
      throw new ResumeError("unknown layout", file);
  } catch {
    throw new ResumeError(`The saved progress of ${label} (${file}) cannot be read.`, file, {
      to: "to discard it and start over",
    });
  }
  if (typeof state.seal !== "string" || state.seal !== sealOf(state.request, layout.sealed(state))) {
    throw new ResumeError(
      `The saved progress of ${label} (${file}) does not match its checksum: it was changed after matframe wrote it, so continuing could skip records.`,
      file,
      { to: "to discard it and start over" },
    );
  }
  const { seal: _seal, matframeResume: _version, ...rest } = state;
  return rest as unknown as State;
}

/** Replaces a state file atomically (temporary file, fsync, rename), sealed. */
export async function writeSealedState<State extends { readonly request: unknown }>(
  file: string,
  state: State,
  layout: StateLayout<State>,
): Promise<void> {
  const sealed = { matframeResume: VERSION, ...state, seal: sealOf(state.request, layout.sealed(state)) };
  await writeFileAtomic(file, `${JSON.stringify(sealed, null, 1)}\n`);
  commitPoint("state", file);
}
