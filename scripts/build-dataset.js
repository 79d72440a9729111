#!/usr/bin/env node
// Builds data/materials.json, the dataset `matframe serve` ships, from the real structures in
// @mat3ra/standata (Apache-2.0; Materials Project and 2dmatpedia). Run with `npm run dataset`.
//
// standata is a devDependency only: its postinstall build fails here and, as a runtime
// dependency, it would pull ~300 packages into users' installs (see issue 2). So its
// materials are converted once, and the result is committed.
//
// Every value below is computed from standata's own data, except:
// - atomic masses: IUPAC/CIAAW 2021 abridged standard atomic weights (five significant figures;
//   for elements given as an interval, the conventional value), table ATOMIC_WEIGHTS below;
// - `method`: assigned deterministically from the record id so that queries on `method.subtype`
//   have something to find. It is illustrative, not a record of how the sources computed anything
//   (data/README.md says so too).
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.join(__dirname, "..");
const SOURCE = path.join(ROOT, "node_modules", "@mat3ra", "standata", "lib", "runtime_data", "materials.json");
// MATFRAME_DATASET_OUT lets a test rebuild the file elsewhere and compare it with the committed one.
const TARGET = process.env.MATFRAME_DATASET_OUT ?? path.join(ROOT, "data", "materials.json");

/** The alphabet of the platform's (Meteor-style) 17-character ids: no 0, 1, I, O, l, U, V. */
const ID_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz";
const ID_LENGTH = 17;

/** Standard atomic weights in g/mol: IUPAC/CIAAW 2021, abridged to five significant figures. */
const ATOMIC_WEIGHTS = {
  H: 1.008, He: 4.0026, Li: 6.94, Be: 9.0122, B: 10.81, C: 12.011, N: 14.007, O: 15.999,
  F: 18.998, Ne: 20.18, Na: 22.99, Mg: 24.305, Al: 26.982, Si: 28.085, P: 30.974, S: 32.06,
  Cl: 35.45, Ar: 39.95, K: 39.098, Ca: 40.078, Sc: 44.956, Ti: 47.867, V: 50.942, Cr: 51.996,
  Mn: 54.938, Fe: 55.845, Co: 58.933, Ni: 58.693, Cu: 63.546, Zn: 65.38, Ga: 69.723, Ge: 72.63,
  As: 74.922, Se: 78.971, Br: 79.904, Kr: 83.798, Rb: 85.468, Sr: 87.62, Y: 88.906, Zr: 91.224,
  Nb: 92.906, Mo: 95.95, Ru: 101.07, Rh: 102.91, Pd: 106.42, Ag: 107.87, Cd: 112.41, In: 114.82,
  Sn: 118.71, Sb: 121.76, Te: 127.6, I: 126.9, Xe: 131.29, Cs: 132.91, Ba: 137.33, La: 138.91,
  Hf: 178.49, Ta: 180.95, W: 183.84, Re: 186.21, Os: 190.23, Ir: 192.22, Pt: 195.08, Au: 196.97,
  Hg: 200.59, Tl: 204.38, Pb: 207.2, Bi: 208.98,
};

/**
 * Pauling electronegativities, used only to order the elements of a formula: least
 * electronegative first, as pymatgen (and so Materials Project) writes formulas, e.g. `GaAs`,
 * `Al2O3`, `Te2Mo` (the spelling standata's own file names use). Ties keep alphabetical order.
 */
const ELECTRONEGATIVITY = {
  H: 2.2, Li: 0.98, Be: 1.57, B: 2.04, C: 2.55, N: 3.04, O: 3.44, F: 3.98, Na: 0.93, Mg: 1.31,
  Al: 1.61, Si: 1.9, P: 2.19, S: 2.58, Cl: 3.16, K: 0.82, Ca: 1.0, Sc: 1.36, Ti: 1.54, V: 1.63,
  Cr: 1.66, Mn: 1.55, Fe: 1.83, Co: 1.88, Ni: 1.91, Cu: 1.9, Zn: 1.65, Ga: 1.81, Ge: 2.01,
  As: 2.18, Se: 2.55, Br: 2.96, Rb: 0.82, Sr: 0.95, Y: 1.22, Zr: 1.33, Nb: 1.6, Mo: 2.16,
  Ru: 2.2, Rh: 2.28, Pd: 2.2, Ag: 1.93, Cd: 1.69, In: 1.78, Sn: 1.96, Sb: 2.05, Te: 2.1, I: 2.66,
  Cs: 0.79, Ba: 0.89, La: 1.1, Hf: 1.3, Ta: 1.5, W: 2.36, Re: 1.9, Os: 2.2, Ir: 2.2, Pt: 2.28,
  Au: 2.54, Hg: 2.0, Tl: 1.62, Pb: 2.33, Bi: 2.02,
};

/** Avogadro's number times 1e-24 (Å³ -> cm³): g/mol per Å³ to g/cm³. */
const AMU_PER_A3_TO_G_PER_CM3 = 1 / 0.602214076;

/** Release date of the standata version the data comes from; createdAt counts up from it. */
const CREATED_AT_BASE = Date.parse("2024-02-21T00:00:00.000Z");

const OWNER_SLUG = "mat3ra-standata";

function deterministicId(seed) {
  const digest = crypto.createHash("sha256").update(seed).digest();
  let id = "";
  for (let i = 0; i < ID_LENGTH; i += 1) id += ID_ALPHABET[digest[i] % ID_ALPHABET.length];
  return id;
}

function requireTableEntry(table, tableName, element, materialName) {
  const value = table[element];
  if (value === undefined) {
    throw new Error(`${tableName} has no entry for element "${element}" (material "${materialName}"); add it to scripts/build-dataset.js`);
  }
  return value;
}

function elementCounts(basis) {
  const counts = new Map();
  for (const { value } of basis.elements) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

function gcd(a, b) {
  return b === 0 ? a : gcd(b, a % b);
}

function formatFormula(counts, orderedElements, divisor) {
  return orderedElements
    .map((element) => {
      const n = counts.get(element) / divisor;
      return n === 1 ? element : `${element}${n}`;
    })
    .join("");
}

function orderElements(counts, materialName) {
  return [...counts.keys()].sort((x, y) => {
    const dx = requireTableEntry(ELECTRONEGATIVITY, "ELECTRONEGATIVITY", x, materialName);
    const dy = requireTableEntry(ELECTRONEGATIVITY, "ELECTRONEGATIVITY", y, materialName);
    return dx - dy || (x < y ? -1 : x > y ? 1 : 0);
  });
}

/**
 * The lattice with its `vectors` (`{ a, b, c, alat, units }`, as the platform's lattices carry
 * them), from the parameters by matframe's cell maths (dist/structure/cell.js: a along x, b in
 * the xy plane), rounded to 1e-10 Å.
 */
function withVectors(lattice) {
  let cell;
  try {
    cell = require(path.join(__dirname, "..", "dist", "structure", "cell.js"));
  } catch {
    throw new Error("scripts/build-dataset.js needs the built package for the cell maths: run npm run build first.");
  }
  const [a, b, c] = cell.parametersToVectors(lattice).map((v) => v.map((x) => round(x, 10) + 0));
  return { ...lattice, vectors: { a, b, c, alat: 1, units: "angstrom" } };
}

/** Cell volume from the six lattice parameters (Å, degrees). */
function cellVolume({ a, b, c, alpha, beta, gamma }) {
  const rad = Math.PI / 180;
  const [ca, cb, cg] = [Math.cos(alpha * rad), Math.cos(beta * rad), Math.cos(gamma * rad)];
  return a * b * c * Math.sqrt(1 - ca * ca - cb * cb - cg * cg + 2 * ca * cb * cg);
}

function round(value, digits) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function chooseMethod(id) {
  const digest = crypto.createHash("sha256").update(`method:${id}`).digest();
  // About one material in five has no method, as on the platform, where not every material
  // has properties computed yet.
  if (digest[0] % 5 === 0) return undefined;
  const subtype = ["us", "paw", "nc"][digest[1] % 3];
  return { type: "pseudopotential", subtype, data: { pseudo: [] } };
}

function convert(source, categoriesByName, index) {
  const counts = elementCounts(source.basis);
  const ordered = orderElements(counts, source.name);
  const divisor = [...counts.values()].reduce(gcd);
  const mass = [...counts].reduce(
    (sum, [element, n]) => sum + n * requireTableEntry(ATOMIC_WEIGHTS, "ATOMIC_WEIGHTS", element, source.name),
    0,
  );
  const volume = cellVolume(source.lattice);
  const _id = deterministicId(`standata:${source.external.source}:${source.external.id}`);
  const record = {
    _id,
    name: source.name,
    formula: formatFormula(counts, ordered, divisor),
    unitCellFormula: formatFormula(counts, ordered, 1),
    lattice: withVectors(source.lattice),
    basis: source.basis,
    derivedProperties: [
      { name: "volume", value: round(volume, 6), units: "angstrom^3" },
      { name: "density", value: round((mass / volume) * AMU_PER_A3_TO_G_PER_CM3, 6), units: "g/cm^3" },
    ],
    external: source.external,
    tags: categoriesByName.get(source.name) ?? [],
    owner: { _id: deterministicId(`owner:${OWNER_SLUG}`), slug: OWNER_SLUG },
    createdAt: new Date(CREATED_AT_BASE + index * 60_000).toISOString(),
    isNonPeriodic: source.isNonPeriodic,
  };
  const method = chooseMethod(_id);
  if (method) record.method = method;
  return record;
}

function main() {
  if (!fs.existsSync(SOURCE)) {
    console.error(`Cannot find ${path.relative(ROOT, SOURCE)}. Install dev dependencies first (npm ci).`);
    return 1;
  }
  const standata = JSON.parse(fs.readFileSync(SOURCE, "utf8"));
  const sources = Object.entries(standata.filesMapByName);
  const categoriesByName = new Map();
  for (const entity of standata.standataConfig.entities) {
    const material = standata.filesMapByName[entity.filename];
    if (material) categoriesByName.set(material.name, entity.categories);
  }
  const records = sources.map(([, material], index) => convert(material, categoriesByName, index));
  records.sort((x, y) => (x._id < y._id ? -1 : x._id > y._id ? 1 : 0));
  const ids = new Set(records.map((r) => r._id));
  if (ids.size !== records.length) throw new Error("Two materials got the same _id; change the id seed.");
  fs.mkdirSync(path.dirname(TARGET), { recursive: true });
  fs.writeFileSync(TARGET, `${JSON.stringify(records, null, 1)}\n`);
  const withMethod = records.filter((r) => r.method).length;
  console.log(`Wrote ${records.length} materials (${withMethod} with a method) to ${path.relative(ROOT, TARGET)}`);
  return 0;
}

process.exitCode = main();
