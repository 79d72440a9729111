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
//   for elements given as an interval, the conventional value), the table ATOMIC_WEIGHTS of
//   src/structure/composition.ts, which the local platform's import uses too;
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

/** Release date of the standata version the data comes from; createdAt counts up from it. */
const CREATED_AT_BASE = Date.parse("2024-02-21T00:00:00.000Z");

const OWNER_SLUG = "mat3ra-standata";

function deterministicId(seed) {
  const digest = crypto.createHash("sha256").update(seed).digest();
  let id = "";
  for (let i = 0; i < ID_LENGTH; i += 1) id += ID_ALPHABET[digest[i] % ID_ALPHABET.length];
  return id;
}

/**
 * The lattice with its `vectors` (`{ a, b, c, alat, units }`, as the platform's lattices carry
 * them), from the parameters by matframe's cell maths (dist/structure/cell.js: a along x, b in
 * the xy plane), rounded to 1e-10 Å.
 */
function withVectors(lattice) {
  const [a, b, c] = built("cell")
    .parametersToVectors(lattice)
    .map((v) => v.map((x) => round(x, 10) + 0));
  return { ...lattice, vectors: { a, b, c, alat: 1, units: "angstrom" } };
}

/** A module of the built package (dist/structure): the cell maths, the composition tables, the derived properties. */
function built(name) {
  try {
    return require(path.join(__dirname, "..", "dist", "structure", `${name}.js`));
  } catch {
    throw new Error("scripts/build-dataset.js needs the built package (dist/structure): run npm run build first.");
  }
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
  const composition = built("composition");
  let formulas;
  try {
    formulas = composition.compositionOf(source.basis.elements.map((e) => e.value));
  } catch (error) {
    throw new Error(`material "${source.name}": ${error.message} Add it to src/structure/composition.ts.`);
  }
  const lattice = withVectors(source.lattice);
  const _id = deterministicId(`standata:${source.external.source}:${source.external.id}`);
  const record = {
    _id,
    name: source.name,
    formula: formulas.formula,
    unitCellFormula: formulas.unitCellFormula,
    lattice,
    basis: source.basis,
    // The platform's five (src/structure/derived-properties.ts), as the local platform computes them on write.
    derivedProperties: built("derived-properties").platformDerivedProperties({ lattice, basis: source.basis }),
    // The platform's schema has `doi` a string or absent; standata writes null for "none".
    external: Object.fromEntries(Object.entries(source.external).filter(([, value]) => value !== null)),
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
