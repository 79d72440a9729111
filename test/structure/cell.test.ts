import { describe, expect, it } from "vitest";
import {
  cartesianToFractional,
  cellVolume,
  fractionalToCartesian,
  fromCif,
  fromPoscar,
  parametersToVectors,
  StructureError,
  structureOf,
  toPoscar,
  type Vector3,
  vectorsToParameters,
} from "../../src";
import { parseSymmetryOperation } from "../../src/structure/cif";
import { exactCell, type Matrix3 } from "../../src/structure/cell";
import { AXES } from "./support/axes";
import { at } from "./support/checked";

// Hand-checked values: each expected number below was worked out on paper from the definitions.

describe("cell maths", () => {
  it("a cubic cell is a diagonal matrix", () => {
    expect(parametersToVectors({ a: 2, b: 3, c: 4, alpha: 90, beta: 90, gamma: 90 })).toEqual([
      [2, 0, 0],
      [0, 3, 0],
      [0, 0, 4],
    ]);
  });

  it("a hexagonal cell has b at 120° in the xy plane and volume √3/2·a²·c", () => {
    const cell = parametersToVectors({ a: 1, b: 1, c: 2, alpha: 90, beta: 90, gamma: 120 });
    expect(cell[1][0]).toBeCloseTo(-0.5, 12);
    expect(cell[1][1]).toBeCloseTo(Math.sqrt(3) / 2, 12);
    expect(cell[2]).toEqual([0, 0, 2]);
    expect(cellVolume(cell)).toBeCloseTo(Math.sqrt(3), 12);
  });

  it("silicon's primitive FCC cell (a = 3.867 Å, 60°) holds a quarter of the 5.4687 Å cube", () => {
    const cell = parametersToVectors({ a: 3.867, b: 3.867, c: 3.867, alpha: 60, beta: 60, gamma: 60 });
    // a_conv = a·√2; V_prim = a_conv³/4 = a³/√2
    expect(cellVolume(cell)).toBeCloseTo(3.867 ** 3 / Math.SQRT2, 9);
  });

  it("parameters survive vectors and back, for a triclinic cell", () => {
    const p = { a: 5.1, b: 6.3, c: 7.7, alpha: 81.2, beta: 97.4, gamma: 103.9 };
    const back = vectorsToParameters(parametersToVectors(p));
    for (const key of Object.keys(p) as (keyof typeof p)[]) expect(back[key]).toBeCloseTo(p[key], 10);
  });

  it("fractional and cartesian coordinates are inverses", () => {
    const cell = parametersToVectors({ a: 5.1, b: 6.3, c: 7.7, alpha: 81.2, beta: 97.4, gamma: 103.9 });
    const f: Vector3 = [0.12, 0.5, 0.93];
    const back = cartesianToFractional(fractionalToCartesian(f, cell), cell);
    for (const k of AXES) expect(back[k]).toBeCloseTo(f[k], 12);
    // The centre of a 2x3x4 box is at (1, 1.5, 2).
    expect(
      fractionalToCartesian([0.5, 0.5, 0.5], parametersToVectors({ a: 2, b: 3, c: 4, alpha: 90, beta: 90, gamma: 90 })),
    ).toEqual([1, 1.5, 2]);
  });

  it("refuses angles that make no cell", () => {
    expect(() => parametersToVectors({ a: 1, b: 1, c: 1, alpha: 10, beta: 10, gamma: 100 })).toThrow(
      /do not make a cell/,
    );
    expect(() => parametersToVectors({ a: -1, b: 1, c: 1, alpha: 90, beta: 90, gamma: 90 })).toThrow(/positive length/);
  });
});

describe("symmetry operations", () => {
  it.each<[string, Vector3, Vector3]>([
    ["x, y, z", [0.1, 0.2, 0.3], [0.1, 0.2, 0.3]],
    ["-x+1/2, y, -z", [0.1, 0.2, 0.3], [0.4, 0.2, -0.3]],
    ["x-y, x, z+1/2", [0.5, 0.25, 0.1], [0.25, 0.5, 0.6]],
    ["1/2+x, -y+0.5, 2*z", [0.1, 0.2, 0.3], [0.6, 0.3, 0.6]],
    ["-X,-Y,-Z", [0.1, 0.2, 0.3], [-0.1, -0.2, -0.3]],
  ])("%s", (op, f, expected) => {
    const image = parseSymmetryOperation(op)(f);
    for (const k of AXES) expect(image[k]).toBeCloseTo(expected[k], 12);
  });

  it("says which term it cannot read", () => {
    expect(() => parseSymmetryOperation("x, y")).toThrow(/three parts/);
    expect(() => parseSymmetryOperation("x, y, q")).toThrow(/term "q"/);
  });
});

const SI = {
  _id: "si",
  name: "Si",
  formula: "Si",
  lattice: { a: 3.867, b: 3.867, c: 3.867, alpha: 60, beta: 60, gamma: 60 },
  basis: {
    units: "crystal",
    elements: [
      { id: 0, value: "Si" },
      { id: 1, value: "Si" },
    ],
    coordinates: [
      { id: 0, value: [0, 0, 0] },
      { id: 1, value: [0.25, 0.25, 0.25] },
    ],
  },
};

describe("records whose basis and lattice disagree", () => {
  it.each([
    [
      "more elements than coordinates",
      { ...SI.basis, coordinates: [SI.basis.coordinates[0]] },
      /2 elements but 1 coordinates/,
    ],
    [
      "ids that do not match",
      { ...SI.basis, coordinates: [SI.basis.coordinates[0], { id: 7, value: [0.25, 0.25, 0.25] }] },
      /element id 1 \(Si\) has no coordinate/,
    ],
    ["unknown units", { ...SI.basis, units: "bohr" }, /basis units "bohr"/],
    [
      "a coordinate that is not three numbers",
      { ...SI.basis, coordinates: [SI.basis.coordinates[0], { id: 1, value: [0.25, 0.25] }] },
      /coordinate 1 is not three finite numbers/,
    ],
    [
      "a symbol that is not an element",
      { ...SI.basis, elements: [SI.basis.elements[0], { id: 1, value: "silicon" }] },
      /"silicon" is not an element symbol/,
    ],
  ])("%s: a StructureError naming the record", (_, basis, message) => {
    const error = (() => {
      try {
        structureOf({ ...SI, basis } as never);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StructureError);
    expect((error as StructureError).message).toMatch(message);
    expect((error as StructureError).message).toMatch(/material si/);
    expect((error as StructureError).id).toBe("si");
  });

  it("reads cartesian bases as well as crystal ones", () => {
    const cartesian = structureOf({
      ...SI,
      basis: {
        ...SI.basis,
        units: "cartesian",
        coordinates: structureOf(SI as never).sites.map((s, id) => ({ id, value: s.cartesian })),
      },
    } as never);
    for (const x of at(cartesian.sites, 1, "the sites").fractional) expect(x).toBeCloseTo(0.25, 12);
  });
});

describe("readers say what they do not support", () => {
  it("a VASP 4 POSCAR without a species line", () => {
    expect(() => fromPoscar("Si\n1.0\n1 0 0\n0 1 0\n0 0 1\n2\nDirect\n0 0 0\n0.5 0.5 0.5\n")).toThrow(/VASP 4/);
  });

  it("a POSCAR round trip keeps an interleaved species order, and a negative scale is a volume", () => {
    const text = toPoscar(SI as never);
    const back = fromPoscar(text);
    expect(back.basis.elements.map((e) => e.value)).toEqual(["Si", "Si"]);
    const scaled = fromPoscar("box\n-8\n1 0 0\n0 1 0\n0 0 1\nNa Cl Na\n1 1 1\nCartesian\n0 0 0\n0.5 0 0\n0 0.5 0\n");
    expect(scaled.lattice.a).toBeCloseTo(2, 12);
    expect(scaled.basis.elements.map((e) => e.value)).toEqual(["Na", "Cl", "Na"]);
    expect(at(at(scaled.basis.coordinates, 1, "the coordinates").value, 0, "the second position")).toBeCloseTo(0.5, 12);
  });

  it("a CIF with partial occupancy, without fractional sites, or without a data block", () => {
    const cif = (sites: string) =>
      `data_x\n_cell_length_a 4\n_cell_length_b 4\n_cell_length_c 4\n_cell_angle_alpha 90\n_cell_angle_beta 90\n_cell_angle_gamma 90\n${sites}`;
    expect(() =>
      fromCif(
        cif(
          "loop_\n_atom_site_label\n_atom_site_fract_x\n_atom_site_fract_y\n_atom_site_fract_z\n_atom_site_occupancy\nFe1 0 0 0 0.5\n",
        ),
      ),
    ).toThrow(/occupancy 0.5; only fully occupied/);
    expect(() =>
      fromCif(cif("loop_\n_atom_site_label\n_atom_site_Cartn_x\n_atom_site_Cartn_y\n_atom_site_Cartn_z\nFe1 0 0 0\n")),
    ).toThrow(/cartesian/);
    expect(() => fromCif("_cell_length_a 4\n")).toThrow(/no data_ block/);
    const ok = fromCif(
      cif(
        "loop_\n_atom_site_label\n_atom_site_fract_x\n_atom_site_fract_y\n_atom_site_fract_z\nFe1 0 0 0\nO2 0.5(1) 0.5 0.5\n",
      ),
    );
    expect(ok.basis.elements.map((e) => e.value)).toEqual(["Fe", "O"]);
  });
});

describe("exactCell", () => {
  // The Materials Project's silicon (mp-149) as published: a = 3.866976 Å, b = c = 3.866975 Å.
  const mp149: Matrix3 = [
    [3.866976, 0, 0],
    [1.9334875, 3.3488985858, 0],
    [1.9334875, 1.1162995286, 3.157371866],
  ];

  it("makes a cell exact within its rounding, in its own orientation", () => {
    const exact = exactCell(mp149);
    expect(exact).toBeDefined();
    const { a, b, c, alpha, beta, gamma } = vectorsToParameters(exact!.cell);
    // Equal to each other, at the published lengths' mean (within the vectors' own rounding).
    expect(Math.max(a, b, c) - Math.min(a, b, c)).toBeLessThan(1e-12);
    expect(a).toBeCloseTo((3.866976 + 2 * 3.866975) / 3, 9);
    for (const angle of [alpha, beta, gamma]) expect(angle).toBeCloseTo(60, 10);
    // a stays along x, b in the xy plane, and nothing moves by more than the rounding.
    expect(Math.abs(exact!.cell[0][1]) + Math.abs(exact!.cell[0][2]) + Math.abs(exact!.cell[1][2])).toBeLessThan(1e-12);
    const moved = exact!.cell.flatMap((row, i) => row.map((x, j) => Math.abs(x - mp149[i]![j]!)));
    expect(Math.max(...moved)).toBeLessThan(1e-6);
    expect(exact!.from.a).toBeCloseTo(3.866976, 9);
  });

  it("keeps a turned cell's orientation", () => {
    // The same cell turned 30° about z then 20° about x: the exact one is turned alike.
    const turn = (v: Vector3): Vector3 => {
      const [x, y, z] = v;
      const [c1, s1] = [Math.cos(Math.PI / 6), Math.sin(Math.PI / 6)];
      const [x1, y1] = [c1 * x - s1 * y, s1 * x + c1 * y];
      const [c2, s2] = [Math.cos(Math.PI / 9), Math.sin(Math.PI / 9)];
      return [x1, c2 * y1 - s2 * z, s2 * y1 + c2 * z];
    };
    const turned = mp149.map(turn) as Matrix3;
    const exact = exactCell(turned);
    const expected = exactCell(mp149)!.cell.map(turn);
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++) expect(exact!.cell[i]![j]).toBeCloseTo(expected[i]![j]!, 12);
  });

  it("leaves an exact cell, and lengths or angles that differ by more than rounding, as they are", () => {
    const fcc = parametersToVectors({ a: 3.867, b: 3.867, c: 3.867, alpha: 60, beta: 60, gamma: 60 });
    expect(exactCell(fcc)).toBeUndefined();
    const tetragonal = parametersToVectors({ a: 3.86, b: 3.86, c: 3.87, alpha: 90, beta: 90, gamma: 90 });
    expect(exactCell(tetragonal)).toBeUndefined();
    const monoclinic = parametersToVectors({ a: 5, b: 6, c: 7, alpha: 90, beta: 90.01, gamma: 90 });
    expect(exactCell(monoclinic)).toBeUndefined();
  });
});
