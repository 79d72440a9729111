import { describe, expect, it } from "vitest";
import { parseFilter } from "../../../src/server/optimade/filter-grammar";
import { matchesFilter } from "../../../src/server/optimade/filter-match";

// The filter grammar against the spec's own examples (section 5.2) and its evaluation on small
// documents, including the null rule (a comparison on a missing property is false).

const si = {
  id: "m-1",
  type: "structures",
  elements: ["O", "Si"],
  nelements: 2,
  elements_ratios: [2 / 3, 1 / 3],
  chemical_formula_reduced: "O2Si",
  nsites: 6,
  _matframe_density: 2.6,
  _other_thing: null,
  species: [{ name: "Si" }],
  flag: true,
};

const cases: [string, boolean][] = [
  ["nelements=2", true],
  ["nelements = 3", false],
  ["3 < nsites", true],
  ["6 = nsites AND NOT nelements > 2", true],
  ['elements HAS "Si"', true],
  ['elements HAS ALL "Si", "O"', true],
  ['elements HAS ALL "Si", "Al"', false],
  ['elements HAS ANY "Al", "O"', true],
  ['elements HAS ONLY "Si", "O", "Al"', true],
  ['elements HAS ONLY "Si"', false],
  ['elements HAS > "P"', true],
  ["elements LENGTH 2", true],
  ["elements LENGTH >= 3", false],
  ['elements:elements_ratios HAS "Si":>0.3', true],
  ['elements:elements_ratios HAS "Si":>0.5', false],
  ['elements:elements_ratios HAS ALL "Si":<0.5, "O":>0.5', true],
  ['chemical_formula_reduced STARTS WITH "O2"', true],
  ['chemical_formula_reduced STARTS "Si"', false],
  ['chemical_formula_reduced ENDS "Si"', true],
  ['chemical_formula_reduced CONTAINS "2S"', true],
  ["_matframe_density > 2.5e0 OR nsites < 1", true],
  ["_other_thing IS UNKNOWN", true],
  ["_other_thing IS KNOWN", false],
  ["_missing = 1", false],
  ["_missing != 1", false],
  ["NOT _missing = 1", true],
  ['NOT (nelements=2 AND elements HAS "Si")', false],
  ['(nelements=1 OR nelements=2) AND NOT elements HAS "C"', true],
  ['nelements="2"', false],
  ["flag = TRUE", true],
  ['id = "m-1"', true],
  ["nsites > nelements", true],
  ['chemical_formula_reduced = "O2\\"Si"', false],
];

describe("OPTIMADE filters", () => {
  it.each(cases)("%s → %s", (filter, expected) => {
    expect(matchesFilter(parseFilter(filter), si)).toBe(expected);
  });

  it("parses the spec's examples", () => {
    for (const filter of [
      'chemical_formula_hill="H2O" AND dimension_types=[1,1,1]'.replace("=[1,1,1]", " LENGTH 3"),
      'NOT (chemical_formula_hill = "Al" AND chemical_formula_anonymous = "A" OR chemical_formula_anonymous = "H2O" AND NOT chemical_formula_hill = "Ti")',
      "_exmpl_bandgap > 5.0 AND _exmpl_molecular_weight < 350",
      'elements HAS ANY "C", "O"',
      "nsites<=-.5e-3",
      "a.b.c = 1",
    ])
      expect(() => parseFilter(filter)).not.toThrow();
  });

  it.each([
    "nelements=",
    "nelements == 2",
    "NELEMENTS=2",
    "elements HAS ALL",
    "(nelements=2",
    "nelements=2 AND",
    "nelements=2ANDnsites=1",
  ])("refuses %s with a location", (filter) => {
    let error: unknown;
    try {
      parseFilter(filter);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as { location?: unknown }).location).toBeDefined();
  });
});
