// The `_SUCCESS` marker: the empty file Hadoop's FileOutputCommitter and Spark leave in a dataset
// folder once every part is written, which their readers, Airflow's sensors and many pipelines
// wait for. matframe writes it last, just before the folder takes its target's name, so a folder
// without it (copied mid-way, say) is never mistaken for a whole dataset.
import * as fs from "node:fs";
import * as path from "node:path";
import { OutputError } from "../../../errors";
import { describeWriteError } from "../atomic/atomic-file";

/** The marker's name. */
export const SUCCESS_MARKER = "_SUCCESS";

/** Writes the empty `_SUCCESS` file into `dir`, the folder that becomes `target`. */
export async function writeSuccessMarker(dir: string, target: string): Promise<void> {
  try {
    await fs.promises.writeFile(path.join(dir, SUCCESS_MARKER), "");
  } catch (error) {
    throw new OutputError(`Cannot write ${target}: ${describeWriteError(error, dir)}`, target, { cause: error });
  }
}
