import { describe, expect, it } from "vitest";
import { cellToDraw } from "../../src/notebook/pictures/conventional-cell";
import { vectorsToParameters, type Matrix3 } from "../../src/structure/cell";
import { toPlatform } from "../../src/structure/structure";

// Primitive vectors of Setyawan and Curtarolo, Comput. Mater. Sci. 49, 299 (2010), for a = 3, b = 4, c = 5 Å.
const [a, b, c] = [3, 4, 5];
const PRIMITIVE = {
  FCC: [
    [0, a / 2, a / 2],
    [a / 2, 0, a / 2],
    [a / 2, a / 2, 0],
  ],
  BCC: [
    [-a / 2, a / 2, a / 2],
    [a / 2, -a / 2, a / 2],
    [a / 2, a / 2, -a / 2],
  ],
  BCT: [
    [-a / 2, a / 2, c / 2],
    [a / 2, -a / 2, c / 2],
    [a / 2, a / 2, -c / 2],
  ],
  ORCF: [
    [0, b / 2, c / 2],
    [a / 2, 0, c / 2],
    [a / 2, b / 2, 0],
  ],
  ORCI: [
    [-a / 2, b / 2, c / 2],
    [a / 2, -b / 2, c / 2],
    [a / 2, b / 2, -c / 2],
  ],
  ORCC: [
    [a / 2, -b / 2, 0],
    [a / 2, b / 2, 0],
    [0, 0, c],
  ],
} satisfies Record<string, Matrix3>;
type Centred = keyof typeof PRIMITIVE;
const EXPECTED: Record<Centred, { lengths: number[]; points: number; kind: string }> = {
  FCC: { lengths: [a, a, a], points: 4, kind: "conventional cubic" },
  BCC: { lengths: [a, a, a], points: 2, kind: "conventional cubic" },
  BCT: { lengths: [a, a, c], points: 2, kind: "conventional tetragonal" },
  ORCF: { lengths: [a, b, c], points: 4, kind: "conventional orthorhombic" },
  ORCI: { lengths: [a, b, c], points: 2, kind: "conventional orthorhombic" },
  ORCC: { lengths: [a, b, c], points: 2, kind: "conventional orthorhombic" },
};

const oneAtom = (cell: Matrix3) => toPlatform(cell, [{ element: "Fe", fractional: [0, 0, 0] }]);

describe("cellToDraw", () => {
  it.each(Object.keys(PRIMITIVE) as Centred[])(
    "draws the %s lattice in its conventional standard cell: orthogonal, the textbook lengths, its lattice points",
    (type) => {
      const drawn = cellToDraw(oneAtom(PRIMITIVE[type]), "conventional");
      const p = vectorsToParameters(drawn.cell);
      expect([p.a, p.b, p.c].map((x) => Number(x.toFixed(9))).sort()).toEqual(EXPECTED[type].lengths);
      expect([p.alpha, p.beta, p.gamma].map((x) => Number(x.toFixed(9)))).toEqual([90, 90, 90]);
      expect(drawn.sites).toHaveLength(EXPECTED[type].points);
      expect(drawn.kind).toBe(EXPECTED[type].kind);
    },
  );

  it("keeps the record's cell when asked for the primitive one, or when the lattice is not centred", () => {
    expect(cellToDraw(oneAtom(PRIMITIVE.BCC), "primitive").kind).toBe("primitive");
    const simple = cellToDraw(
      oneAtom([
        [3, 0, 0],
        [0, 4, 0],
        [1, 1, 5],
      ]),
      "conventional",
    );
    expect(simple.kind).toBe("unit");
    expect(simple.cell).toEqual([
      [3, 0, 0],
      [0, 4, 0],
      [1, 1, 5],
    ]);
  });
});
