import { describe, expect, it } from "vitest";
import { OptimadeClient } from "../../../src";
import { startFakeProvider } from "../../support/optimade-fake";
import { hasPymatgen, python, type Reference } from "../../support/symmetry-ref";
import { at } from "../../support/checked";

// An OPTIMADE structure's derived volume and density against pymatgen's Structure.volume and
// .density, the values Materials Project users know, for elements the atomic-weight table gained
// (Ce, U), one it had without an electronegativity (Xe), and one with no standard weight (Tc).

/** The fake provider's cell edge of entry i (a cubic cell of two atoms, at 0 and the body centre). */
const edge = (i: number) => 4 + i / 10;
const ELEMENTS: Readonly<Record<number, readonly [string, string]>> = {
  0: ["Ce", "O"],
  1: ["Tc", "Tc"],
  2: ["Xe", "Xe"],
  3: ["U", "O"],
  5: ["Tc", "O"],
};
/** The fake's own elements where ELEMENTS names none: rock salt at even i, silicon at odd. */
const elementsOf = (i: number): readonly [string, string] => ELEMENTS[i] ?? (i % 2 === 0 ? ["Na", "Cl"] : ["Si", "Si"]);

if (!hasPymatgen)
  console.warn("\n*** SKIPPED the derived properties against pymatgen: python3-pymatgen is not importable. ***\n");

describe.runIf(hasPymatgen)("OPTIMADE derived properties against pymatgen", () => {
  it("volume equals pymatgen's for every structure, density wherever matframe gives one", async () => {
    const p = await startFakeProvider({ count: 6, elements: ELEMENTS });
    const op = new OptimadeClient({ baseUrl: p.base });
    let rows: [string, number | null, number | null][];
    try {
      const df = await op.structures.toDataFrame({
        columns: ["id", "derivedProperties.volume", "derivedProperties.density"],
        onWarning: () => {},
      });
      rows = df.values as [string, number | null, number | null][];
    } finally {
      await op.close();
      await p.close();
    }
    const structures = rows.map((_, i) => ({
      cell: [
        [edge(i), 0, 0],
        [0, edge(i), 0],
        [0, 0, edge(i)],
      ],
      scaled: [
        [0, 0, 0],
        [0.5, 0.5, 0.5],
      ],
      symbols: elementsOf(i),
    }));
    const refs = python(["analyze"], JSON.stringify(structures)) as Reference[];
    for (const [i, row] of rows.entries()) {
      const ref = at(refs, i, "pymatgen's reference");
      expect(row[1]).toBeCloseTo(ref.volume, 5);
      // pymatgen weighs Tc by a mass number (98); matframe leaves the density empty instead.
      if (elementsOf(i).includes("Tc")) expect(row[2]).toBeNull();
      else expect(Math.abs(defined(row[2]) / ref.density - 1)).toBeLessThan(1e-4);
    }
  });
});

function defined(x: number | null): number {
  expect(x).not.toBeNull();
  return x as number;
}
