// Band gaps and the band structure from the bands a pw.x run wrote to its data file
// (outdir/PREFIX.save/data-file-schema.xml): every k-point's eigenvalues, also where the text
// output leaves them out (more than 100 k-points at low verbosity). As express's BandGaps: direct
// is the smallest gap at one k-point, indirect the conduction minimum over all k-points less the
// valence maximum. As express's BandStructure (its espresso XML parser's eigenvalues_at_kpoints):
// the k-points in crystal coordinates, one series per band in eV.
import { RYDBERG_EV } from "./pw-output";

const HARTREE_EV = 2 * RYDBERG_EV;

function numbers(text: string): number[] {
  return text.trim().split(/\s+/).map(Number);
}

type Vector = [number, number, number];

/** A k-point and the eigenvalues (eV) of its highest valence and lowest conduction band. */
interface KPoint {
  readonly k: Vector;
  readonly valence: number;
  readonly conduction: number;
}

/** Three numbers of a tag's text, or undefined when the tag is missing or holds another count. */
function vector(text: string | undefined): Vector | undefined {
  const [x, y, z, ...rest] = numbers(text ?? "");
  return x === undefined || y === undefined || z === undefined || rest.length > 0 ? undefined : [x, y, z];
}

function tag(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(xml)?.[1];
}

/** The cell of the data file (its vectors in bohr and `alat`), or undefined. */
function cellOf(xml: string): { vectors: [Vector, Vector, Vector]; alat: number } | undefined {
  const alat = Number(/<atomic_structure[^>]*alat="([^"]+)"/.exec(xml)?.[1]);
  const cellXml = /<cell>([\s\S]*?)<\/cell>/.exec(xml)?.[1] ?? "";
  const [a1, a2, a3] = ["a1", "a2", "a3"].map((a) => vector(tag(cellXml, a)));
  return a1 && a2 && a3 && alat > 0 ? { vectors: [a1, a2, a3], alat } : undefined;
}

/** A k-point of the data file (cartesian, 2π/alat) in the crystal coordinates of the reciprocal vectors. */
function crystal(k: Vector, cell: { vectors: Vector[]; alat: number }): number[] {
  return cell.vectors.map((a) => (k[0] * a[0] + k[1] * a[1] + k[2] * a[2]) / cell.alat);
}

type PropertyData = { data: Record<string, unknown> & { name: string } } | { reason: string };

/**
 * The `band_structure` property data as express makes it: `xDataArray` the k-points in crystal
 * coordinates, `yDataSeries` one series per band (eV; with spin, each band's spin-up series and
 * then its spin-down one), `spin` each series' spin; or why there is none.
 */
export function bandStructureFromXml(xml: string): PropertyData {
  const band = /<band_structure>([\s\S]*?)<\/band_structure>/.exec(xml)?.[1];
  if (!band) return { reason: "the data file has no band structure" };
  const cell = cellOf(xml);
  if (!cell) return { reason: "the data file has no cell" };
  const lsda = tag(band, "lsda")?.trim() === "true";
  // An LSDA run lists each k-point's spin-up bands and then its spin-down ones.
  const bands = Number(tag(band, lsda ? "nbnd_up" : "nbnd"));
  const spins = lsda ? [0.5, -0.5] : [0.5];
  const xDataArray: number[][] = [];
  const series: number[][] = Array.from({ length: bands * spins.length }, () => []);
  for (const [, block = ""] of band.matchAll(/<ks_energies>([\s\S]*?)<\/ks_energies>/g)) {
    const k = vector(tag(block, "k_point"));
    if (!k) return { reason: "the data file has a k-point without its three coordinates" };
    const e = numbers(tag(block, "eigenvalues") ?? "").map((h) => h * HARTREE_EV);
    if (!(bands > 0) || e.length !== series.length)
      return { reason: `the data file has ${e.length} eigenvalues at a k-point, not ${series.length}` };
    xDataArray.push(crystal(k, cell));
    for (let b = 0; b < bands; b++)
      for (let s = 0; s < spins.length; s++) series[b * spins.length + s]?.push(e[s * bands + b] as number);
  }
  if (xDataArray.length === 0) return { reason: "the data file has no k-points" };
  return {
    data: {
      name: "band_structure",
      // ESSE's manifest defaults for band_structure (express reads them there).
      xAxis: { label: "kpoints", units: "crystal" },
      yAxis: { label: "energy", units: "eV" },
      xDataArray,
      yDataSeries: series,
      spin: series.map((_, i) => spins[i % spins.length] as number),
    },
  };
}

/** The `band_gaps` property data (eV, k-points in crystal coordinates), or why there is none. */
export function bandGapsFromXml(xml: string): PropertyData {
  const lsda = tag(xml, "lsda")?.trim() === "true";
  const nelec = Number(tag(xml, "nelec"));
  const band = /<band_structure>([\s\S]*?)<\/band_structure>/.exec(xml)?.[1];
  if (!band || !(nelec > 0)) return { reason: "the data file has no band structure" };
  if (lsda || /<noncolin>true/.test(band))
    return { reason: "band gaps of spin-polarized or noncollinear runs are not computed yet" };
  const cell = cellOf(xml);
  if (!cell) return { reason: "the data file has no cell" };
  const toCrystal = (k: Vector) => crystal(k, cell).map((x) => Number(x.toFixed(4)));
  // Without spin, each band holds two electrons: the first nelec/2 bands are the valence ones.
  const occupied = Math.round(nelec / 2);
  const points: KPoint[] = [];
  for (const [, block = ""] of band.matchAll(/<ks_energies>([\s\S]*?)<\/ks_energies>/g)) {
    const k = vector(tag(block, "k_point"));
    const e = numbers(tag(block, "eigenvalues") ?? "").map((h) => h * HARTREE_EV);
    const valence = e[occupied - 1];
    const conduction = e[occupied];
    if (!k) return { reason: "the data file has a k-point without its three coordinates" };
    if (valence === undefined || conduction === undefined)
      return { reason: "the run has no empty bands to measure a gap to" };
    points.push({ k, valence, conduction });
  }
  const [first] = points;
  if (!first) return { reason: "the run has no empty bands to measure a gap to" };
  let vbm = first;
  let cbm = first;
  let direct = { gap: Number.POSITIVE_INFINITY, at: first };
  for (const p of points) {
    if (p.valence > vbm.valence) vbm = p;
    if (p.conduction < cbm.conduction) cbm = p;
    const gap = p.conduction - p.valence;
    if (gap < direct.gap) direct = { gap, at: p };
  }
  const indirect = Math.max(0, cbm.conduction - vbm.valence);
  return {
    data: {
      name: "band_gaps",
      values: [
        {
          type: "direct",
          value: Math.max(0, direct.gap),
          units: "eV",
          kpointValence: toCrystal(direct.at.k),
          kpointConduction: toCrystal(direct.at.k),
          eigenvalueValence: direct.at.valence,
          eigenvalueConduction: direct.at.conduction,
          spin: 0.5,
        },
        {
          type: "indirect",
          value: indirect,
          units: "eV",
          kpointValence: toCrystal(vbm.k),
          kpointConduction: toCrystal(cbm.k),
          eigenvalueValence: vbm.valence,
          eigenvalueConduction: cbm.conduction,
          spin: 0.5,
        },
      ],
    },
  };
}
