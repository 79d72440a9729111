// The Brillouin zone's special points of each Bravais lattice, and the default path through
// them, in the coordinates of the reciprocal vectors of the lattice's own cell: the data the
// platform's bands units get from made's ReciprocalLattice (`symmetryPoints`, `defaultKpointPath`).
// Data from Exabyte-io/made at 811d028c (Apache-2.0, Copyright 2019 Exabyte Inc.):
// src/js/lattice/reciprocal/symmetry_points.ts and data/reciprocal_paths.json, which follow
// Setyawan and Curtarolo, Comput. Mater. Sci. 49, 299 (2010), https://arxiv.org/abs/1004.2974.
// made names Γ with the Cyrillic "Г" (U+0413); the names are kept as the platform has them.
import type { CellParameters, Vector3 } from "../../../structure/cell";

/** A lattice as the material record gives it: its type (`FCC`, `HEX` ...) and parameters (Å, degrees). */
export type LatticeParameters = CellParameters & { type: string };

/** Γ as made names it. */
export const GAMMA = "\u0413";

type Points = Record<string, Vector3>;

const cosine = (degrees: number) => Math.cos((degrees / 180) * Math.PI);

/** Each supported lattice's points besides Γ, from its parameters. */
const POINTS: Record<string, (l: LatticeParameters) => Points> = {
  CUB: () => ({ R: [1 / 2, 1 / 2, 1 / 2], X: [0, 1 / 2, 0], M: [1 / 2, 1 / 2, 0] }),
  FCC: () => ({
    K: [3 / 8, 3 / 8, 3 / 4],
    L: [1 / 2, 1 / 2, 1 / 2],
    U: [5 / 8, 1 / 4, 5 / 8],
    W: [1 / 2, 1 / 4, 3 / 4],
    X: [1 / 2, 0, 1 / 2],
  }),
  BCC: () => ({ H: [1 / 2, -1 / 2, 1 / 2], P: [1 / 4, 1 / 4, 1 / 4], N: [0, 0, 1 / 2] }),
  TET: () => ({
    A: [1 / 2, 1 / 2, 1 / 2],
    M: [1 / 2, 1 / 2, 0],
    R: [0, 1 / 2, 1 / 2],
    X: [0, 1 / 2, 0],
    Z: [0, 0, 1 / 2],
  }),
  BCT: ({ a, c }): Points => {
    if (c < a) {
      const n = (1 + (c * c) / (a * a)) / 4;
      return {
        M: [-1 / 2, 1 / 2, 1 / 2],
        N: [0, 1 / 2, 0],
        P: [1 / 4, 1 / 4, 1 / 4],
        X: [0, 0, 1 / 2],
        Z: [n, n, -n],
        Z1: [-n, 1 - n, n],
      };
    }
    const n = (1 + (a * a) / (c * c)) / 4;
    const e = (a * a) / (2 * c * c);
    return {
      N: [0, 1 / 2, 0],
      P: [1 / 4, 1 / 4, 1 / 4],
      "∑": [-n, n, n],
      "∑1": [n, 1 - n, -n],
      X: [0, 0, 1 / 2],
      Y: [-e, e, 1 / 2],
      Y1: [1 / 2, 1 / 2, -e],
      Z: [1 / 2, 1 / 2, -1 / 2],
    };
  },
  ORC: () => ({
    R: [1 / 2, 1 / 2, 1 / 2],
    S: [1 / 2, 1 / 2, 0],
    T: [0, 1 / 2, 1 / 2],
    U: [1 / 2, 0, 1 / 2],
    X: [1 / 2, 0, 0],
    Y: [0, 1 / 2, 0],
    Z: [0, 0, 1 / 2],
  }),
  ORCF: ({ a, b, c }): Points => {
    if (1 / (a * a) >= 1 / (b * b) + 1 / (c * c)) {
      const n = (1 + (a * a) / (b * b) + (a * a) / (c * c)) / 4;
      const e = (1 + (a * a) / (b * b) - (a * a) / (c * c)) / 4;
      return {
        A: [1 / 2, 1 / 2 + e, e],
        A1: [0, 1 / 2 - e, 1 - e],
        L: [1 / 2, 1 / 2, 1 / 2],
        T: [1, 1 / 2, 1 / 2],
        X: [0, n, n],
        X1: [1, 1 - n, 1 - n],
        Y: [1 / 2, 0, 1 / 2],
        Z: [1 / 2, 1 / 2, 0],
      };
    }
    const n = (1 + (a * a) / (b * b) - (a * a) / (c * c)) / 4;
    const f = (1 + (c * c) / (b * b) - (c * c) / (a * a)) / 4;
    const d = (1 + (b * b) / (a * a) - (b * b) / (c * c)) / 4;
    return {
      C: [1 / 2, 1 / 2 - n, 1 - n],
      C1: [0, 1 / 2 + n, n],
      D: [1 / 2 - d, 1 / 2, 1 - d],
      D1: [1 / 2 + d, 1 / 2, d],
      L: [1 / 2, 1 / 2, 1 / 2],
      H: [1 - f, 1 / 2 - f, 1 / 2],
      H1: [f, 1 / 2 + f, 1 / 2],
      X: [0, 1 / 2, 1 / 2],
      Y: [1 / 2, 0, 1 / 2],
      Z: [1 / 2, 1 / 2, 0],
    };
  },
  ORCI: ({ a, b, c }) => {
    const n = (1 + (a * a) / (c * c)) / 4;
    const e = (1 + (b * b) / (c * c)) / 4;
    const d = (b * b - a * a) / (4 * c * c);
    const m = (b * b + a * a) / (4 * c * c);
    return {
      L: [-m, m, 1 / 2 - d],
      L1: [m, -m, 1 / 2 + d],
      L2: [1 / 2 - d, 1 / 2 + d, -m],
      R: [0, 1 / 2, 0],
      S: [1 / 2, 0, 0],
      T: [0, 0, 1 / 2],
      W: [1 / 4, 1 / 4, 1 / 4],
      X: [-e, e, e],
      X1: [e, 1 - e, -e],
      Y: [n, -n, n],
      Y1: [1 - n, n, -n],
      Z: [1 / 2, 1 / 2, -1 / 2],
    };
  },
  ORCC: ({ a, b }) => {
    const e = (1 + (a * a) / (b * b)) / 4;
    return {
      A: [e, e, 1 / 2],
      A1: [-e, 1 - e, 1 / 2],
      R: [0, 1 / 2, 1 / 2],
      S: [0, 1 / 2, 0],
      T: [-1 / 2, 1 / 2, 1 / 2],
      X: [e, e, 0],
      X1: [-e, 1 - e, 0],
      Y: [-1 / 2, 1 / 2, 0],
      Z: [0, 0, 1 / 2],
    };
  },
  HEX: () => ({
    A: [0, 0, 1 / 2],
    H: [1 / 3, 1 / 3, 1 / 2],
    K: [1 / 3, 1 / 3, 0],
    L: [1 / 2, 0, 1 / 2],
    M: [1 / 2, 0, 0],
  }),
  RHL: ({ alpha }): Points => {
    const cos = cosine(alpha);
    if (cos > 0) {
      const n = (1 + 4 * cos) / (2 + 4 * cos);
      const v = 3 / 4 - n / 2;
      return {
        B: [n, 1 / 2, 1 - n],
        B1: [1 / 2, 1 - n, n - 1],
        F: [1 / 2, 1 / 2, 0],
        L: [1 / 2, 0, 0],
        L1: [0, 0, -1 / 2],
        P: [n, v, v],
        P1: [1 - v, 1 - v, 1 - n],
        P2: [v, v, n - 1],
        Q: [1 - v, v, 0],
        X: [v, 0, -v],
        Z: [1 / 2, 1 / 2, 1 / 2],
      };
    }
    const n = (1 / 2) * ((1 + cos) / (1 - cos));
    const v = 3 / 4 - n / 2;
    return {
      F: [1 / 2, -1 / 2, 0],
      L: [1 / 2, 0, 0],
      P: [1 - v, -v, 1 - v],
      P1: [v, v - 1, v - 1],
      Q: [n, n, n],
      Q1: [1 - n, -n, -n],
      Z: [1 / 2, -1 / 2, 1 / 2],
    };
  },
  MCL: ({ b, c, alpha }) => {
    const cos = cosine(alpha);
    const n = ((1 / 2) * (1 - (b * cos) / c)) / (1 - cos * cos);
    const v = 1 / 2 - (n * c * cos) / b;
    return {
      A: [1 / 2, 1 / 2, 0],
      C: [0, 1 / 2, 1 / 2],
      D: [1 / 2, 0, 1 / 2],
      D1: [1 / 2, 0, -1 / 2],
      E: [1 / 2, 1 / 2, 1 / 2],
      H: [0, n, 1 - v],
      H1: [0, 1 - n, v],
      H2: [0, n, -v],
      M: [1 / 2, n, 1 - v],
      M1: [1 / 2, 1 - n, v],
      M2: [1 / 2, n, -v],
      X: [0, 1 / 2, 0],
      Y: [0, 0, 1 / 2],
      Y1: [0, 0, -1 / 2],
      Z: [1 / 2, 0, 0],
    };
  },
  // made's MCLC-5 points read two of its parameters before it sets them (NaN on the platform):
  // only MCLC-1,2 and MCLC-3,4 are here.
  MCLC: ({ a, b, c, alpha, gamma }): Points => {
    const cos = cosine(alpha);
    const sin2 = 1 - cos * cos;
    if (gamma >= 90) {
      const e = (2 - (b * cos) / c) / (4 * sin2);
      const n = 1 / 2 + (2 * e * c * cos) / b;
      const p = 3 / 4 - (a * a) / (4 * b * b * sin2);
      const f = p + ((3 / 4 - p) * cos * b) / c;
      return {
        N: [1 / 2, 0, 0],
        N1: [0, -1 / 2, 0],
        F: [1 - e, 1 - e, 1 - n],
        F1: [e, e, n],
        F2: [-e, -e, 1 - n],
        F3: [1 - e, -e, 1 - n],
        I: [f, 1 - f, 1 / 2],
        I1: [1 - f, f - 1, 1 / 2],
        L: [1 / 2, 1 / 2, 1 / 2],
        M: [1 / 2, 0, 1 / 2],
        X: [1 - p, p - 1, 0],
        X1: [p, 1 - p, 0],
        X2: [p - 1, -p, 0],
        Y: [1 / 2, 1 / 2, 0],
        Y1: [-1 / 2, -1 / 2, 0],
        Z: [0, 0, 1 / 2],
      };
    }
    const m = (1 + (b * b) / (a * a)) / 4;
    const d = (b * c * cos) / (2 * a * a);
    const e = m - 1 / 4 + (1 - (b * cos) / c) / (4 * sin2);
    const n = 1 / 2 + (2 * e * c * cos) / b;
    const f = 1 + e - 2 * m;
    const p = n - 2 * d;
    return {
      N: [1 / 2, 0, 0],
      N1: [0, -1 / 2, 0],
      F: [1 - f, 1 - f, 1 - p],
      F1: [f, f - 1, p],
      F2: [1 - f, -f, 1 - p],
      H: [e, e, n],
      H1: [1 - e, -e, 1 - n],
      H2: [-e, -e, 1 - n],
      I: [1 / 2, -1 / 2, 1 / 2],
      M: [1 / 2, 0, 1 / 2],
      X: [1 / 2, -1 / 2, 0],
      Y: [m, m, d],
      Y1: [1 - m, -m, -d],
      Y2: [-m, -m, -d],
      Y3: [m, m - 1, d],
      Z: [0, 0, 1 / 2],
    };
  },
  TRI: ({ alpha, beta, gamma }): Points =>
    alpha > 90 && beta > 90 && gamma >= 90
      ? {
          L: [1 / 2, 1 / 2, 0],
          M: [0, 1 / 2, 1 / 2],
          N: [1 / 2, 0, 1 / 2],
          R: [1 / 2, 1 / 2, 1 / 2],
          X: [1 / 2, 0, 0],
          Y: [0, 1 / 2, 0],
          Z: [0, 0, 1 / 2],
        }
      : {
          L: [1 / 2, -1 / 2, 0],
          M: [0, 0, 1 / 2],
          N: [-1 / 2, -1 / 2, 1 / 2],
          R: [0, -1 / 2, 1 / 2],
          X: [0, -1 / 2, 0],
          Y: [1 / 2, 0, 0],
          Z: [-1 / 2, 0, 1 / 2],
        },
};

/**
 * The default paths (made's data/reciprocal_paths.json), by the lattice's extended type where
 * it has one. made joins a path's parts into one path (its jumps are traversed as segments), and
 * the platform renders it so; so do we.
 */
const PATHS: Record<string, string> = {
  CUB: "Г X M Г R X | M R",
  BCC: "Г H N Г P H | P N",
  FCC: "Г X W K Г L U W L | U X",
  TET: "Г X M Г Z R A Z | X R | M A",
  "BCT-1": "Г X M Г Z P N Z1 M | X P",
  "BCT-2": "Г X Y ∑ Г Z ∑1 N P Y1 Z | X P",
  ORC: "Г X S Y Г Z U R T Z | Y T | U X | S R",
  HEX: "Г M K Г A L H A | L M | K H",
  "ORCF-1": "Г Y T Z Г X A1 Y | T X1 | X A Z | L Г",
  "ORCF-2": "Г Y C D X Г Z D1 H C | C1 Z | X H1 | H Y | L Г",
  ORCI: "Г X L T W R X1 Z Г Y S W | L1 Y | Y1 Z",
  ORCC: "Г X S R A Z Г Y X1 A1 T Y | Z T",
  "RHL-1": "Г L B1 | B Z Г X | Q F P1 Z | L P",
  "RHL-2": "Г P Z Q Г F P1 Q1 L Z",
  MCL: "Г Y H C E M1 A X H1 | M D Z | Y D",
  "MCLC-1": "Г Y Г L I | I1 Z F1 | Y X1 | X Г N | M Г",
  "MCLC-3": "Г Y F H Z I F1 | H1 Y1 X Г N | M Г",
  TRI: "X Г Y | L Г Z | N Г M | R Г",
};

/** made's extended type (`BCT-1`, `RHL-2` ...) where the path depends on the parameters. */
export function extendedType(lattice: LatticeParameters): string {
  const { type, a, b, c, alpha } = lattice;
  if (type === "BCT") return c < a ? "BCT-1" : "BCT-2";
  if (type === "RHL") return cosine(alpha) > 0 ? "RHL-1" : "RHL-2";
  if (type === "MCLC") {
    if (lattice.gamma >= 90) return "MCLC-1";
    const cos = cosine(alpha);
    // MCLC-5 has no path here: see POINTS.MCLC.
    return (b / c) * cos + ((b * b) / (a * a)) * (1 - cos * cos) <= 1 ? "MCLC-3" : "MCLC-5";
  }
  if (type === "ORCF") return 1 / (a * a) >= 1 / (b * b) + 1 / (c * c) ? "ORCF-1" : "ORCF-2";
  return type;
}

/** The lattice's special points by name, Γ first; undefined for a type without data here. */
export function specialPoints(lattice: LatticeParameters): Points | undefined {
  const points = POINTS[lattice.type];
  return points ? { [GAMMA]: [0, 0, 0], ...points(lattice) } : undefined;
}

/** The names along the lattice's default path, its parts joined; undefined for a type without one here. */
export function defaultPathNames(lattice: LatticeParameters): string[] | undefined {
  const path = PATHS[extendedType(lattice)];
  return path?.split(/[\s|]+/);
}

/** The lattice types with a default path here, for the message that refuses another. */
export const TYPES_WITH_PATHS = Object.keys(POINTS).map((type) => (type === "MCLC" ? "MCLC (but MCLC-5)" : type));
