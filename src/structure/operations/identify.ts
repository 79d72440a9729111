// Names the space-group type of the exact group the tolerance search found on a primitive cell,
// from its operations, without a moyo analysis. The conventional axes are read off the group's
// rotation axes as the International Tables place them (the fourfold or twofold axes of a cubic
// group; the threefold, fourfold or twofold axis and the shortest lattice vectors across it; the
// three twofold axes of an orthorhombic group, in every order; the monoclinic twofold axis and
// short vectors across it), and the group is then compared with the standard setting of each type
// with the same rotations there (the smallest Hall number of the type, spglib's and moyo's
// "Spglib" setting), the origin shift solved from the generators. A type is named only when the
// lattice and every operation match the setting's exactly: a group that a proper affine change of
// axes and origin turns into a setting is of that setting's type, so a name given is never a guess.
// A group matched by none is left to moyo (none of the structures in the reference sets is).
import { loadMoyo } from "../moyo";
import { det, inverse, mul as mul3, type M3, type V3 } from "./linear";
import { rotationTable, type Operation } from "./overlap";

/** A space group's type and its standard setting. */
export interface GroupType {
  number: number;
  hallNumber: number;
}

/** Translations (fractions) closer than this are the same. */
const TOLERANCE = 1e-5;

/** A standard setting: its centring translations and, by rotation, one of its translations. */
interface Setting extends GroupType {
  centrings: V3[];
  translations: Map<number, V3>;
}

/** The 230 standard settings by {@link setHash} of their rotations' keys (conventional basis). */
let settings: Map<number, Setting[]> | undefined;

/** A hash of a set of rotation keys, whatever their order (a match is checked rotation by rotation). */
function setHash(keys: readonly number[]): number {
  let sum = 0;
  for (const k of keys) sum = (sum + Math.imul(k + 1, 0x9e3779b1) + Math.imul(k ^ 0x5bd1e995, 0x85ebca6b)) | 0;
  return sum;
}

/** A key of an integer matrix with entries -1, 0 and 1 (every rotation of a conventional basis); -1 otherwise. */
function rotationKey(w: M3): number {
  let k = 0;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const x = w[i][j];
      if (x < -1 || x > 1) return -1;
      k = k * 3 + x + 1;
    }
  }
  return k;
}

const IDENTITY: M3 = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];
const IDENTITY_KEY = rotationKey(IDENTITY);

function standardSettings(): Map<number, Setting[]> {
  if (settings) return settings;
  const moyo = loadMoyo();
  const hallOf = new Map<number, number>();
  for (let hall = 1; hall <= 530; hall++) {
    const { number } = moyo.hall_symbol_entry(hall);
    if (!hallOf.has(number)) hallOf.set(number, hall);
  }
  const bySet = new Map<number, Setting[]>();
  for (const [number, hallNumber] of hallOf) {
    const setting: Setting = { number, hallNumber, centrings: [], translations: new Map() };
    for (const op of moyo.operations_from_number(number, { type: "HallNumber", value: hallNumber }, false)) {
      // moyo's rotations are column-major.
      const f = op.rotation;
      const key = rotationKey([
        [f[0], f[3], f[6]],
        [f[1], f[4], f[7]],
        [f[2], f[5], f[8]],
      ]);
      const t = op.translation.map((x) => x - Math.floor(x));
      if (key === IDENTITY_KEY) setting.centrings.push(t);
      if (!setting.translations.has(key)) setting.translations.set(key, t);
    }
    const set = setHash([...setting.translations.keys()]);
    const list = bySet.get(set);
    if (list) list.push(setting);
    else bySet.set(set, [setting]);
  }
  settings = bySet;
  return bySet;
}

/**
 * The type of the exact group `group` of a primitive cell whose vectors are the columns of
 * `lattice` (rotations integer, in that basis), or undefined when no standard setting matches it
 * (moyo then names it).
 */
export function identifyGroup(group: readonly Operation[], lattice: M3): GroupType | undefined {
  const bases = conventionalBases(group, lattice);
  if (bases.length === 0) return undefined;
  const index = standardSettings();
  let solve: ((wanted: V3[]) => V3) | undefined;
  const wanted: V3[] = new Array(group.length);
  const keys = new Array<number>(group.length);
  for (const p of bases) {
    const pInverse = inverse(p);
    let valid = true;
    for (let k = 0; k < group.length && valid; k++) {
      const w = conjugate(pInverse, group[k].rotation, p);
      keys[k] = w ? rotationKey(w) : -1;
      valid = keys[k] >= 0;
    }
    if (!valid) continue;
    const candidates = index.get(setHash(keys));
    if (!candidates) continue;
    const points = Math.round(det(p));
    for (const setting of candidates) {
      if (setting.translations.size !== group.length || setting.centrings.length !== points) continue;
      if (!latticeMatches(pInverse, setting.centrings)) continue;
      let same = true;
      for (let k = 0; k < group.length && same; k++) {
        const t = setting.translations.get(keys[k]);
        if (t) wanted[k] = mulV(p, t);
        else same = false;
      }
      if (!same) continue;
      solve ??= originSolver(group);
      const shift = solve(wanted);
      if (operationsMatch(group, keys, pInverse, shift, setting))
        return { number: setting.number, hallNumber: setting.hallNumber };
    }
  }
  return undefined;
}

/** P⁻¹·W·P when it is an integer matrix (to rounding), else undefined. */
function conjugate(pInverse: M3, w: M3, p: M3): M3 | undefined {
  const out: M3 = [[], [], []];
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      let x = 0;
      for (let k = 0; k < 3; k++) {
        const wp = w[k][0] * p[0][j] + w[k][1] * p[1][j] + w[k][2] * p[2][j];
        x += pInverse[i][k] * wp;
      }
      const r = Math.round(x);
      if (Math.abs(x - r) > TOLERANCE) return undefined;
      out[i][j] = r + 0;
    }
  }
  return out;
}

function mulV(a: M3, v: V3): V3 {
  return [
    a[0][0] * v[0] + a[0][1] * v[1] + a[0][2] * v[2],
    a[1][0] * v[0] + a[1][1] * v[1] + a[1][2] * v[2],
    a[2][0] * v[0] + a[2][1] * v[1] + a[2][2] * v[2],
  ];
}

/** Whether `v` is one of `centrings` modulo whole translations. */
function isCentring(v: V3, centrings: readonly V3[]): boolean {
  for (const c of centrings) {
    const x = v[0] - c[0];
    const y = v[1] - c[1];
    const z = v[2] - c[2];
    if (
      Math.abs(x - Math.round(x)) < TOLERANCE &&
      Math.abs(y - Math.round(y)) < TOLERANCE &&
      Math.abs(z - Math.round(z)) < TOLERANCE
    )
      return true;
  }
  return false;
}

/** Whether the primitive cell's vectors (the columns of P⁻¹, in the conventional basis) are lattice vectors of the setting. */
function latticeMatches(pInverse: M3, centrings: readonly V3[]): boolean {
  for (let j = 0; j < 3; j++) {
    if (!isCentring([pInverse[0][j], pInverse[1][j], pInverse[2][j]], centrings)) return false;
  }
  return true;
}

/**
 * Whether every operation, its origin moved by `shift` (primitive basis) and its axes changed by
 * P, is the setting's operation with the same rotation, up to a lattice translation.
 */
function operationsMatch(
  group: readonly Operation[],
  keys: readonly number[],
  pInverse: M3,
  shift: V3,
  setting: Setting,
): boolean {
  for (let k = 0; k < group.length; k++) {
    const { rotation: w, translation: t } = group[k];
    const moved = mulV(w, shift);
    const local: V3 = [t[0] + moved[0] - shift[0], t[1] + moved[1] - shift[1], t[2] + moved[2] - shift[2]];
    const there = mulV(pInverse, local);
    const wanted = setting.translations.get(keys[k])!;
    if (!isCentring([there[0] - wanted[0], there[1] - wanted[1], there[2] - wanted[2]], setting.centrings))
      return false;
  }
  return true;
}

/**
 * A solver of (W - 1)·s ≡ d (mod 1) for the group's generators: given, for each operation, the
 * translation a setting wants (primitive basis), the origin shift s that would give it, if any
 * (checked afterwards against every operation). The generators' stacked W - 1 is diagonalized
 * once by unimodular row and column operations, U·A·V = D, so s = V·D⁻¹·U·d.
 */
function originSolver(group: readonly Operation[]): (wanted: V3[]) => V3 {
  const generators = generatorsOf(group);
  const rows = generators.length * 3;
  const a: number[][] = [];
  for (const g of generators) {
    const w = group[g].rotation;
    for (let i = 0; i < 3; i++)
      a.push([w[i][0] - (i === 0 ? 1 : 0), w[i][1] - (i === 1 ? 1 : 0), w[i][2] - (i === 2 ? 1 : 0)]);
  }
  const u = Array.from({ length: rows }, (_, i) => Array.from({ length: rows }, (_, j) => (i === j ? 1 : 0)));
  const v = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  const diagonal = [0, 0, 0];
  for (let t = 0; t < 3 && t < rows; t++) {
    for (;;) {
      let best = -1;
      let bi = 0;
      let bj = 0;
      for (let i = t; i < rows; i++) {
        for (let j = t; j < 3; j++) {
          const x = Math.abs(a[i][j]);
          if (x !== 0 && (best < 0 || x < best)) {
            best = x;
            bi = i;
            bj = j;
          }
        }
      }
      if (best < 0) break;
      [a[t], a[bi]] = [a[bi], a[t]];
      [u[t], u[bi]] = [u[bi], u[t]];
      for (const row of a) [row[t], row[bj]] = [row[bj], row[t]];
      for (const row of v) [row[t], row[bj]] = [row[bj], row[t]];
      let clean = true;
      for (let i = t + 1; i < rows; i++) {
        const q = Math.trunc(a[i][t] / a[t][t]);
        if (q !== 0) {
          for (let j = 0; j < 3; j++) a[i][j] -= q * a[t][j];
          for (let j = 0; j < rows; j++) u[i][j] -= q * u[t][j];
        }
        if (a[i][t] !== 0) clean = false;
      }
      for (let j = t + 1; j < 3; j++) {
        const q = Math.trunc(a[t][j] / a[t][t]);
        if (q !== 0) {
          for (const row of a) row[j] -= q * row[t];
          for (const row of v) row[j] -= q * row[t];
        }
        if (a[t][j] !== 0) clean = false;
      }
      if (clean) {
        diagonal[t] = a[t][t];
        break;
      }
    }
  }
  return (wanted) => {
    const y = [0, 0, 0];
    for (let t = 0; t < 3; t++) {
      if (diagonal[t] === 0) continue;
      let sum = 0;
      for (let gi = 0; gi < generators.length; gi++) {
        const g = generators[gi];
        const tw = wanted[g];
        const tg = group[g].translation;
        for (let i = 0; i < 3; i++) sum += u[t][gi * 3 + i] * (tw[i] - tg[i]);
      }
      y[t] = sum / diagonal[t];
    }
    return mulV(v, y);
  };
}

/** Indices of operations whose rotations generate the group's rotations (closed with its multiplication table). */
function generatorsOf(group: readonly Operation[]): number[] {
  const n = group.length;
  const { rotations, table } = rotationTable(group);
  if (!table) return group.map((_, k) => k);
  const inside = new Uint8Array(n);
  const elements: number[] = [];
  for (let k = 0; k < n; k++) {
    if (rotations[9 * k] === 1 && rotations[9 * k + 4] === 1 && rotations[9 * k + 8] === 1) {
      inside[k] = 1;
      elements.push(k);
    }
  }
  const generators: number[] = [];
  for (let k = 0; k < n && elements.length < n; k++) {
    if (inside[k]) continue;
    generators.push(k);
    // Close the subgroup: every product of an element with a generator, until nothing is new.
    for (let e = 0; e < elements.length; e++) {
      for (const g of generators) {
        const product = table[elements[e] * n + g];
        if (product >= 0 && !inside[product]) {
          inside[product] = 1;
          elements.push(product);
        }
      }
    }
  }
  return generators;
}

/** The order of a proper rotation, from its trace. */
function orderOf(r: M3): number {
  const trace = r[0][0] + r[1][1] + r[2][2];
  return trace === 3 ? 1 : trace === -1 ? 2 : trace === 0 ? 3 : trace === 1 ? 4 : 6;
}

function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The shortest lattice vector along a proper rotation's axis (integer, primitive basis). */
function axisOf(r: M3): V3 | undefined {
  const m = r.map((row, i) => row.map((x, j) => x - (i === j ? 1 : 0)));
  for (const [i, j] of [
    [0, 1],
    [0, 2],
    [1, 2],
  ]) {
    const a = m[i];
    const b = m[j];
    const c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    const g = gcd(gcd(c[0], c[1]), c[2]);
    if (g !== 0) return c.map((x) => x / g + 0);
  }
  return undefined;
}

/**
 * A basis of the lattice vectors across a rotation's axis (the kernel of the sum of its powers,
 * whose rows are multiples of the plane's normal), reduced as Lagrange and Gauss reduce a plane
 * lattice under the metric `g`: the first is a shortest vector, the second a shortest independent one.
 */
function planeBasis(r: M3, g: M3): [V3, V3] | undefined {
  let sum = IDENTITY;
  let power = r;
  for (let k = 1; k < orderOf(r); k++) {
    sum = sum.map((row, i) => row.map((x, j) => x + power[i][j]));
    power = mul3(power, r);
  }
  const row = sum.find((x) => x[0] !== 0 || x[1] !== 0 || x[2] !== 0);
  if (!row) return undefined;
  const div = gcd(gcd(row[0], row[1]), row[2]);
  const normal = row.map((x) => x / div);
  // Column operations take the normal to a single ±1; the other two columns then span its kernel.
  const columns: V3[] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  for (;;) {
    let pivot = -1;
    for (let i = 0; i < 3; i++)
      if (normal[i] !== 0 && (pivot < 0 || Math.abs(normal[i]) < Math.abs(normal[pivot]))) pivot = i;
    let moved = false;
    for (let j = 0; j < 3; j++) {
      if (j === pivot || normal[j] === 0) continue;
      const q = Math.trunc(normal[j] / normal[pivot]);
      normal[j] -= q * normal[pivot];
      columns[j] = columns[j].map((x, i) => x - q * columns[pivot][i]);
      moved = true;
    }
    if (!moved) {
      const others = [0, 1, 2].filter((i) => i !== pivot);
      return reduced(columns[others[0]], columns[others[1]], g);
    }
  }
}

const dotG = (g: M3, x: V3, y: V3): number => {
  let s = 0;
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) s += x[i] * g[i][j] * y[j];
  return s;
};

function reduced(u: V3, v: V3, g: M3): [V3, V3] {
  for (let step = 0; step < 100; step++) {
    if (dotG(g, u, u) > dotG(g, v, v)) [u, v] = [v, u];
    const m = Math.round(dotG(g, u, v) / dotG(g, u, u));
    if (m === 0) break;
    v = v.map((x, i) => x - m * u[i]);
  }
  return [u, v];
}

const columnsOf = (a: V3, b: V3, c: V3): M3 => [
  [a[0], b[0], c[0]],
  [a[1], b[1], c[1]],
  [a[2], b[2], c[2]],
];
const negated = (v: V3): V3 => v.map((x) => -x + 0);

/** Distinct axes (up to sign) of the proper rotations of an order. */
function axesOf(rotations: readonly M3[]): V3[] {
  const axes: V3[] = [];
  for (const r of rotations) {
    const axis = axisOf(r);
    if (
      axis &&
      !axes.some(
        (a) =>
          (a[0] === axis[0] && a[1] === axis[1] && a[2] === axis[2]) ||
          (a[0] === -axis[0] && a[1] === -axis[1] && a[2] === -axis[2]),
      )
    )
      axes.push(axis);
  }
  return axes;
}

/**
 * The changes of basis (columns: the conventional axes in the primitive basis, determinant
 * positive) under which the group may take a standard setting's form.
 */
function conventionalBases(group: readonly Operation[], lattice: M3): M3[] {
  const g = mul3(
    [0, 1, 2].map((i) => [lattice[0][i], lattice[1][i], lattice[2][i]]),
    lattice,
  );
  const byOrder = new Map<number, M3[]>();
  for (const { rotation: w } of group) {
    const proper = det(w) < 0 ? w.map((row) => row.map((x) => -x + 0)) : w;
    const order = orderOf(proper);
    const list = byOrder.get(order);
    if (list) list.push(proper);
    else byOrder.set(order, [proper]);
  }
  const threes = byOrder.get(3) ?? [];
  const fours = byOrder.get(4) ?? [];
  const twos = byOrder.get(2) ?? [];
  const positive = (m: M3): M3 | undefined => {
    const d = det(m);
    return d > 0 ? m : undefined;
  };
  const bases: M3[] = [];
  if (threes.length >= 8) {
    const axes = axesOf(fours.length > 0 ? fours : twos);
    if (axes.length !== 3) return [];
    // The axes' order matters where the glides do not follow it (Pa-3 and its mirror image).
    const [a, b, c] = axes;
    for (const [x, y, z] of [
      [a, b, c],
      [b, a, c],
    ]) {
      bases.push(det(columnsOf(x, y, z)) > 0 ? columnsOf(x, y, z) : columnsOf(x, y, negated(z)));
    }
  } else if (threes.length > 0 || fours.length > 0) {
    const r = threes.length > 0 ? threes[0] : fours[0];
    const c = axisOf(r);
    const plane = planeBasis(r, g);
    if (!c || !plane) return [];
    const inverseR = mul3(mul3(r, r), threes.length > 0 ? IDENTITY : r);
    for (const a of [plane[0], negated(plane[0])]) {
      for (const turn of [r, inverseR]) {
        const basis = positive(columnsOf(a, mulV(turn, a), c));
        if (basis) bases.push(basis);
      }
    }
  } else if (axesOf(twos).length === 3) {
    const axes = axesOf(twos);
    for (const [i, j, k] of [
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
      [1, 0, 2],
      [0, 2, 1],
      [2, 1, 0],
    ]) {
      for (let signs = 0; signs < 8; signs++) {
        const pick = (v: V3, bit: number) => ((signs >> bit) & 1 ? negated(v) : v);
        const basis = positive(columnsOf(pick(axes[i], 0), pick(axes[j], 1), pick(axes[k], 2)));
        if (basis) bases.push(basis);
      }
    }
  } else if (twos.length > 0) {
    const b = axisOf(twos[0]);
    const plane = planeBasis(twos[0], g);
    if (!b || !plane) return [];
    const [u, v] = plane;
    const sums = [u, v, u.map((x, i) => x + v[i]), u.map((x, i) => x - v[i])];
    const choices = [...sums, ...sums.map(negated)];
    for (const a of choices) {
      for (const c of choices) {
        const basis = columnsOf(a, b, c);
        if (det(basis) > 0 && isPlaneBasis(a, c, u, v)) bases.push(basis);
      }
    }
  } else {
    bases.push(IDENTITY);
  }
  return bases;
}

/** Whether a and c span the same plane lattice as u and v. */
function isPlaneBasis(a: V3, c: V3, u: V3, v: V3): boolean {
  const cross = (x: V3, y: V3) => [x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]];
  const ac = cross(a, c);
  const uv = cross(u, v);
  return (
    (ac[0] === uv[0] && ac[1] === uv[1] && ac[2] === uv[2]) ||
    (ac[0] === -uv[0] && ac[1] === -uv[1] && ac[2] === -uv[2])
  );
}
