// matdyn.x's results, as Exabyte-io/express's espresso parser makes them from the files it
// writes in the job's folder: `phonon_dos` from its density of states (`fldos`, the bank's
// `phonon_dos.out`: frequency in cm-1, then the total DOS, then one column per atom).
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import type { UnitResults, UnitRun } from "../compute-types";

/** The DOS file the bank's matdyn_grid.in names (express's PHONON_DOS_FILE). */
export const PHONON_DOS_FILE = "phonon_dos.out";

/** The first two columns of matdyn.x's DOS file, or why there are none. */
export function phononDos(text: string): { frequency: number[]; total: number[] } | { reason: string } {
  const frequency: number[] = [];
  const total: number[] = [];
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] === "" || fields[0]?.startsWith("#")) continue;
    const [x, y] = fields.slice(0, 2).map((v) => Number(v.replace(/[Dd]/, "e")));
    if (x === undefined || y === undefined || !Number.isFinite(x) || !Number.isFinite(y))
      return { reason: `a line of ${PHONON_DOS_FILE} is not two numbers: ${JSON.stringify(line.slice(0, 80))}` };
    frequency.push(x);
    total.push(y);
  }
  return frequency.length > 0 ? { frequency, total } : { reason: `${PHONON_DOS_FILE} has no rows` };
}

/** The results a matdyn.x unit lists, from the files its run wrote. */
export function matdynResults(run: UnitRun): UnitResults {
  const computed: UnitResults["computed"] = [];
  const notes: string[] = [];
  if (run.wanted.has("phonon_dos")) {
    const file = path.join(run.workDir, PHONON_DOS_FILE);
    const dos = existsSync(file)
      ? phononDos(readFileSync(file, "utf8"))
      : { reason: `matdyn.x wrote no ${PHONON_DOS_FILE}` };
    if ("reason" in dos) notes.push(`${run.stem}: no phonon DOS: ${dos.reason}.`);
    else
      computed.push({
        name: "phonon_dos",
        xAxis: { label: "frequency", units: "cm-1" },
        yAxis: { label: "Phonon DOS", units: "states/cm-1" },
        xDataArray: [dos.frequency],
        yDataSeries: [dos.total],
      });
  }
  return { computed, notes };
}
