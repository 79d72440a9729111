import { StructureError } from "../errors";
import {
  cartesianToFractional,
  fractionalToCartesian,
  parametersToVectors,
  vectorsToParameters,
  type Matrix3,
  type Vector3,
} from "./cell";

/** The parts of a material record a structure needs (the platform's `lattice` and `basis`). */
/**
 * The most atoms one structure may have (a POSCAR's counts, a CIF's expanded sites): checked
 * before anything of that size is built, so a file that declares two billion atoms in 92 bytes is
 * refused instead of exhausting memory.
 */
export const MAX_ATOMS = 100_000;

/**
 * What structure files are made from and read into: a material's `lattice` and `basis` as the
 * platform stores them (crystal coordinates unless `basis.units` says cartesian), with its name and formula.
 */
export interface StructureRecord {
  _id?: string;
  name?: string;
  formula?: string;
  lattice: {
    a: number;
    b: number;
    c: number;
    alpha: number;
    beta: number;
    gamma: number;
    type?: string;
    units?: { length?: string; angle?: string };
    vectors?: { a: number[]; b: number[]; c: number[]; alat?: number; units?: string };
  };
  basis: {
    units?: string;
    elements: { id: number; value: string }[];
    coordinates: { id: number; value: number[] }[];
  };
}

/** A structure as the writers use it: the cell and each site, in the basis's order. */
export interface Structure {
  cell: Matrix3;
  sites: { element: string; fractional: Vector3; cartesian: Vector3 }[];
}

/** A platform-shaped `lattice` and `basis`, as the readers return them. */
export interface PlatformStructure {
  lattice: StructureRecord["lattice"] & {
    type: string;
    units: { length: "angstrom"; angle: "degree" };
    vectors: { a: number[]; b: number[]; c: number[]; alat: 1; units: "angstrom" };
  };
  basis: {
    units: "crystal";
    elements: { id: number; value: string }[];
    coordinates: { id: number; value: number[] }[];
  };
}

const ELEMENT = /^[A-Z][a-z]?$/;

/** Names a record in messages: its `_id`, else its name. */
export function who(record: StructureRecord): string {
  return record._id ? `material ${record._id}` : record.name ? `material "${record.name}"` : "the material";
}

function isVector(v: unknown): v is number[] {
  return Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === "number" && Number.isFinite(x));
}

/** The cell of a record: its `vectors` when it has them (scaled by `alat`), else from its parameters. */
export function cellOf(record: StructureRecord): Matrix3 {
  if (record === null || typeof record !== "object")
    throw new StructureError(
      `Expected a material (an object with lattice and basis, as the platform stores it); got ${record === null ? "null" : typeof record}.`,
    );
  const { lattice } = record;
  if (lattice === null || typeof lattice !== "object")
    throw new StructureError(`${who(record)} has no lattice.`, record._id);
  for (const unit of [lattice.units?.length, lattice.vectors?.units]) {
    if (unit !== undefined && unit !== "angstrom")
      throw new StructureError(
        `${who(record)} gives lattice lengths in ${unit}; only angstrom is supported.`,
        record._id,
      );
  }
  const v = lattice.vectors;
  if (v && isVector(v.a) && isVector(v.b) && isVector(v.c)) {
    const alat = v.alat ?? 1;
    return [v.a, v.b, v.c].map((row) => row.map((x) => x * alat)) as Matrix3;
  }
  try {
    return parametersToVectors(lattice);
  } catch (error) {
    throw new StructureError(`${who(record)}: ${(error as Error).message}`, record._id);
  }
}

/**
 * The structure of a record, checked: every element has a coordinate with the same id and the
 * other way round, element symbols look like symbols, coordinates are three finite numbers, the
 * units are `crystal` or `cartesian`. Throws a StructureError naming the record otherwise.
 */
export function structureOf(record: StructureRecord): Structure {
  const cell = cellOf(record);
  const basis = record.basis;
  if (
    basis === null ||
    typeof basis !== "object" ||
    !Array.isArray(basis.elements) ||
    !Array.isArray(basis.coordinates)
  ) {
    throw new StructureError(`${who(record)} has no basis (elements and coordinates).`, record._id);
  }
  const units = basis.units ?? "crystal";
  if (units !== "crystal" && units !== "cartesian") {
    throw new StructureError(
      `${who(record)} has basis units "${units}"; expected "crystal" or "cartesian".`,
      record._id,
    );
  }
  if (basis.elements.length !== basis.coordinates.length) {
    throw new StructureError(
      `${who(record)} has ${basis.elements.length} elements but ${basis.coordinates.length} coordinates in its basis.`,
      record._id,
    );
  }
  if (basis.elements.length === 0) throw new StructureError(`${who(record)} has no atoms in its basis.`, record._id);
  const byId = new Map<number, number[]>();
  for (const c of basis.coordinates) {
    if (!isVector(c?.value))
      throw new StructureError(`${who(record)}: coordinate ${c?.id} is not three finite numbers.`, record._id);
    if (byId.has(c.id)) throw new StructureError(`${who(record)}: coordinate id ${c.id} appears twice.`, record._id);
    byId.set(c.id, c.value);
  }
  const seen = new Set<number>();
  const sites = basis.elements.map((e) => {
    if (typeof e?.value !== "string" || !ELEMENT.test(e.value))
      throw new StructureError(
        `${who(record)}: element ${JSON.stringify(e?.value)} is not an element symbol.`,
        record._id,
      );
    if (seen.has(e.id)) throw new StructureError(`${who(record)}: element id ${e.id} appears twice.`, record._id);
    seen.add(e.id);
    const value = byId.get(e.id);
    if (!value)
      throw new StructureError(
        `${who(record)}: element id ${e.id} (${e.value}) has no coordinate with the same id.`,
        record._id,
      );
    const fractional = units === "crystal" ? (value.slice() as Vector3) : cartesianToFractional(value, cell);
    const cartesian = units === "cartesian" ? (value.slice() as Vector3) : fractionalToCartesian(value, cell);
    return { element: e.value, fractional, cartesian };
  });
  return { cell, sites };
}

/** A platform-shaped lattice and basis (crystal coordinates) from a cell and sites. */
export function toPlatform(
  cell: Matrix3,
  sites: { element: string; fractional: number[] }[],
  type = "TRI",
): PlatformStructure {
  const p = vectorsToParameters(cell);
  return {
    lattice: {
      ...p,
      type,
      units: { length: "angstrom", angle: "degree" },
      vectors: { a: [...cell[0]], b: [...cell[1]], c: [...cell[2]], alat: 1, units: "angstrom" },
    },
    basis: {
      units: "crystal",
      elements: sites.map((s, id) => ({ id, value: s.element })),
      coordinates: sites.map((s, id) => ({ id, value: [...s.fractional] })),
    },
  };
}
