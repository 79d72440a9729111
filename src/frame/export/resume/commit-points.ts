// Every step after which a resumable export's files on disk are what a later run continues from
// (a state file replaced, a finished file put in place, the dataset renamed), published on a
// Node diagnostics channel. A kill can land between any two of them, so each one must leave
// files that a second run completes with every record exactly once. A subscriber sees each step
// synchronously, as it is reached: the kill tests stop the process at the Nth one (SIGKILL from
// the subscriber itself), so every step of a run is tried, deterministically. Without a
// subscriber, publishing costs one property read.
// https://nodejs.org/api/diagnostics_channel.html
import { channel } from "node:diagnostics_channel";

/** The channel's name: `diagnostics_channel.subscribe("matframe:export:commit", ...)`. */
export const COMMIT_CHANNEL = "matframe:export:commit";

/** What each message says: which step, and the file or folder it made durable. */
export interface CommitPoint {
  /**
   * `state`: a state file replaced (a file's progress or a dataset's); `finished`: a file's last
   * byte written and fsynced; `placed`: a finished file or folder renamed to its name;
   * `cleared`: a state file removed after its output was placed.
   */
  readonly step: "state" | "finished" | "placed" | "cleared";
  readonly path: string;
}

const commits = channel(COMMIT_CHANNEL);

/** Tells the channel's subscribers (if any) that `step` is durable. */
export function commitPoint(step: CommitPoint["step"], path: string): void {
  if (commits.hasSubscribers) commits.publish({ step, path } satisfies CommitPoint);
}
