import { describe, expect, it } from "vitest";
import { cellToDraw, conventionalVectors } from "../../src/notebook/conventional-cell";
import { vectorsToParameters, type Matrix3, type Vector3 } from "../../src/structure/cell";

// Primitive vectors of Setyawan and Curtarolo, Comput. Mater. Sci. 49, 299 (2010), for a = 3, b = 4, c = 5 Å.
const [a, b, c] = [3, 4, 5];
const PRIMITIVE: Record<string, Matrix3> = {
  FCC: [[0, a / 2, a / 2], [a / 2, 0, a / 2], [a / 2, a / 2, 0]],
  BCC: [[-a / 2, a / 2, a / 2], [a / 2, -a / 2, a / 2], [a / 2, a / 2, -a / 2]],
  BCT: [[-a / 2, a / 2, c / 2], [a / 2, -a / 2, c / 2], [a / 2, a / 2, -c / 2]],
  ORCF: [[0, b / 2, c / 2], [a / 2, 0, c / 2], [a / 2, b / 2, 0]],
  ORCI: [[-a / 2, b / 2, c / 2], [a / 2, -b / 2, c / 2], [a / 2, b / 2, -c / 2]],
  ORCC: [[a / 2, -b / 2, 0], [a / 2, b / 2, 0], [0, 0, c]],
};
const EXPECTED: Record<string, [number, number, number]> = {
  FCC: [a, a, a],
  BCC: [a, a, a],
  BCT: [a, a, c],
  ORCF: [a, b, c],
  ORCI: [a, b, c],
  ORCC: [a, b, c],
};

describe("conventionalVectors", () => {
  it.each(Object.keys(PRIMITIVE))("finds the %s conventional cell: orthogonal, right-handed, the textbook lengths", (type) => {
    const cell = conventionalVectors(PRIMITIVE[type], type)!;
    const p = vectorsToParameters(cell);
    expect([p.a, p.b, p.c].map((x) => Number(x.toFixed(9)))).toEqual(EXPECTED[type]);
    expect([p.alpha, p.beta, p.gamma].map((x) => Number(x.toFixed(9)))).toEqual([90, 90, 90]);
  });

  it("gives none for a lattice type without a centred conventional cell, or a cell that is not its type", () => {
    expect(conventionalVectors(PRIMITIVE.FCC, "HEX")).toBeUndefined();
    expect(conventionalVectors([[3, 0, 0], [0, 4, 0], [1, 1, 5]], "FCC")).toBeUndefined();
  });
});

describe("cellToDraw", () => {
  it("fills the BCC cube with its two lattice points, and keeps a cell whose type does not fit as primitive", () => {
    const sites = [{ element: "Fe", fractional: [0, 0, 0] as Vector3 }];
    const cube = cellToDraw(PRIMITIVE.BCC, sites, "BCC", "conventional");
    expect(cube.kind).toBe("conventional cubic");
    expect(cube.sites.map((s) => s.fractional.map((x) => Number(x.toFixed(9))))).toEqual(expect.arrayContaining([[0, 0, 0], [0.5, 0.5, 0.5]]));
    expect(cube.sites).toHaveLength(2);
    expect(cellToDraw(PRIMITIVE.BCC, sites, "BCC", "primitive").kind).toBe("primitive");
    expect(cellToDraw([[3, 0, 0], [0, 4, 0], [1, 1, 5]], sites, "FCC", "conventional").kind).toBe("primitive");
  });
});
