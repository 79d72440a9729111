import { badRequest } from "../http/http-errors";

/** Longest `$regex` pattern accepted, in characters. */
export const MAX_REGEX_LENGTH = 200;

/** Most unbounded quantifiers (`*`, `+`, `{n,}`) one pattern may hold. */
const MAX_UNBOUNDED_QUANTIFIERS = 3;

/**
 * Most backtracking steps one pattern may need, by the estimate below, on one string. About
 * 10-30 ms of the slowest case; the store's scan budget bounds the sum over all records.
 */
export const MAX_REGEX_STEPS = 3_000_000;

/** Subject length assumed when the caller does not know the data's longest string. */
const DEFAULT_SUBJECT_LENGTH = 128;

/**
 * One group (or the whole pattern) while scanning: the cost of its finished alternatives, the
 * cost of the alternative being read, and what a following quantifier would apply to.
 */
interface Frame {
  alternatives: number;
  current: number;
  hasQuantifier: boolean;
  hasAlternation: boolean;
}

/**
 * Refuses patterns that can make JavaScript's backtracking regex engine run for seconds or
 * forever on one short string (ReDoS), before they reach the query engine:
 * - a quantifier on a group that itself repeats or alternates (`(a+)+`, `(a|a)*`), and
 *   back-references: exponential;
 * - more than a few unbounded quantifiers (`.*.*.*.*x`);
 * - anything whose worst-case number of paths is too large: every quantifier multiplies the paths
 *   by how many repetitions it may take (`?` 2, `{m,n}` n-m+1, `*` `+` `{m,}` the subject length),
 *   alternatives add up, and each start position counts. `^.?.?.?...` 25 times is 2^25 paths.
 * `subjectLength` is the longest string the pattern may meet (the store knows it).
 */
export function assertSafeRegex(pattern: string, options: string, subjectLength = DEFAULT_SUBJECT_LENGTH): RegExp {
  if (pattern.length > MAX_REGEX_LENGTH) {
    throw badRequest(`$regex is ${pattern.length} characters long; at most ${MAX_REGEX_LENGTH} are allowed.`);
  }
  if (!/^[ims]*$/.test(options)) {
    throw badRequest(`$options "${options}" is not supported; use any of i, m, s.`);
  }
  const length = Math.max(subjectLength, 16);
  const newFrame = (): Frame => ({ alternatives: 0, current: 1, hasQuantifier: false, hasAlternation: false });
  const root = newFrame();
  // The root frame is never popped (an unbalanced ")" stops the walk), so the stack's top exists.
  const stack: Frame[] = [root];
  let unbounded = 0;
  // What the next quantifier applies to: the group that just closed, or a single atom.
  let lastClosed: Frame | undefined;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i];
    const frame = stack[stack.length - 1]!;
    const closed = lastClosed;
    lastClosed = undefined;
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k") {
        throw badRequest("$regex back-references (\\1, \\k<name>) are not supported; they can take exponential time.");
      }
      i += 1;
    } else if (ch === "[") {
      i = skipCharacterClass(pattern, i);
    } else if (ch === "(") {
      stack.push(newFrame());
      i = skipGroupPrefix(pattern, i);
    } else if (ch === ")") {
      if (stack.length === 1) break; // unbalanced: let RegExp report it
      const group = stack.pop() as Frame;
      const parent = stack[stack.length - 1]!;
      const groupCost = group.alternatives + group.current;
      parent.current *= groupCost;
      parent.hasQuantifier ||= group.hasQuantifier;
      lastClosed = group;
    } else if (ch === "|") {
      frame.hasAlternation = true;
      frame.alternatives += frame.current;
      frame.current = 1;
    } else if (ch === "*" || ch === "+" || ch === "?" || ch === "{") {
      const bounds = ch === "{" ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i)) : undefined;
      if (ch === "{" && !bounds) continue; // a literal "{"
      const isUnbounded =
        ch === "*" ||
        ch === "+" ||
        (bounds !== undefined && bounds !== null && bounds[2] !== undefined && bounds[3] === "");
      if (closed && (closed.hasQuantifier || closed.hasAlternation) && ch !== "?") {
        throw badRequest(
          "$regex repeats a group that itself repeats or alternates, e.g. (a+)+ or (a|b)*; such patterns can take exponential time. Rewrite it without the nested repetition.",
        );
      }
      let repetitions = length;
      if (ch === "?") repetitions = 2;
      else if (bounds && !isUnbounded) {
        const min = Number(bounds[1]);
        const max = bounds[2] === undefined ? min : Number(bounds[3]);
        repetitions = Math.max(1, max - min + 1);
      }
      if (isUnbounded) unbounded += 1;
      frame.current *= repetitions;
      frame.hasQuantifier = true;
      if (bounds) i += bounds[0].length - 1;
      if (pattern[i + 1] === "?") i += 1; // lazy quantifier: same paths, other order
    }
  }
  if (unbounded > MAX_UNBOUNDED_QUANTIFIERS) {
    throw badRequest(
      `$regex has ${unbounded} unbounded quantifiers (*, +, {n,}); at most ${MAX_UNBOUNDED_QUANTIFIERS} are allowed.`,
    );
  }
  const steps = length * (root.alternatives + root.current);
  if (steps > MAX_REGEX_STEPS) {
    throw badRequest(
      `$regex could need about ${steps.toExponential(1)} steps per string (each quantifier multiplies the ways to match); at most ${MAX_REGEX_STEPS.toExponential(0)} are allowed. Use fewer quantifiers, fewer optional parts (?), or anchor it.`,
    );
  }
  try {
    return new RegExp(pattern, options);
  } catch (error) {
    throw badRequest(`$regex is not a valid regular expression: ${(error as Error).message}.`);
  }
}

function skipCharacterClass(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i += 1) {
    if (pattern[i] === "\\") i += 1;
    else if (pattern[i] === "]") return i;
  }
  return pattern.length;
}

/** Skips `?:`, `?=`, `?!`, `?<=`, `?<!` and `?<name>` after an opening parenthesis. */
function skipGroupPrefix(pattern: string, open: number): number {
  const prefix = /^\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(pattern.slice(open + 1, open + 40));
  return prefix ? open + prefix[0].length : open;
}
