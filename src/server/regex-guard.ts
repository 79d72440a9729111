import { badRequest } from "./http-errors";

/** Longest `$regex` pattern accepted, in characters. */
export const MAX_REGEX_LENGTH = 200;

/** Most unbounded quantifiers (`*`, `+`, `{n,}`) one pattern may hold. */
const MAX_UNBOUNDED_QUANTIFIERS = 3;

interface GroupState {
  hasQuantifier: boolean;
  hasAlternation: boolean;
}

/**
 * Refuses patterns that can make JavaScript's backtracking regex engine run for seconds or
 * forever on a short string (ReDoS), before they reach the query engine:
 * a quantifier on a group that itself repeats or alternates (`(a+)+`, `(a|a)*`), back-references,
 * and more than a few unbounded quantifiers (`.*.*.*.*x`). What is left runs in polynomial time,
 * and the store's scan budget bounds the rest.
 */
export function assertSafeRegex(pattern: string, options: string): RegExp {
  if (pattern.length > MAX_REGEX_LENGTH) {
    throw badRequest(`$regex is ${pattern.length} characters long; at most ${MAX_REGEX_LENGTH} are allowed.`);
  }
  if (!/^[ims]*$/.test(options)) {
    throw badRequest(`$options "${options}" is not supported; use any of i, m, s.`);
  }
  const stack: GroupState[] = [{ hasQuantifier: false, hasAlternation: false }];
  let unbounded = 0;
  // The group that just closed, so a quantifier right after it can be checked against it.
  let lastClosed: GroupState | undefined;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i];
    const current = stack[stack.length - 1];
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
      stack.push({ hasQuantifier: false, hasAlternation: false });
      i = skipGroupPrefix(pattern, i);
    } else if (ch === ")") {
      if (stack.length === 1) break; // unbalanced: let RegExp report it
      const group = stack.pop() as GroupState;
      const parent = stack[stack.length - 1];
      parent.hasQuantifier ||= group.hasQuantifier;
      lastClosed = group;
    } else if (ch === "|") {
      current.hasAlternation = true;
    } else if (ch === "*" || ch === "+" || ch === "?" || ch === "{") {
      const isUnbounded = ch === "*" || ch === "+" || (ch === "{" && /^\{\d+,\}/.test(pattern.slice(i)));
      const isQuantifier = ch !== "{" || /^\{\d+(,\d*)?\}/.test(pattern.slice(i));
      if (!isQuantifier) continue;
      if (closed && (closed.hasQuantifier || closed.hasAlternation) && ch !== "?") {
        throw badRequest(
          "$regex repeats a group that itself repeats or alternates, e.g. (a+)+ or (a|b)*; such patterns can take exponential time. Rewrite it without the nested repetition.",
        );
      }
      if (isUnbounded) unbounded += 1;
      current.hasQuantifier = true;
      if (ch === "{") i = pattern.indexOf("}", i);
      if (pattern[i + 1] === "?") i += 1; // lazy quantifier
    }
  }
  if (unbounded > MAX_UNBOUNDED_QUANTIFIERS) {
    throw badRequest(
      `$regex has ${unbounded} unbounded quantifiers (*, +, {n,}); at most ${MAX_UNBOUNDED_QUANTIFIERS} are allowed.`,
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
