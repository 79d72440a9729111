import { deterministicId } from "./ids";
import type { StoredRecord } from "./store";

/** The tag every synthetic material carries (besides `isSynthetic: true`). */
export const SYNTHETIC_TAG = "synthetic";

/** Most synthetic materials one server makes. */
export const MAX_SYNTHETIC = 1_000_000;

/** Synthetic materials are dated after the real ones, one second apart. */
const SYNTHETIC_CREATED_AT = Date.parse("2024-06-01T00:00:00.000Z");

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Strain of the n-th copy of a material: -5% to +5% in steps of 0.25%, never 0. */
function strainOf(round: number): number {
  const step = round % 40;
  return (step < 20 ? step - 20 : step - 19) * 0.0025;
}

type LatticeVectors = { a: number[]; b: number[]; c: number[]; alat?: number; units?: string };

/** Vectors of a uniformly strained cell (every length times `scale`), as round as the lengths. */
function scaledVectors(v: LatticeVectors, scale: number): LatticeVectors {
  const scaled = (row: number[]) => row.map((x) => Math.round(x * scale * 1e10) / 1e10 + 0);
  return { ...v, a: scaled(v.a), b: scaled(v.b), c: scaled(v.c) };
}

/**
 * `count` deterministic variants of the real materials, for scale: isotropically strained copies
 * (lattice lengths scaled, volume and density recomputed from the scale), each with its own id and
 * name, `isSynthetic: true`, the tag `synthetic` and `derivedFrom` naming the original. The
 * same count always gives the same materials. Unchanged parts (basis, method, owner) are
 * shared between copies to keep memory small; records are never modified after creation.
 */
export function makeSyntheticMaterials(count: number, bases: readonly StoredRecord[]): StoredRecord[] {
  const usable = bases.filter((base) => typeof base.lattice === "object" && base.lattice !== null);
  if (count === 0 || usable.length === 0) return [];
  const tagsByBase = new Map(usable.map((base) => [base, [...((base.tags as string[]) ?? []), SYNTHETIC_TAG]]));
  const out: StoredRecord[] = new Array(count);
  for (let i = 0; i < count; i += 1) {
    const base = usable[i % usable.length]!; // usable is not empty (checked above)
    const strain = strainOf(Math.floor(i / usable.length));
    const scale = 1 + strain;
    const lattice = base.lattice as Record<string, unknown>;
    const percent = `${strain > 0 ? "+" : ""}${(strain * 100).toFixed(2)}%`;
    const record: StoredRecord = {
      _id: deterministicId(`synthetic:${i}:${base._id}`),
      name: `${String(base.name)}, synthetic ${percent} strain #${i + 1}`,
      formula: base.formula,
      unitCellFormula: base.unitCellFormula,
      lattice: {
        ...lattice,
        a: round6((lattice.a as number) * scale),
        b: round6((lattice.b as number) * scale),
        c: round6((lattice.c as number) * scale),
        ...(lattice.vectors ? { vectors: scaledVectors(lattice.vectors as LatticeVectors, scale) } : {}),
      },
      basis: base.basis,
      derivedProperties: ((base.derivedProperties as Array<{ name: string; value?: unknown }>) ?? []).map((p) =>
        typeof p.value !== "number"
          ? p
          : p.name === "volume"
            ? { ...p, value: round6(p.value * scale ** 3) }
            : p.name === "density"
              ? { ...p, value: round6(p.value / scale ** 3) }
              : p,
      ),
      tags: tagsByBase.get(base),
      owner: base.owner,
      createdAt: new Date(SYNTHETIC_CREATED_AT + i * 1000).toISOString(),
      isSynthetic: true,
      derivedFrom: { _id: base._id, strain: round6(strain) },
    };
    if (base.method !== undefined) record.method = base.method;
    out[i] = record;
  }
  return out;
}
