// The "Resuming: ..." line of a resumed export, said once the export has taken its saved progress up.
import type { Progress } from "../client/config/options";
import { existsSync } from "node:fs";
import { resumePaths, savedProgress, type SavedSummary } from "../frame/export/resume/progress-files";

/** What a resumable export's run needs to say that it resumes. */
export interface ResumeAnnouncer {
  /** The export's progress callback: says the saved progress first, once. */
  onProgress(progress: Progress): void;
  /** The export ended: says the saved progress if no progress came (nothing was left to add). */
  ended(result: { readonly resumedFrom?: number }): void;
}

/**
 * Reads the progress a resumed export of `output` will continue, for the message alone: the
 * export checks it again under its lock and refuses progress of another request. So the message
 * waits for the export's first progress (or its end, when nothing was left to add): by then the
 * saved progress was taken up.
 */
export async function announceResume(
  options: { resume?: boolean; restart?: boolean; output?: unknown },
  events: { onProgress?: (progress: Progress) => void; onResume?: (saved: SavedSummary) => void },
): Promise<ResumeAnnouncer> {
  const resuming =
    options.resume && !options.restart && typeof options.output === "string" ? options.output : undefined;
  let announce = resuming === undefined ? undefined : await savedProgress(resuming).catch(() => undefined);
  // An earlier run's partial file without saved progress: it stopped before its first save (a
  // Parquet file saves at each complete row group), so this run starts over, and says so.
  if (resuming !== undefined && announce === undefined && existsSync(resumePaths(resuming).partial))
    announce = { items: 0 };
  const announced = (): void => {
    if (announce) events.onResume?.(announce);
    announce = undefined;
  };
  return {
    onProgress(progress) {
      announced();
      events.onProgress?.(progress);
    },
    ended(result) {
      if (result.resumedFrom) announced();
    },
  };
}
