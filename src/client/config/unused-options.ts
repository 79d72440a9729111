// A misspelt option (`querry`, `colums`) must fail, not be dropped: dropped, it reads every record
// of the collection and looks like success.
import { editDistance } from "../../edit-distance";
import { ValidationError } from "../../errors";

/** The known name nearest to `name` when it is near enough to be a typo (a third of its length in edits; names under four characters: none). */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const limit = name.length < 4 ? 0 : Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestScore = limit + 1;
  for (const candidate of known) {
    const score = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Refuses an option the method does not use, naming the nearest one it takes. An option set to
 * `undefined` passes (spreading optional settings is common).
 * @param hints what to say instead of a "did you mean" for names that are right elsewhere (the
 *   platform's `query` given to an OPTIMADE read, which takes `filter`).
 * @throws ValidationError naming the option.
 */
export function refuseUnusedOptions(
  options: object,
  known: readonly string[],
  method: string,
  hints: Readonly<Record<string, string>> = {},
): void {
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || known.includes(name)) continue;
    const hint = Object.hasOwn(hints, name) ? hints[name] : undefined;
    const near = hint === undefined ? nearestName(name, known) : undefined;
    const aside = hint !== undefined ? ` (${hint})` : near ? ` (did you mean "${near}"?)` : "";
    throw new ValidationError(
      name,
      `${method} does not use the option ${JSON.stringify(name)}${aside}; it takes ${known.join(", ")}.`,
    );
  }
}
