// The p-norm of a material's elemental ratios, correctly rounded.
//
// `Math.pow` is not the same function on every Node line: V8 changed its implementation between
// Node 20 and Node 22, and `(Σ r⁵)^(1/5)` of the same ratios came out one unit in the last place
// apart (0.670782205695186 on 20, 0.6707822056951861, the nearest double, on 22 and 24). A stored property that
// depends on the Node version breaks the bundled dataset's byte-for-byte rebuild and makes the
// same record differ between two machines. So the sum is formed exactly (each ratio is a binary
// fraction m·2^e, its p-th power an integer times a power of two) and the root is rounded once,
// to nearest-even, from an exact integer root: the double nearest the true value, on any engine.
import { ValidationError } from "../errors";

const MANTISSA_BITS = 53;

/** `x = m · 2^e` exactly, for a finite `x > 0`. */
function binaryParts(x: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  return biased === 0 ? [fraction, -1074] : [fraction | (1n << 52n), biased - 1075];
}

const bitLength = (n: bigint): number => (n === 0n ? 0 : n.toString(2).length);

/** `⌊T^(1/p)⌋` by Newton's method on integers, from a start above the root. */
function integerRoot(t: bigint, p: number): bigint {
  if (t < 2n) return t;
  const pb = BigInt(p);
  let x = 1n << BigInt(Math.ceil(bitLength(t) / p));
  for (;;) {
    const y = ((pb - 1n) * x + t / x ** (pb - 1n)) / pb;
    if (y >= x) return x;
    x = y;
  }
}

/** `x · 2^k`, by halving or doubling: exact while the result is a normal double. */
function scaleByPowerOfTwo(x: number, k: number): number {
  for (; k > 0; k--) x *= 2;
  for (; k < 0; k++) x /= 2;
  return x;
}

/**
 * The p-norm of the ratios, `(Σ |r|ᵖ)^(1/p)`, correctly rounded (the same double on every
 * engine); degree 0 gives the number of ratios, as the platform defines it.
 * @param degree A whole number: 0 or more (the platform's degrees are 0, 2, 3, 5, 7 and 10).
 * @example pNorm([0.5, 0.5], 2) // 0.7071067811865476
 */
export function pNorm(ratios: readonly number[], degree: number): number {
  if (!Number.isInteger(degree) || degree < 0)
    throw new ValidationError(
      "degree",
      `pNorm: the degree must be a whole number, 0 or more (the platform's degrees are 0, 2, 3, 5, 7 and 10); got ${degree}.`,
    );
  if (degree === 0) return ratios.length;
  const values = ratios.map(Math.abs);
  if (values.some((v) => !Number.isFinite(v))) return values.some(Number.isNaN) ? NaN : Infinity;
  const parts = values.filter((v) => v > 0).map(binaryParts);
  if (parts.length === 0) return 0;
  const p = degree;
  // Σ mᵖ·2^(p·e) = S·2^E with the smallest exponent as E.
  const exponent = Math.min(...parts.map(([, e]) => p * e));
  const sum = parts.reduce((s, [m, e]) => s + ((m ** BigInt(p)) << BigInt(p * e - exponent)), 0n);
  // (S·2^E)^(1/p) = (S·2^r)^(1/p) · 2^q with E = p·q + r, and the integer scaled by 2^(p·j) so its
  // root has at least three bits beyond the 53 a double keeps.
  const q = Math.floor(exponent / p);
  const radicandBits = bitLength(sum) + (exponent - p * q);
  const j = Math.max(0, Math.ceil((p * (MANTISSA_BITS + 3) - radicandBits) / p));
  const radicand = sum << BigInt(exponent - p * q + p * j);
  const root = integerRoot(radicand, p);
  const inexact = root ** BigInt(p) !== radicand;
  // Round the integer root to 53 bits, to nearest, ties to even; a nonzero remainder of the root
  // itself (`inexact`) breaks what would look like a tie.
  const shift = bitLength(root) - MANTISSA_BITS;
  const drop = BigInt(shift);
  let kept = root >> drop;
  const rest = root & ((1n << drop) - 1n);
  const half = 1n << (drop - 1n);
  if (rest > half || (rest === half && (inexact || (kept & 1n) === 1n))) kept += 1n;
  return scaleByPowerOfTwo(Number(kept), q - j + shift);
}
