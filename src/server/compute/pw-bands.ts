// Band gaps from the bands a pw.x run wrote to its data file (outdir/PREFIX.save/
// data-file-schema.xml): every k-point's eigenvalues, also where the text output leaves them out
// (more than 100 k-points at low verbosity). As express's BandGaps: direct is the smallest gap at
// one k-point, indirect the conduction minimum over all k-points less the valence maximum.
import { RYDBERG_EV } from "./pw-output";

const HARTREE_EV = 2 * RYDBERG_EV;

function numbers(text: string): number[] {
  return text.trim().split(/\s+/).map(Number);
}

function tag(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(xml)?.[1];
}

/** The `band_gaps` property data (eV, k-points in crystal coordinates), or why there is none. */
export function bandGapsFromXml(
  xml: string,
): { data: Record<string, unknown> & { name: string } } | { reason: string } {
  const lsda = tag(xml, "lsda")?.trim() === "true";
  const nelec = Number(tag(xml, "nelec"));
  const band = /<band_structure>([\s\S]*?)<\/band_structure>/.exec(xml)?.[1];
  if (!band || !(nelec > 0)) return { reason: "the data file has no band structure" };
  if (lsda || /<noncolin>true/.test(band))
    return { reason: "band gaps of spin-polarized or noncollinear runs are not computed yet" };
  const alat = Number(/<atomic_structure[^>]*alat="([^"]+)"/.exec(xml)?.[1]);
  const cell = ["a1", "a2", "a3"].map((a) => numbers(tag(/<cell>([\s\S]*?)<\/cell>/.exec(xml)?.[1] ?? "", a) ?? ""));
  const toCrystal = (k: number[]) =>
    cell.map((a) => Number(((k[0] * a[0] + k[1] * a[1] + k[2] * a[2]) / alat).toFixed(4)));
  const points = [...band.matchAll(/<ks_energies>([\s\S]*?)<\/ks_energies>/g)].map((m) => ({
    k: numbers(tag(m[1], "k_point") ?? ""),
    e: numbers(tag(m[1], "eigenvalues") ?? "").map((h) => h * HARTREE_EV),
  }));
  // Without spin, each band holds two electrons: the first nelec/2 bands are the valence ones.
  const occupied = Math.round(nelec / 2);
  if (points.length === 0 || points.some((p) => p.e.length <= occupied))
    return { reason: "the run has no empty bands to measure a gap to" };
  let vbm = points[0];
  let cbm = points[0];
  let direct = { gap: Number.POSITIVE_INFINITY, at: points[0] };
  for (const p of points) {
    if (p.e[occupied - 1] > vbm.e[occupied - 1]) vbm = p;
    if (p.e[occupied] < cbm.e[occupied]) cbm = p;
    const gap = p.e[occupied] - p.e[occupied - 1];
    if (gap < direct.gap) direct = { gap, at: p };
  }
  const indirect = Math.max(0, cbm.e[occupied] - vbm.e[occupied - 1]);
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
          eigenvalueValence: direct.at.e[occupied - 1],
          eigenvalueConduction: direct.at.e[occupied],
          spin: 0.5,
        },
        {
          type: "indirect",
          value: indirect,
          units: "eV",
          kpointValence: toCrystal(vbm.k),
          kpointConduction: toCrystal(cbm.k),
          eigenvalueValence: vbm.e[occupied - 1],
          eigenvalueConduction: cbm.e[occupied],
          spin: 0.5,
        },
      ],
    },
  };
}
