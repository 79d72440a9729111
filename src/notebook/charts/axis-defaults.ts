/**
 * A readable axis title for a column path: the last segment, camelCase and underscores spaced
 * ("derivedProperties.density" → "density", "volumePerAtom" → "volume per atom"); a segment of one
 * or two letters keeps its parent ("lattice.a" → "lattice a"); a unit in brackets goes in
 * parentheses ("derivedProperties.density [g/cm^3]" → "density (g/cm^3)"). Other names with spaces
 * are kept as given.
 */
export function readableTitle(column: string): string {
  // A column labelled with its unit, as `units: true` names them: "path [unit]".
  const labelled = /^(\S+) \[([^\]]+)\]$/.exec(column);
  if (labelled) return `${readableTitle(labelled[1]!)} (${labelled[2]})`;
  if (/\s/.test(column)) return column;
  const parts = column.split(".").filter((p) => p !== "");
  const last = parts.at(-1);
  if (last === undefined) return column;
  const chosen = last.length <= 2 && parts.length > 1 ? parts.slice(-2) : [last];
  return chosen.map(words).join(" ");
}

function words(segment: string): string {
  return segment
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`)
    .trim();
}

/** 1, 2 or 5 times a power of ten: the step nearest above `rough`. */
function niceStep(rough: number): number {
  const power = 10 ** Math.floor(Math.log10(rough));
  const fraction = rough / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

/** Rounds away the float noise of step arithmetic (0.30000000000000004). */
const clean = (x: number): number => Number(x.toPrecision(12));

/**
 * An axis domain for a set of values: 5 % of the span added on each side so that points at the
 * extremes stay inside, then widened outward to round tick values. The domain never crosses zero
 * where the data does not: non-negative data starts at 0 at the lowest, non-positive data ends
 * at 0 at the highest (a density axis never runs to −2).
 */
export function niceDomain(values: readonly number[]): [number, number] {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return [0, 1];
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (lo === 0 && hi === 0) return [0, 1];
  const [dataLo, dataHi] = [lo, hi];
  if (lo === hi) [lo, hi] = [lo - Math.abs(lo) / 10, hi + Math.abs(hi) / 10];
  const pad = (hi - lo) * 0.05;
  let start = lo - pad;
  let end = hi + pad;
  if (dataLo >= 0 && start < 0) start = 0;
  if (dataHi <= 0 && end > 0) end = 0;
  const step = niceStep((end - start) / 5);
  return [clean(Math.floor(start / step) * step), clean(Math.ceil(end / step) * step)];
}
