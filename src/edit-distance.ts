// How far apart two names are, for "did you mean": shared by the column and query checks (frame)
// and the command line's flag suggestions (cli), which must not load the schemas to use it.

/**
 * Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`: the optimal
 * string alignment distance, so `densty` is 1 from `density` and `lattcie` 1 from `lattice`.
 */
export function editDistance(a: string, b: string): number {
  const cols = b.length + 1;
  // One flat table, row i at i * cols: a single allocation, and every index below is inside
  // it by the loop bounds, which the compiler cannot follow (hence the `!` on each read).
  const d = new Uint32Array((a.length + 1) * cols);
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = i * cols;
    d[row] = i;
    for (let j = 1; j < cols; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let best = Math.min(d[row - cols + j]! + 1, d[row + j - 1]! + 1, d[row - cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1))
        best = Math.min(best, d[row - 2 * cols + j - 2]! + 1);
      d[row + j] = best;
    }
  }
  return d[d.length - 1]!;
}
