// ph.x's standard output into the platform's property data: the zero-point energy from the
// frequencies of its last dynamical matrix, as Exabyte-io/express's espresso parser makes it
// (half the sum of the printed cm-1 frequencies, in eV; a negative, imaginary mode counts for
// nothing, as express's pattern takes only frequencies printed without a sign).
import type { UnitResults, UnitRun } from "../compute-types";
import { qeFailure } from "./pw-output";

/**
 * eV per cm-1, h·c/e with QE 6.7's own SI constants (Modules/constants.f90: H_PLANCK_SI,
 * C_SI, ELECTRONVOLT_SI, CODATA 2018 exact values): 1.239842e-4. express rounds it to 1.2398e-4,
 * 1.6e-5 off (1.5 µeV on Si's zero-point energy).
 */
export const EV_PER_CM1 = (6.62607015e-34 * 2.99792458e8 * 100) / 1.602176634e-19;

/** One mode's frequency as ph.x prints it (`freq (    4) =   15.4 [THz] =   515.6 [cm-1]`). */
export interface PhononMode {
  thz: number;
  cm1: number;
}

/** The marker ph.x prints before each dynamical matrix's frequencies. */
const DIAGONALIZING = "Diagonalizing the dynamical matrix";

/**
 * The modes of the last dynamical matrix ph.x diagonalized (the last q it computed: Γ alone in
 * the bank's `ph_gamma.in`), in the order printed; empty when it printed none.
 */
export function lastFrequencies(text: string): PhononMode[] {
  const start = text.lastIndexOf(DIAGONALIZING);
  if (start < 0) return [];
  const number = String.raw`[-+]?\d*\.\d+(?:[Ee][-+]?\d+)?`;
  const pattern = new RegExp(
    String.raw`freq\s*\(\s*\d+\)\s*=\s*(${number})\s*\[THz\]\s*=\s*(${number})\s*\[cm-1\]`,
    "g",
  );
  return [...text.slice(start).matchAll(pattern)].map((m) => ({ thz: Number(m[1]), cm1: Number(m[2]) }));
}

/** The zero-point energy in eV, ½Σħω over the real modes, or undefined without frequencies. */
export function zeroPointEnergy(modes: readonly PhononMode[]): number | undefined {
  if (modes.length === 0) return undefined;
  const sum = modes.reduce((total, m) => total + Math.max(m.cm1, 0), 0);
  return (sum / 2) * EV_PER_CM1;
}

/**
 * Why ph.x stopped without a result: its `%%%%` error block, or its linear response not
 * converging (`No convergence has been achieved`, after which it stops).
 */
export function phFailure(text: string): string | undefined {
  const block = qeFailure("ph.x", text);
  if (block) return block;
  if (/No convergence has been achieved/.test(text))
    return "ph.x: the phonon self-consistency (the linear response) did not converge.";
  return undefined;
}

/** The results a ph.x unit lists, from its run. */
export function phResults(run: UnitRun): UnitResults {
  const computed: UnitResults["computed"] = [];
  const notes: string[] = [];
  if (run.wanted.has("zero_point_energy")) {
    const value = zeroPointEnergy(lastFrequencies(run.output));
    if (value === undefined) notes.push(`${run.stem}: no zero-point energy: ph.x printed no frequencies.`);
    else computed.push({ name: "zero_point_energy", value, units: "eV" });
  }
  return { computed, notes };
}
