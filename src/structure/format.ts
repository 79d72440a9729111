// Number and name formatting shared by the writers.

/**
 * A number with 10 decimals (1e-10 Å, far below the 1e-6 Å the files are checked to), right
 * aligned in `width` columns. A wider value (a 1,000,000 Å cell vector needs 18 characters) gets
 * one space before it all the same: readers split fields on spaces, and numbers written side by
 * side must never run together. A `width` of 0 writes the number alone.
 */
export function num(x: number, width = 16): string {
  const fixed = (Object.is(x, -0) || Math.abs(x) < 5e-11 ? 0 : x).toFixed(10);
  return width > 0 && fixed.length >= width ? ` ${fixed}` : fixed.padStart(width);
}

/** A record's one-line title: name and id, on one line, without control characters. */
export function titleOf(record: { _id?: string; name?: string; formula?: string }): string {
  const parts = [record.name ?? record.formula ?? "structure", record._id].filter(Boolean);
  return parts
    .join(" ")
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .trim();
}

/** Runs of equal neighbours: ["Zn","Zn","O"] -> [["Zn",2],["O",1]], keeping the order. */
export function runs(symbols: readonly string[]): [string, number][] {
  const out: [string, number][] = [];
  for (const s of symbols) {
    const last = out.at(-1);
    if (last && last[0] === s) last[1] += 1;
    else out.push([s, 1]);
  }
  return out;
}
