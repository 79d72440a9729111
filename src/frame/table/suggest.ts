// "Did you mean ...?" for column paths: the known path nearest to a mistyped one.
import { MATERIAL_PATHS } from "../../schemas";
import { editDistance } from "../../edit-distance";

export { editDistance };

/**
 * The known path nearest to `path`, when it is near enough to be a typo (at most a third of its
 * length in edits, at least one; none for names under four characters); undefined otherwise, or when `path` is itself known. A
 * path is also compared with the same number of trailing segments of each known path, so a bare
 * `densty` finds `derivedProperties.density`.
 * @example nearestPath("lattice.aa") // "lattice.a"
 * @example nearestPath("densty") // "derivedProperties.density"
 */
export function nearestPath(path: string, known: readonly string[] = MATERIAL_PATHS): string | undefined {
  if (known.includes(path)) return undefined;
  const wanted = path.toLowerCase();
  const depth = wanted.split(".").length;
  // Short names only match exactly (a bare "a" is lattice.a's tail; "x" is no typo of it).
  const limit = path.length < 4 ? 0 : Math.max(1, Math.floor(path.length / 3));
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of known) {
    const full = candidate.toLowerCase();
    const tail = full.split(".").slice(-depth).join(".");
    // A whole-path match beats a tail match at the same distance.
    const score = Math.min(editDistance(wanted, full), tail === full ? Infinity : editDistance(wanted, tail) + 0.5);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return bestScore <= limit + 0.5 ? best : undefined;
}
