// A platform material as an OPTIMADE structure (spec section 7.2, "Structures Entries"): the cell
// and sites from `structure`, the composition properties the spec defines, and matframe's own
// properties under the `_matframe_` prefix.
import { cellOf, structureOf, type StructureRecord } from "../../structure/structure";

/** The prefix of matframe's own properties (spec section 2.1: "database-provider-specific"). */
export const PROVIDER_PREFIX = "matframe";

/** What /info/structures says of each property: its type, and its unit where it has one. */
export const STRUCTURE_PROPERTIES: Readonly<Record<string, { type: string; description: string; unit?: string }>> = {
  id: { type: "string", description: "The material's id on the platform." },
  type: { type: "string", description: 'Always "structures".' },
  immutable_id: { type: "string", description: "The material's id on the platform, which never changes." },
  last_modified: { type: "timestamp", description: "When the material was created on the platform." },
  elements: { type: "list", description: "The elements, in alphabetical order." },
  nelements: { type: "integer", description: "How many different elements." },
  elements_ratios: { type: "list", description: "Each element's share of the sites, in the order of elements." },
  chemical_formula_descriptive: { type: "string", description: "The platform's formula of the material." },
  chemical_formula_reduced: { type: "string", description: "Elements in alphabetical order with reduced counts." },
  chemical_formula_hill: { type: "string", description: "The reduced formula in Hill order." },
  chemical_formula_anonymous: { type: "string", description: "The reduced formula with counts sorted, as A, B, C..." },
  dimension_types: { type: "list", description: "Periodicity along each lattice vector: always [1, 1, 1]." },
  nperiodic_dimensions: { type: "integer", description: "Always 3." },
  lattice_vectors: { type: "list", description: "The cell's vectors.", unit: "Å" },
  cartesian_site_positions: { type: "list", description: "Each site's position.", unit: "Å" },
  nsites: { type: "integer", description: "How many sites." },
  species_at_sites: { type: "list", description: "The species of each site." },
  species: { type: "list", description: "One species per element, wholly present." },
  structure_features: { type: "list", description: "Always empty: every site is one whole atom." },
  _matframe_name: { type: "string", description: "The material's name on the platform." },
  _matframe_lattice_type: { type: "string", description: "The platform's Bravais lattice type (CUB, FCC, ...)." },
  _matframe_density: { type: "float", description: "The platform's density of the material.", unit: "g/cm^3" },
  _matframe_volume: { type: "float", description: "The platform's volume of the cell.", unit: "Å^3" },
};

/** An entry's attributes, or undefined for a material whose structure is malformed. */
export type StructureAttributes = Record<string, unknown>;

const entries = new WeakMap<object, StructureAttributes | null>();

/** The structure attributes of a material (computed once per stored record), or undefined when its structure is malformed. */
export function structureAttributes(
  record: Record<string, unknown> & { _id: string },
): StructureAttributes | undefined {
  let attributes = entries.get(record);
  if (attributes === undefined) {
    attributes = toAttributes(record);
    entries.set(record, attributes);
  }
  return attributes ?? undefined;
}

function toAttributes(record: Record<string, unknown> & { _id: string }): StructureAttributes | null {
  let sites: { element: string; cartesian: number[] }[];
  let cell: number[][];
  try {
    const structure = structureOf(record as unknown as StructureRecord);
    sites = structure.sites;
    cell = cellOf(record as unknown as StructureRecord);
  } catch {
    return null;
  }
  if (sites.length === 0) return null;
  const counts = new Map<string, number>();
  for (const site of sites) counts.set(site.element, (counts.get(site.element) ?? 0) + 1);
  const elements = [...counts.keys()].sort();
  const divisor = [...counts.values()].reduce(gcd);
  const reduced = (order: readonly string[]) =>
    order.map((e) => `${e}${counts.get(e)! / divisor === 1 ? "" : counts.get(e)! / divisor}`).join("");
  const anonymous = [...counts.values()]
    .map((n) => n / divisor)
    .sort((a, b) => b - a)
    .map((n, i) => `${anonymousName(i)}${n === 1 ? "" : n}`)
    .join("");
  const derived = Array.isArray(record.derivedProperties)
    ? (record.derivedProperties as { name?: unknown; value?: unknown }[])
    : [];
  const named = (name: string) => {
    const value = derived.find((p) => p?.name === name)?.value;
    return typeof value === "number" ? value : null;
  };
  const lattice = record.lattice as { type?: unknown } | undefined;
  return {
    immutable_id: record._id,
    last_modified: typeof record.createdAt === "string" ? record.createdAt : null,
    elements,
    nelements: elements.length,
    elements_ratios: elements.map((e) => counts.get(e)! / sites.length),
    chemical_formula_descriptive: typeof record.formula === "string" ? record.formula : reduced(elements),
    chemical_formula_reduced: reduced(elements),
    chemical_formula_hill: reduced(hillOrder(elements)),
    chemical_formula_anonymous: anonymous,
    dimension_types: [1, 1, 1],
    nperiodic_dimensions: 3,
    lattice_vectors: cell.map((v) => [...v]),
    cartesian_site_positions: sites.map((s) => [...s.cartesian]),
    nsites: sites.length,
    species_at_sites: sites.map((s) => s.element),
    species: elements.map((e) => ({ name: e, chemical_symbols: [e], concentration: [1.0] })),
    structure_features: [],
    _matframe_name: typeof record.name === "string" ? record.name : null,
    _matframe_lattice_type: typeof lattice?.type === "string" ? lattice.type : null,
    _matframe_density: named("density"),
    _matframe_volume: named("volume"),
  };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** A, B, ..., Z, Aa, Ba, ... (spec: `chemical_formula_anonymous`). */
function anonymousName(i: number): string {
  const letter = String.fromCharCode(65 + (i % 26));
  return i < 26 ? letter : `${letter}${String.fromCharCode(97 + Math.floor(i / 26) - 1)}`;
}

/** Hill order: C first, then H, then the rest alphabetically; without carbon, all alphabetically. */
function hillOrder(elements: readonly string[]): string[] {
  if (!elements.includes("C")) return [...elements];
  return ["C", ...(elements.includes("H") ? ["H"] : []), ...elements.filter((e) => e !== "C" && e !== "H")];
}
