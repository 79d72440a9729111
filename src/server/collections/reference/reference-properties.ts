// The dielectric properties of a reference material, as property records' data: what matminer's
// dielectric_constant dataset gives beyond the band gap (Petousis et al. 2017: VASP density
// functional perturbation theory on the Materials Project's structures), each value as given.
// ESSE names one of them (dielectric_tensor); the two it has no schema for are matframe's own
// kinds, named as the platform names its kinds (snake_case, singular) and saying so in the record.

/** The dataset's columns of one material, as data/reference-results.json keeps them. */
export interface ReferenceDielectric {
  /** `e_electronic`: the electronic (clamped-ion) static dielectric tensor, ε∞, 3×3. */
  eElectronic: number[][];
  /** `e_total`: the total static dielectric tensor, electronic and ionic, ε0, 3×3. */
  eTotal: number[][];
  /** `poly_electronic`: the mean of the eigenvalues of `eElectronic`, to two decimals. */
  polyElectronic: number;
  /** `poly_total`: the mean of the eigenvalues of `eTotal`, to two decimals. */
  polyTotal: number;
  /** `n`: the refractive index, √(mean eigenvalue of `eElectronic`), to two decimals. */
  n: number;
  /** `pot_ferroelectric`: whether the authors flag the material as potentially ferroelectric. */
  potFerroelectric: boolean;
}

/** Relative permittivities and refractive indices are ratios; ESSE's units list has no word for that. */
export const DIMENSIONLESS = "dimensionless";

const DATASET =
  "from matminer's dielectric_constant dataset: Petousis et al., Sci. Data 4, 160134 (2017), doi:10.1038/sdata.2016.134, CC BY 4.0 " +
  "(Materials Project, VASP density functional perturbation theory, GGA-PBE, or GGA+U where the Materials Project applies U).";

/** matframe's words for a kind of its own, first in the record's description. */
const OWN_KIND = (name: string) =>
  `"${name}" is matframe's own property kind: ESSE has no schema for it (docs/results.md, "Dielectric properties").`;

/** One property record's data and where its values come from. */
export interface ReferenceProperty {
  data: Record<string, unknown>;
  description: string;
}

/**
 * The three records: ESSE's `dielectric_tensor` (the electronic tensor's diagonal, real part, at
 * frequency 0; ESSE's schema holds only a diagonal), and matframe's `dielectric_constant` (the
 * electronic and total polycrystalline averages, each with its full tensor) and
 * `refractive_index`.
 */
export function dielectricProperties(result: ReferenceDielectric): ReferenceProperty[] {
  const [x, y, z] = [0, 1, 2].map((i) => result.eElectronic[i]![i]!);
  return [
    {
      data: {
        name: "dielectric_tensor",
        values: [{ part: "real", frequencies: [0], components: [[x, y, z]] }],
      },
      description:
        "Materials Project static electronic dielectric tensor (ε∞, the ions clamped), its diagonal as ESSE's dielectric_tensor " +
        "at frequency 0, real part; relative permittivity, dimensionless (the full tensor, and the total one with the ions' response, " +
        `are in the material's dielectric_constant record), ${DATASET}`,
    },
    {
      data: {
        name: "dielectric_constant",
        values: [
          { type: "electronic", value: result.polyElectronic, units: DIMENSIONLESS, tensor: result.eElectronic },
          { type: "total", value: result.polyTotal, units: DIMENSIONLESS, tensor: result.eTotal },
        ],
        potentiallyFerroelectric: result.potFerroelectric,
      },
      description:
        `${OWN_KIND("dielectric_constant")} Materials Project static dielectric constants, relative permittivity, dimensionless: ` +
        "each value the mean of the eigenvalues of its tensor (the polycrystalline average), electronic (ε∞, the ions clamped) and " +
        "total (ε0, electronic and ionic), with the tensor; potentiallyFerroelectric is the dataset's pot_ferroelectric flag; " +
        DATASET,
    },
    {
      data: { name: "refractive_index", value: result.n, units: DIMENSIONLESS },
      description:
        `${OWN_KIND("refractive_index")} Materials Project refractive index, dimensionless: the square root of the electronic ` +
        `dielectric constant (n = √ε∞), ${DATASET}`,
    },
  ];
}
