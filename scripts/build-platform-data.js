#!/usr/bin/env node
// Builds the local platform's collections beyond the bundled materials, from the upstream files
// kept verbatim (gzipped) in data/sources/. Run with `npm run platform-data`.
//
// - data/bank-workflows.json: the 55 workflows of Exabyte-io/standata (Apache-2.0), each with a
//   platform-like `_id`, the `systemName` the platform gives it, the public owner and where it came
//   from. Their units' empty `context`,
//   which newer standata writes as `[]`, is written `{}` as the pinned @mat3ra/esse requires (no
//   workflow has a non-empty one); nothing else changes.
// - data/reference-materials.json: the 1,056 Materials Project structures of matminer's
//   dielectric_constant dataset (Petousis et al., Sci. Data 4, 160134 (2017), CC BY 4.0), as
//   platform material records (formula, derived properties and lattice type computed by
//   dist/structure, as the local platform computes them on write).
// - data/reference-results.json: for each of those materials, the published Materials Project
//   GGA(+U) band gap, as given (one number per material; whether it is direct is not in the data),
//   and the dataset's dielectric columns as given (the electronic and total dielectric tensors,
//   their polycrystalline averages, the refractive index, the potentially-ferroelectric flag).
//   The server turns each into a finished job of the standata VASP band-gap workflow and its
//   property records (band_gaps, dielectric_tensor, dielectric_constant, refractive_index).
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const zlib = require("node:zlib");

const ROOT = path.join(__dirname, "..");
const SOURCES = path.join(ROOT, "data", "sources");
// MATFRAME_PLATFORM_DATA_OUT lets a test rebuild the files elsewhere and compare them with the committed ones.
const TARGET = process.env.MATFRAME_PLATFORM_DATA_OUT ?? path.join(ROOT, "data");

const ID_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz";
const OWNER_SLUG = "mat3ra-standata";
/** The commit date of the standata snapshot, and of the matminer commit the CSV is read from. */
const WORKFLOWS_CREATED_AT = Date.parse("2026-06-12T06:16:07.000Z");
const MATERIALS_CREATED_AT = Date.parse("2017-09-01T18:16:48.000Z");
const MATMINER_COMMIT = "c24f193e8f18b8f0471ac75ea5726ef18912dbb1";
const MATMINER_BLOB = "dff984b33e2ab6f563e34e28fa1494b205cb7793";

function deterministicId(seed) {
  const digest = crypto.createHash("sha256").update(seed).digest();
  let id = "";
  for (let i = 0; i < 17; i += 1) id += ID_ALPHABET[digest[i] % ID_ALPHABET.length];
  return id;
}

function built(name) {
  try {
    return require(path.join(ROOT, "dist", "structure", `${name}.js`));
  } catch {
    throw new Error(
      "scripts/build-platform-data.js needs the built package (dist/structure): run npm run build first.",
    );
  }
}

const owner = { _id: deterministicId(`owner:${OWNER_SLUG}`), slug: OWNER_SLUG };

/** Git's blob id of a file's bytes: what `git hash-object` prints, so the source can be checked against its repository. */
function gitBlobId(bytes) {
  return crypto.createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

function emptyContextAsObject(units) {
  for (const unit of units ?? []) {
    if (Array.isArray(unit.context)) {
      if (unit.context.length > 0)
        throw new Error(`unit ${unit.flowchartId} has a non-empty context list; this build keeps only empty ones.`);
      unit.context = {};
    }
  }
}

/**
 * underscore.string's `slugify` (3.3, MIT), which the platform's workflow class uses: non-word
 * characters become dashes, runs of dashes, underscores and spaces become one dash, none at the ends.
 * (The bank's names are ASCII, so its `cleanDiacritics` step changes nothing and is left out.)
 */
function slugify(text) {
  return text
    .replace(/[^\w\s-]/g, "-")
    .toLowerCase()
    .trim()
    .replace(/[-_\s]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** The names of the applications a workflow uses, in order, each once: its subworkflows' and its nested workflows'. */
function usedApplicationNames(workflow) {
  const names = [
    ...(workflow.subworkflows ?? []).map((subworkflow) => subworkflow.application.name),
    ...(workflow.workflows ?? []).flatMap(usedApplicationNames),
  ];
  return [...new Set(names)];
}

/**
 * The `systemName` the platform gives a workflow: Exabyte-io/wode's `Workflow.systemName`,
 * `slugify(usedApplicationNames.join(":") + "-" + name.toLowerCase())`, e.g. `espresso-band-gap`.
 */
function systemNameOf(workflow) {
  return slugify(`${usedApplicationNames(workflow).join(":")}-${workflow.name.toLowerCase()}`);
}

function bankWorkflows() {
  const source = JSON.parse(
    zlib.gunzipSync(fs.readFileSync(path.join(SOURCES, "standata-workflows.json.gz"))).toString("utf8"),
  );
  return source.files.map((file, index) => {
    if (gitBlobId(Buffer.from(file.content, "utf8")) !== file.blob)
      throw new Error(`${file.path}: content does not match its blob id ${file.blob}.`);
    const { _id: standataId, ...workflow } = JSON.parse(file.content);
    emptyContextAsObject(workflow.units);
    for (const subworkflow of workflow.subworkflows ?? []) emptyContextAsObject(subworkflow.units);
    return {
      _id: deterministicId(`standata:workflow:${file.path}`),
      ...workflow,
      systemName: systemNameOf(workflow),
      external: {
        source: "Exabyte-io/standata",
        id: standataId,
        path: file.path,
        commit: source.commit,
        url: `${source.repository}/blob/${source.commit}/${file.path}`,
      },
      tags: [file.path.split("/")[2]],
      owner,
      createdAt: new Date(WORKFLOWS_CREATED_AT + index * 1000).toISOString(),
    };
  });
}

/** The CSV's rows: header `idx,band_gap,...,meta,...`, fields quoted with "" escapes, no newline inside a field. */
function csvRows(text) {
  const rows = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const fields = [];
    let i = 0;
    while (i <= line.length) {
      if (line[i] === '"') {
        // A quoted field ends at a quote that is not doubled.
        let end = i + 1;
        for (;;) {
          end = line.indexOf('"', end);
          if (line[end + 1] !== '"') break;
          end += 2;
        }
        fields.push(line.slice(i + 1, end).replaceAll('""', '"'));
        i = end + 2;
      } else {
        const comma = line.indexOf(",", i);
        const end = comma === -1 ? line.length : comma;
        fields.push(line.slice(i, end));
        i = end + 1;
      }
    }
    rows.push(fields);
  }
  return rows;
}

/** A value of the `meta` column (a Python dict's repr, u'' strings): only the keys this build needs. */
function metaValue(meta, key) {
  const match = new RegExp(`u'${key}': (u'((?:[^'\\\\]|\\\\.)*)'|True|False|\\d+)`).exec(meta);
  if (!match) throw new Error(`meta has no ${key}: ${meta.slice(0, 80)}`);
  if (match[2] === undefined) return match[1] === "True" ? true : match[1] === "False" ? false : Number(match[1]);
  return match[2].replace(/\\n/g, "\n").replace(/\\'/g, "'").replace(/\\\\/g, "\\");
}

/** A 3×3 tensor as the CSV writes it, a Python list of lists of floats (which JSON reads alike). */
function tensor(text) {
  const value = JSON.parse(text);
  if (
    !Array.isArray(value) ||
    value.length !== 3 ||
    !value.every((r) => Array.isArray(r) && r.length === 3 && r.every(Number.isFinite))
  )
    throw new Error(`a dielectric tensor is not 3×3 finite numbers: ${text.slice(0, 80)}`);
  return value;
}

/** A Python bool as the CSV writes it. */
function flag(text) {
  if (text !== "True" && text !== "False") throw new Error(`pot_ferroelectric is neither True nor False: ${text}`);
  return text === "True";
}

function referenceData() {
  const bytes = zlib.gunzipSync(fs.readFileSync(path.join(SOURCES, "matminer-dielectric_constant.csv.gz")));
  if (gitBlobId(bytes) !== MATMINER_BLOB)
    throw new Error(`the matminer CSV is not blob ${MATMINER_BLOB} of hackingmaterials/matminer.`);
  const [header, ...rows] = csvRows(bytes.toString("utf8"));
  const column = (name) => header.indexOf(name);
  const { fromPoscar } = built("poscar");
  const { compositionOf } = built("composition");
  const { platformDerivedProperties } = built("derived-properties");
  const { symmetryOf } = built("symmetry");
  const materials = [];
  const results = [];
  rows.forEach((row, index) => {
    const meta = row[column("meta")];
    const mpId = metaValue(meta, "material_id");
    const poscar = metaValue(meta, "poscar");
    const { lattice, basis } = fromPoscar(poscar);
    const symmetry = symmetryOf({ lattice, basis });
    const typed = { ...lattice, type: symmetry.latticeType };
    const { formula, unitCellFormula } = compositionOf(basis.elements.map((e) => e.value));
    const _id = deterministicId(`matminer:dielectric_constant:${mpId}`);
    materials.push({
      _id,
      name: `${formula}, ${mpId}`,
      formula,
      unitCellFormula,
      lattice: typed,
      basis,
      derivedProperties: platformDerivedProperties(
        { lattice: typed, basis },
        { spaceGroupSymbol: symmetry.spaceGroupSymbol },
      ),
      external: {
        id: mpId,
        source: "Materials Project",
        url: `https://next-gen.materialsproject.org/materials/${mpId}`,
        origin: true,
      },
      tags: ["matminer:dielectric_constant"],
      owner,
      createdAt: new Date(MATERIALS_CREATED_AT + index * 1000).toISOString(),
      isNonPeriodic: false,
    });
    results.push({
      material: { _id, external: mpId },
      bandGap: Number(row[column("band_gap")]),
      hubbardU: /LDAU\s*=\s*True/.test(metaValue(meta, "incar")),
      row: Number(row[column("idx")]),
      // The dielectric columns, as given: the electronic and total (electronic + ionic) static
      // tensors, their polycrystalline averages, the refractive index and the ferroelectric flag.
      eElectronic: tensor(row[column("e_electronic")]),
      eTotal: tensor(row[column("e_total")]),
      polyElectronic: Number(row[column("poly_electronic")]),
      polyTotal: Number(row[column("poly_total")]),
      n: Number(row[column("n")]),
      potFerroelectric: flag(row[column("pot_ferroelectric")]),
    });
  });
  return { materials, results };
}

function oneRecordPerLine(records) {
  return `[\n${records.map((record) => JSON.stringify(record)).join(",\n")}\n]\n`;
}

function main() {
  const workflows = bankWorkflows();
  const { materials, results } = referenceData();
  for (const list of [workflows, materials]) {
    if (new Set(list.map((r) => r._id)).size !== list.length)
      throw new Error("Two records got the same _id; change the id seed.");
  }
  fs.mkdirSync(TARGET, { recursive: true });
  fs.writeFileSync(path.join(TARGET, "bank-workflows.json"), oneRecordPerLine(workflows));
  fs.writeFileSync(path.join(TARGET, "reference-materials.json"), oneRecordPerLine(materials));
  const reference = {
    source: {
      repository: "https://github.com/hackingmaterials/matminer",
      commit: MATMINER_COMMIT,
      path: "matminer/datasets/dielectric_constant.csv",
      blob: MATMINER_BLOB,
    },
    results,
  };
  fs.writeFileSync(
    path.join(TARGET, "reference-results.json"),
    `{"source": ${JSON.stringify(reference.source)},\n "results": ${oneRecordPerLine(results).trimEnd()}}\n`,
  );
  console.log(
    `Wrote ${workflows.length} bank workflows, ${materials.length} reference materials and ${results.length} reference results to ${path.relative(ROOT, TARGET) || "."}`,
  );
  return 0;
}

process.exitCode = main();
