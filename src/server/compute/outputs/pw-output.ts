// pw.x's standard output into the platform's property data (what Exabyte-io/express's espresso
// parser reads from the same text, in the units it gives them). The last value printed is the
// result: a relaxation prints one per ionic step. A capture group read with `!` is one its
// pattern always fills once the pattern matched.

/** QE 6.7's Rydberg in eV (Modules/constants.f90: RYTOEV); 13.6057 would be off by 1e-5 Ry. */
export const RYDBERG_EV = 13.605693122994;
/** QE 6.7's Bohr radius in Å (BOHR_RADIUS_ANGS). */
export const BOHR_ANGSTROM = 0.529177210903;
const RY_PER_BOHR_TO_EV_PER_ANGSTROM = RYDBERG_EV / BOHR_ANGSTROM;

const NUMBER = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[EeDd][-+]?\d+)?`;

function lastMatch(text: string, pattern: RegExp): RegExpExecArray | undefined {
  let last: RegExpExecArray | undefined;
  for (const match of text.matchAll(new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`)))
    last = match as RegExpExecArray;
  return last;
}

function num(text: string): number {
  return Number(text.replace(/[Dd]/, "e"));
}

/** The final total energy in Ry (the `!` line), or undefined when the SCF never converged. */
export function finalEnergyRy(text: string): number | undefined {
  const match = lastMatch(text, new RegExp(String.raw`^!\s+total energy\s+=\s+(${NUMBER})\s+Ry`, "m"));
  return match ? num(match[1]!) : undefined;
}

/**
 * Why a Quantum ESPRESSO program stopped without a result, from its own words (the `%%%%` error
 * block every QE program prints; pw.x's non-convergence).
 */
export function qeFailure(program: string, text: string): string | undefined {
  const block = /%{10,}\s*\n\s*Error in routine\s+(\S+)\s*\(\s*\d+\s*\):\s*\n\s*(.+?)\s*\n/s.exec(text);
  if (block) return `${program} stopped in ${block[1]}: ${block[2]!.trim()}`;
  if (/convergence NOT achieved/.test(text)) return `${program}: the self-consistent field did not converge.`;
  return undefined;
}

const CONTRIBUTIONS: [string, string, string][] = [
  ["harrisFoulkes", "harris_foulkes", "Harris-Foulkes estimate"],
  ["oneElectron", "one_electron", "one-electron contribution"],
  ["hartree", "hartree", "hartree contribution"],
  ["exchangeCorrelation", "exchange_correlation", "xc contribution"],
  ["ewald", "ewald", "ewald contribution"],
  ["temperatureEntropy", "temperature_entropy", String.raw`smearing contrib\. \(-TS\)`],
];

type Data = Record<string, unknown> & { name: string };

/** Every property the text holds, by the platform's name (the caller keeps those its unit names). */
export function parsePwOutput(text: string): Map<string, Data> {
  const found = new Map<string, Data>();
  const energy = finalEnergyRy(text);
  if (energy !== undefined)
    found.set("total_energy", { name: "total_energy", value: energy * RYDBERG_EV, units: "eV" });

  const contributions: Data = { name: "total_energy_contributions", units: "eV" };
  for (const [key, name, label] of CONTRIBUTIONS) {
    const match = lastMatch(text, new RegExp(String.raw`${label}\s+=\s+(${NUMBER})\s+Ry`));
    if (match) contributions[key] = { name, value: num(match[1]!) * RYDBERG_EV };
  }
  if (Object.keys(contributions).length > 2) found.set("total_energy_contributions", contributions);

  const fermi = lastMatch(text, new RegExp(String.raw`the Fermi energy is\s+(${NUMBER})\s+ev`));
  if (fermi) found.set("fermi_energy", { name: "fermi_energy", value: num(fermi[1]!), units: "eV" });

  const stress = lastMatch(
    text,
    new RegExp(String.raw`total\s+stress\s+\(Ry/bohr\*\*3\)\s+\(kbar\)\s+P=\s*(${NUMBER})\s*\n((?:.*\n){3})`),
  );
  if (stress) {
    found.set("pressure", { name: "pressure", value: num(stress[1]!), units: "kbar" });
    const rows = stress[2]!
      .trim()
      .split("\n")
      .map((line) => line.trim().split(/\s+/).slice(3, 6).map(num));
    found.set("stress_tensor", { name: "stress_tensor", value: rows, units: "kbar" });
  }

  const forcesBlock = lastMatch(
    text,
    /Forces acting on atoms[^\n]*\n\s*\n((?:\s*atom\s+\d+\s+type\s+\d+\s+force\s+=.*\n)+)/,
  );
  if (forcesBlock) {
    const values = [
      ...forcesBlock[1]!.matchAll(
        new RegExp(String.raw`atom\s+(\d+)\s+type\s+\d+\s+force\s+=\s+(${NUMBER})\s+(${NUMBER})\s+(${NUMBER})`, "g"),
      ),
    ].map((m) => ({
      id: Number(m[1]),
      value: [m[2]!, m[3]!, m[4]!].map((v) => num(v) * RY_PER_BOHR_TO_EV_PER_ANGSTROM),
    }));
    found.set("atomic_forces", { name: "atomic_forces", values, units: "eV/angstrom" });
  }
  const totalForce = lastMatch(text, new RegExp(String.raw`Total force\s+=\s+(${NUMBER})`));
  if (totalForce)
    found.set("total_force", {
      name: "total_force",
      value: num(totalForce[1]!) * RY_PER_BOHR_TO_EV_PER_ANGSTROM,
      units: "eV/angstrom",
    });
  return found;
}

/** A relaxation's final cell (Å) and crystal positions, from its "Begin final coordinates" block. */
export function finalCoordinates(
  text: string,
): { cell: number[][]; sites: { element: string; fractional: number[] }[] } | undefined {
  const [, block] = /Begin final coordinates([\s\S]*?)End final coordinates/.exec(text) ?? [];
  if (block === undefined) return undefined;
  const cellMatch = new RegExp(
    String.raw`CELL_PARAMETERS\s*\((angstrom|bohr|alat\s*=\s*(${NUMBER}))\)\s*\n((?:\s*${NUMBER}\s+${NUMBER}\s+${NUMBER}\s*\n){3})`,
  ).exec(block);
  const positions = /ATOMIC_POSITIONS\s*\((crystal)\)\s*\n([\s\S]*?)(?:\n\s*\n|$)/.exec(block);
  if (!cellMatch || !positions) return undefined;
  // `alat` is there only when the unit is `alat = <number>`, the one case that reads it.
  const [, unit, alat = "", rows = ""] = cellMatch;
  const scale = unit === "angstrom" ? 1 : unit === "bohr" ? BOHR_ANGSTROM : num(alat) * BOHR_ANGSTROM;
  const cell = rows
    .trim()
    .split("\n")
    .map((line) =>
      line
        .trim()
        .split(/\s+/)
        .map((v) => num(v) * scale),
    );
  const [, , siteLines = ""] = positions;
  const sites = siteLines
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .flatMap(([label = "", ...fractional]) =>
      fractional.length >= 3 && /^[A-Z][a-z]?\d*$/.test(label)
        ? [{ element: label.replace(/\d+$/, ""), fractional: fractional.slice(0, 3).map(num) }]
        : [],
    );
  return { cell, sites };
}
