/**
 * A whole count with its thousands grouped by commas, as `n.toLocaleString("en-US")` writes it
 * ("100,029"). Not `toLocaleString` itself: its first call in a process loads ICU's number
 * formatting data, 17-24 ms that a first `toDataFrame` paid only to word a warning (measured on
 * Node 20; every later call builds a formatter again, ~0.1 ms). Other numbers (fractions,
 * infinities, beyond 2^53) go to `toLocaleString`, which rounds them as users expect.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n));
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let at = grouped.length; at < digits.length; at += 3) grouped += `,${digits.slice(at, at + 3)}`;
  // -0 keeps its sign, as toLocaleString writes it.
  return n < 0 || Object.is(n, -0) ? `-${grouped}` : grouped;
}
