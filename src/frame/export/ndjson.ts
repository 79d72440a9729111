/**
 * Formats rows as NDJSON lines (one JSON object per line, keys = column names in order).
 * Missing values are `null`; nested objects and arrays stay JSON rather than strings, since
 * NDJSON can hold them. Key prefixes are encoded once, not per row.
 */
export function ndjsonLineFormatter(names: readonly string[]): (cells: readonly unknown[]) => string {
  const prefixes = names.map((name, i) => `${i === 0 ? "{" : ","}${JSON.stringify(name)}:`);
  return (cells) => {
    let line = "";
    for (let i = 0; i < prefixes.length; i++) line += prefixes[i] + ndjsonValue(cells[i]);
    return prefixes.length === 0 ? "{}" : `${line}}`;
  };
}

function ndjsonValue(value: unknown): string {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return "null";
  if (typeof value === "bigint") return JSON.stringify(String(value));
  // JSON.stringify gives null for NaN and Infinity, which JSON cannot hold.
  return JSON.stringify(value);
}
