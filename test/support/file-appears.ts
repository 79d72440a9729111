import { readdirSync, statSync, watch } from "node:fs";
import { join } from "node:path";

/**
 * Resolves with the name of the first file in `dir` that `accept` takes (given its name and size),
 * looked at whenever the folder reports a change (fs.watch: a file created, renamed or written),
 * not on a timer. Rejects if `ended` settles first: the process writing the file is gone and the
 * file will not come.
 */
export function fileAppears(
  dir: string,
  accept: (name: string, size: number) => boolean,
  ended: Promise<unknown>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      watcher.close();
      outcome();
    };
    const look = (): void => {
      for (const name of readdirSync(dir)) {
        const size = statSync(join(dir, name), { throwIfNoEntry: false })?.size;
        if (size !== undefined && accept(name, size)) {
          settle(() => resolve(name));
          return;
        }
      }
    };
    const watcher = watch(dir, look);
    void ended.then(
      () => settle(() => reject(new Error(`the writer ended before a matching file appeared in ${dir}`))),
      (error: unknown) => settle(() => reject(error)),
    );
    // A file already there before the watch began raises no event.
    look();
  });
}
