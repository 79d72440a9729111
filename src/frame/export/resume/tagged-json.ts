// Tagged JSON for a format writer's state (Parquet's row group metadata) in a resume state file:
// bigints, byte arrays and non-finite numbers survive the round trip that plain JSON loses.

/** Encodes a value with bigints, Uint8Arrays and NaN/Infinity as JSON. */
export function toTaggedJson(value: unknown): unknown {
  if (typeof value === "bigint") return { $bigint: value.toString() };
  if (typeof value === "number" && !Number.isFinite(value)) return { $number: String(value) };
  if (value instanceof Uint8Array)
    return { $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
  if (Array.isArray(value)) return value.map(toTaggedJson);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = toTaggedJson(item);
    return out;
  }
  return value;
}

/** The inverse of {@link toTaggedJson}. */
export function fromTaggedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromTaggedJson);
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (typeof o.$bigint === "string") return BigInt(o.$bigint);
    if (typeof o.$number === "string") return Number(o.$number);
    if (typeof o.$bytes === "string") return new Uint8Array(Buffer.from(o.$bytes, "base64"));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(o)) out[key] = fromTaggedJson(item);
    return out;
  }
  return value;
}
