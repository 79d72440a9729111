import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compositionOf, ELECTRONEGATIVITY } from "../../src/structure/composition";
import { PYTHON, pythonImports } from "../support/python";

// Every formula matframe writes (the bundled materials, the 1,056 reference materials, and the
// formula the local platform computes on write) must read as pymatgen's `reduced_formula`, the
// formula Materials Project shows: peroxides `Li2O2` not `LiO`, diatomic elements `O2`,
// polyanions `Ni(AsO3)2`. The reference is Debian's python3-pymatgen, not our rule.
const SCRIPT = join(__dirname, "reduced_formula.py");
const hasPymatgen = pythonImports("pymatgen.core");
if (!hasPymatgen && process.env.MATFRAME_REQUIRE_JUPYTER === "1")
  throw new Error("python3-pymatgen is missing: apt-get install python3-pymatgen");

type Counts = [string, number][];

function pymatgen(compositions: Counts[]): string[] {
  return JSON.parse(
    execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify(compositions), encoding: "utf8", maxBuffer: 64 << 20 }),
  );
}

const sites = (counts: Counts) => counts.flatMap(([element, n]) => Array<string>(n).fill(element));

interface Material {
  _id: string;
  formula: string;
  basis: { elements: { value: string }[] };
}
const read = (file: string) =>
  JSON.parse(readFileSync(join(__dirname, "..", "..", "data", file), "utf8")) as Material[];

// A seeded generator: the same compositions on every run, so a failure can be replayed.
function* randomCompositions(seed: number, count: number): Generator<Counts> {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const symbols = Object.keys(ELECTRONEGATIVITY);
  for (let i = 0; i < count; i++) {
    const chosen = new Set<string>();
    const size = 1 + next(4);
    while (chosen.size < size) chosen.add(symbols[next(symbols.length)]!);
    const factor = 1 + next(3);
    yield [...chosen].map((element) => [element, factor * (1 + next(6))]);
  }
}

describe.runIf(hasPymatgen)("formulas, as pymatgen's reduced_formula writes them", () => {
  for (const file of ["materials.json", "reference-materials.json"]) {
    it(`every material of data/${file}: its stored formula and the one computed from its sites`, () => {
      const materials = read(file);
      const counts = materials.map((m) => {
        const tally = new Map<string, number>();
        for (const { value } of m.basis.elements) tally.set(value, (tally.get(value) ?? 0) + 1);
        return [...tally] as Counts;
      });
      const expected = pymatgen(counts);
      const wrong = materials
        .map((m, i) => ({
          id: m._id,
          stored: m.formula,
          computed: compositionOf(sites(counts[i]!)).formula,
          expected: expected[i],
        }))
        .filter((row) => row.stored !== row.expected || row.computed !== row.expected);
      expect(wrong).toEqual([]);
    });
  }

  it("peroxides, superoxides, diatomic elements, polyanions and 400 seeded random compositions", () => {
    const edges: Counts[] = [
      [
        ["Li", 2],
        ["O", 2],
      ],
      [
        ["Na", 4],
        ["O", 4],
      ],
      [
        ["K", 2],
        ["O", 2],
      ],
      [
        ["K", 1],
        ["O", 2],
      ],
      [
        ["Rb", 2],
        ["O", 4],
      ],
      [
        ["H", 2],
        ["O", 2],
      ],
      [["O", 8]],
      [["N", 2]],
      [["H", 4]],
      [["Cl", 2]],
      [["Si", 2]],
      [
        ["Ba", 1],
        ["N", 2],
        ["O", 6],
      ],
      [
        ["Ca", 1],
        ["C", 1],
        ["O", 3],
      ],
      [
        ["Ni", 2],
        ["As", 4],
        ["O", 12],
      ],
      [
        ["Li", 4],
        ["Fe", 4],
        ["P", 4],
        ["O", 16],
      ],
    ];
    const cases = [...edges, ...randomCompositions(48, 400)];
    const expected = pymatgen(cases);
    const wrong = cases
      .map((counts, i) => ({ counts, ours: compositionOf(sites(counts)).formula, pymatgen: expected[i] }))
      .filter((row) => row.ours !== row.pymatgen);
    expect(wrong).toEqual([]);
  });
});
