// How a property record's data becomes a results table's value columns, per kind. The shape of
// the data decides it: a list of typed values (ESSE's band_gaps, matframe's dielectric_constant)
// gives one column per type; ESSE's dielectric_tensor, a function of frequency, gives its static
// diagonal; a stress tensor its six independent components; total energy contributions one column
// per contribution; any other kind is read as a scalar's `value`. Every value column is a number
// (DOUBLE). A kind whose data is a curve or a value per atom (band_structure, atomic_forces ...)
// has no value a row can hold, and is refused by name with where its records are read.
import type { PlatformRecord } from "../../client/collection";
import { ResponseValidationError } from "../../errors";
import type { Query } from "../../schemas";

type Loose = Record<string, unknown> | undefined;

/** How one kind's data holds its values. */
export type PropertyShape =
  /** `{values: [{type, value, units}]}`: one column per type. */
  | "typedValues"
  /** ESSE's dielectric_tensor, `{values: [{part, frequencies, components: [[xx, yy, zz], ...]}]}`: the real part at frequency 0. */
  | "staticDiagonal"
  /** ESSE's stress_tensor, `{value: [[xx, xy, xz], [yx, yy, yz], [zx, zy, zz]]}`: the six Voigt components. */
  | "symmetricTensor"
  /** ESSE's total_energy_contributions, `{hartree: {value}, ewald: {value}, ...}`: one column per contribution. */
  | "namedScalars"
  /** `{value, units}`: one column, `value`. */
  | "scalar";

/** One property kind's value columns. */
export interface PropertyColumns {
  readonly slug: string;
  /** `["direct", "indirect"]` for band gaps; `["value"]` for a scalar property. */
  readonly parts: readonly string[];
  /** The units the values must carry (band gaps: eV); undefined when the record's own are kept. */
  readonly units?: string;
  readonly shape: PropertyShape;
}

/** The kinds whose data is not a scalar's `{value}`, and the parts that become columns. */
const KINDS: Readonly<Record<string, Omit<PropertyColumns, "slug">>> = Object.freeze({
  band_gaps: { shape: "typedValues", parts: ["direct", "indirect"], units: "eV" },
  // matframe's own kind (no ESSE schema): the static relative permittivity's polycrystalline average.
  dielectric_constant: { shape: "typedValues", parts: ["electronic", "total"], units: "dimensionless" },
  dielectric_tensor: { shape: "staticDiagonal", parts: ["xx", "yy", "zz"] },
  // Voigt's order, as pymatgen's Stress.voigt gives it.
  stress_tensor: { shape: "symmetricTensor", parts: ["xx", "yy", "zz", "yz", "xz", "xy"] },
  // ESSE's properties_directory/non_scalar/total_energy_contributions.json, in its order.
  total_energy_contributions: {
    shape: "namedScalars",
    parts: [
      "temperatureEntropy",
      "harrisFoulkes",
      "oneElectron",
      "hartree",
      "exchange",
      "exchangeCorrelation",
      "ewald",
      "alphaZ",
      "atomicEnergy",
      "eigenvalues",
      "PAWDoubleCounting2",
      "PAWDoubleCounting3",
      "hartreeFock",
    ],
  },
});

/**
 * The kinds whose data no table row can hold (ESSE's two-dimensional plots, values per atom, a
 * structure), each with what it is, for the refusal that says where to read them.
 */
const NOT_TABULAR: Readonly<Record<string, string>> = Object.freeze({
  band_structure: "energies of every band along a path of k-points",
  density_of_states: "a density of states over an energy range, total and per element and orbital",
  phonon_dos: "a phonon density of states over a frequency range",
  phonon_dispersions: "phonon frequencies along a path of q-points",
  potential_profile: "a potential along an axis",
  average_potential_profile: "an averaged potential along an axis",
  charge_density_profile: "a charge density along an axis",
  wavefunction_amplitude: "a wavefunction's amplitude along an axis",
  reaction_energy_profile: "energies along a reaction path",
  atomic_forces: "a force on each atom (total_force is their norm)",
  magnetic_moments: "a magnetic moment on each atom",
  final_structure: "a structure (lattice and basis)",
  vibrational_spectrum: "intensities over a frequency range",
  hubbard_u: "a Hubbard U for each atomic orbital",
  hubbard_v: "a Hubbard V for each pair of sites",
  hubbard_v_nn: "a Hubbard V for each pair of nearest neighbours",
  file_content: "a file's content",
});

/** What a kind is, when its records hold no value a table row can (a curve, a value per atom, a structure). */
export function notTabular(slug: string): string | undefined {
  return Object.hasOwn(NOT_TABULAR, slug) ? NOT_TABULAR[slug] : undefined;
}

/** The value columns of a property kind (its slug). */
export function propertyColumns(slug: string): PropertyColumns {
  return { slug, ...(KINDS[slug] ?? { shape: "scalar", parts: ["value"] }) };
}

/**
 * The condition on the property records that a condition on one value column amounts to, for the
 * properties request; undefined where the request cannot say it (the tensor's diagonal is an
 * element of an element of a list), so the joined rows alone are filtered.
 */
export function recordCondition(columns: PropertyColumns, part: string, condition: unknown): Query | undefined {
  switch (columns.shape) {
    case "typedValues":
      return { "data.values": { $elemMatch: { type: part, value: condition } } };
    case "scalar":
      return { "data.value": condition };
    case "namedScalars":
      return { [`data.${part}.value`]: condition };
    // A component is an element of an element of a list: the joined rows alone are filtered.
    case "symmetricTensor":
    case "staticDiagonal":
      return undefined;
  }
}

/** Where each Voigt component sits in the 3×3 matrix (xy is [0][1], which a symmetric one holds at [1][0] too). */
const VOIGT: Readonly<Record<string, readonly [number, number]>> = Object.freeze({
  xx: [0, 0],
  yy: [1, 1],
  zz: [2, 2],
  yz: [1, 2],
  xz: [0, 2],
  xy: [0, 1],
});

/** The value columns of one property kind: its own record's values, nothing for another kind's record. */
export function propertyCells(columns: PropertyColumns, property: PlatformRecord): Record<string, unknown> {
  const cells: Record<string, unknown> = {};
  const mine = property.slug === columns.slug;
  const data = (property.data ?? {}) as Record<string, unknown>;
  const values = Array.isArray(data.values) ? (data.values as Loose[]) : [];
  switch (columns.shape) {
    case "scalar":
      cells[`${columns.slug}.value`] = mine ? data.value : undefined;
      return cells;
    case "symmetricTensor": {
      const matrix = mine && Array.isArray(data.value) ? (data.value as unknown[]) : undefined;
      for (const part of columns.parts) {
        const [row, column] = VOIGT[part] ?? [0, 0];
        const entries = matrix?.[row];
        cells[`${columns.slug}.${part}`] = Array.isArray(entries) ? entries[column] : undefined;
      }
      return cells;
    }
    case "namedScalars":
      for (const part of columns.parts) {
        const entry = mine ? (data[part] as Loose) : undefined;
        cells[`${columns.slug}.${part}`] = entry?.value;
      }
      return cells;
    case "staticDiagonal": {
      const diagonal = mine ? staticDiagonal(values) : undefined;
      columns.parts.forEach((part, i) => {
        cells[`${columns.slug}.${part}`] = diagonal?.[i];
      });
      return cells;
    }
    case "typedValues":
      for (const part of columns.parts) {
        const entry = mine ? values.find((v) => v?.type === part) : undefined;
        if (entry && entry.units !== undefined && entry.units !== columns.units) {
          throw new ResponseValidationError(
            `Property ${property._id} gives its ${part} ${columns.slug} in ${String(entry.units)}; the ${columns.slug}.${part} column is in ${columns.units}, and matframe does not convert units.`,
            { endpoint: "GET properties", status: 200, issues: [] },
          );
        }
        cells[`${columns.slug}.${part}`] = entry?.value;
      }
      return cells;
  }
}

/**
 * The real part of a dielectric tensor's diagonal at frequency 0, when the record has one real
 * part there; a spin-resolved record (one real part per spin) has no single value, so none is made.
 */
function staticDiagonal(values: readonly Loose[]): unknown[] | undefined {
  const real = values.filter((v) => v?.part === "real");
  if (real.length !== 1) return undefined;
  const { frequencies, components } = real[0]!;
  if (!Array.isArray(frequencies) || !Array.isArray(components)) return undefined;
  const row = components[frequencies.indexOf(0)];
  return Array.isArray(row) ? row : undefined;
}
