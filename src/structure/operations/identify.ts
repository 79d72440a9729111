// Names the space-group type of the exact group the tolerance search found on a primitive cell,
// from its operations, without a moyo analysis. The conventional axes are read off the group's
// rotation axes as the International Tables place them (the fourfold or twofold axes of a cubic
// group; the threefold, fourfold or twofold axis and the shortest lattice vectors across it; the
// three twofold axes of an orthorhombic group, in every order; the monoclinic twofold axis and
// short vectors across it), and the group is then compared with the standard setting of each type
// with the same rotations there (the smallest Hall number of the type, spglib's and moyo's
// "Spglib" setting), the origin shift solved from the generators. A type is named only when the
// lattice and every operation match the setting's exactly, with right-handed conventional axes: a
// group that such a change of axes and origin turns into a setting is of that setting's type, so a
// name given is never a guess. A group matched by none is left to moyo.
import { loadMoyo, rotationRows } from "../moyo";
import { axisOf, congruenceSolver, cross, planeBasis, rotationOrder } from "./integer-lattice";
import {
  at,
  columns,
  det,
  identity,
  INDEX3,
  inverse,
  mapM,
  mapV,
  metric,
  mul,
  mulV,
  sub,
  type M3,
  type V3,
  zeros,
} from "./linear";
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
  for (const row of w) {
    for (const x of row) {
      if (x < -1 || x > 1) return -1;
      k = k * 3 + x + 1;
    }
  }
  return k;
}

const IDENTITY_KEY = rotationKey(identity());

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
      const key = rotationKey(rotationRows(op.rotation));
      const t = mapV(op.translation, (x) => x - Math.floor(x));
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
 * (moyo then names it). The conventional axes are taken right-handed in space (for a left-handed
 * `lattice`, with a negative determinant in its basis), so a chiral crystal is named by its own
 * screws (P4_1, not its mirror image P4_3) whatever the cell's handedness, as spglib names it.
 */
export function identifyGroup(group: readonly Operation[], lattice: M3): GroupType | undefined {
  // Distinct rotations (the search's groups have them): the rotation sets are then compared exactly.
  if (!rotationTable(group).table) return undefined;
  const bases = conventionalBases(group, lattice, det(lattice) < 0 ? -1 : 1);
  if (bases.length === 0) return undefined;
  const index = standardSettings();
  let solve: ((wanted: readonly V3[]) => V3) | undefined;
  let generators: Operation[] = [];
  for (const p of bases) {
    const pInverse = inverse(p);
    const keys = conjugateKeys(group, pInverse, p);
    if (!keys) continue;
    const candidates = index.get(setHash(keys));
    if (!candidates) continue;
    const points = Math.abs(Math.round(det(p)));
    for (const setting of candidates) {
      if (setting.translations.size !== group.length || setting.centrings.length !== points) continue;
      if (!latticeMatches(pInverse, setting.centrings)) continue;
      // The setting's translation of each operation's rotation, in the primitive basis.
      const wanted = new Map<Operation, V3>();
      for (const [k, op] of group.entries()) {
        const t = setting.translations.get(keys[k]!);
        if (!t) break;
        wanted.set(op, mulV(p, t));
      }
      if (wanted.size !== group.length) continue;
      if (!solve) {
        generators = generatorsOf(group);
        solve = congruenceSolver(generators.map((g) => g.rotation));
      }
      const shift = solve(generators.map((g) => sub(wanted.get(g)!, g.translation)));
      if (operationsMatch(group, keys, pInverse, shift, setting))
        return { number: setting.number, hallNumber: setting.hallNumber };
    }
  }
  return undefined;
}

/** The {@link rotationKey} of each operation's rotation in the basis P, or undefined when one has none. */
function conjugateKeys(group: readonly Operation[], pInverse: M3, p: M3): number[] | undefined {
  const keys: number[] = [];
  for (const { rotation } of group) {
    const w = conjugate(pInverse, rotation, p);
    const key = w ? rotationKey(w) : -1;
    if (key < 0) return undefined;
    keys.push(key);
  }
  return keys;
}

/** P⁻¹·W·P when it is an integer matrix (to rounding), else undefined. */
function conjugate(pInverse: M3, w: M3, p: M3): M3 | undefined {
  const out = zeros();
  for (const i of INDEX3) {
    for (const j of INDEX3) {
      let x = 0;
      for (const k of INDEX3) {
        const wp = w[k][0] * p[0][j] + w[k][1] * p[1][j] + w[k][2] * p[2][j];
        x += pInverse[i][k] * wp;
      }
      const r = Math.round(x);
      if (!(Math.abs(x - r) <= TOLERANCE)) return undefined;
      out[i][j] = r + 0;
    }
  }
  return out;
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
  for (const j of INDEX3) {
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
  for (const [k, { rotation: w, translation: t }] of group.entries()) {
    const moved = mulV(w, shift);
    const local: V3 = [t[0] + moved[0] - shift[0], t[1] + moved[1] - shift[1], t[2] + moved[2] - shift[2]];
    const there = mulV(pInverse, local);
    const wanted = setting.translations.get(keys[k]!);
    if (!wanted) return false;
    if (!isCentring([there[0] - wanted[0], there[1] - wanted[1], there[2] - wanted[2]], setting.centrings))
      return false;
  }
  return true;
}

/** Operations whose rotations generate the group's rotations (closed with its multiplication table). */
function generatorsOf(group: readonly Operation[]): Operation[] {
  const n = group.length;
  const { rotations, table } = rotationTable(group);
  if (!table) return [...group];
  const inside = new Uint8Array(n);
  const elements: number[] = [];
  for (let k = 0; k < n; k++) {
    if (at(rotations, 9 * k) === 1 && at(rotations, 9 * k + 4) === 1 && at(rotations, 9 * k + 8) === 1) {
      inside[k] = 1;
      elements.push(k);
    }
  }
  const generators: number[] = [];
  for (let k = 0; k < n && elements.length < n; k++) {
    if (inside[k]) continue;
    generators.push(k);
    // Close the subgroup: every product of an element with a generator, until nothing is new (the
    // loop goes on over the elements it appends).
    for (const element of elements) {
      for (const g of generators) {
        const product = at(table, element * n + g);
        if (product >= 0 && !inside[product]) {
          inside[product] = 1;
          elements.push(product);
        }
      }
    }
  }
  return generators.map((k) => group[k]!);
}

const negated = (v: V3): V3 => mapV(v, (x) => -x + 0);
const equal = (u: V3, v: V3): boolean => u[0] === v[0] && u[1] === v[1] && u[2] === v[2];

/** Distinct axes (up to sign) of the proper rotations of an order. */
function axesOf(rotations: readonly M3[]): V3[] {
  const axes: V3[] = [];
  for (const r of rotations) {
    const axis = axisOf(r);
    if (axis && !axes.some((a) => equal(a, axis) || equal(a, negated(axis)))) axes.push(axis);
  }
  return axes;
}

/**
 * The changes of basis (columns: the conventional axes in the primitive basis, the sign of the
 * determinant `orientation`) under which the group may take a standard setting's form.
 */
function conventionalBases(group: readonly Operation[], lattice: M3, orientation: 1 | -1): M3[] {
  const g = metric(lattice);
  const byOrder = new Map<number, M3[]>();
  for (const { rotation: w } of group) {
    const proper = det(w) < 0 ? mapM(w, (x) => -x + 0) : w;
    const order = rotationOrder(proper);
    const list = byOrder.get(order);
    if (list) list.push(proper);
    else byOrder.set(order, [proper]);
  }
  const threes = byOrder.get(3) ?? [];
  const fours = byOrder.get(4) ?? [];
  const twos = byOrder.get(2) ?? [];
  const twofoldAxes = axesOf(twos);
  const [x, y, z] = twofoldAxes;
  const [two] = twos;
  const bases: M3[] = [];
  const add = (a: V3, b: V3, c: V3) => {
    const basis = columns(a, b, c);
    if (det(basis) * orientation > 0) bases.push(basis);
  };
  if (threes.length >= 8) {
    // Cubic: the three fourfold axes (twofold in 23 and m-3), in two orders, for the groups whose
    // glides do not follow a cyclic change of axes (Pa-3 read with two axes swapped is Pb-3).
    const axes = fours.length > 0 ? axesOf(fours) : twofoldAxes;
    const [a, b, c] = axes;
    if (axes.length !== 3 || !a || !b || !c) return [];
    for (const [u, v, w] of [
      [a, b, c],
      [b, a, c],
    ] as const) {
      add(u, v, w);
      add(u, v, negated(w));
    }
  } else if (threes.length > 0 || fours.length > 0) {
    // Trigonal, hexagonal, tetragonal: the main axis, a shortest lattice vector across it and its
    // turn by the rotation (either way round).
    const r = threes[0] ?? fours[0];
    if (!r) return [];
    const c = axisOf(r);
    const plane = planeBasis(r, g);
    if (!c || !plane) return [];
    const inverseR = threes.length > 0 ? mul(r, r) : mul(mul(r, r), r);
    for (const a of [plane[0], negated(plane[0])]) {
      for (const turn of [r, inverseR]) add(a, mulV(turn, a), c);
    }
  } else if (twofoldAxes.length === 3 && x && y && z) {
    // Orthorhombic: the three twofold axes in every order and direction.
    for (const [a, b, c] of [
      [x, y, z],
      [y, z, x],
      [z, x, y],
      [y, x, z],
      [x, z, y],
      [z, y, x],
    ] as const) {
      for (let signs = 0; signs < 8; signs++) {
        const pick = (v: V3, bit: number) => ((signs >> bit) & 1 ? negated(v) : v);
        add(pick(a, 0), pick(b, 1), pick(c, 2));
      }
    }
  } else if (twofoldAxes.length === 1 && x && two) {
    // Monoclinic: the twofold axis as b, and every pair of short vectors spanning the plane across
    // it (among u, v, u + v and u - v of a reduced basis: any two of the plane's three classes
    // modulo 2, which is what the centring and glides of a setting ask of a and c).
    const b = x;
    const plane = planeBasis(two, g);
    if (!plane) return [];
    const [u, v] = plane;
    const normal = cross(u, v);
    const sums = [u, v, mapV(u, (x, i) => x + v[i]), mapV(u, (x, i) => x - v[i])];
    const choices = [...sums, ...sums.map(negated)];
    for (const a of choices) {
      for (const c of choices) {
        const ac = cross(a, c);
        if (equal(ac, normal) || equal(ac, negated(normal))) add(a, b, c);
      }
    }
  } else if (twos.length === 0) {
    // Triclinic: the cell as it is.
    const i = identity();
    bases.push(orientation > 0 ? i : mapM(i, (x) => -x + 0));
  }
  return bases;
}
