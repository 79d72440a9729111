// pw.x's results, as the platform's parsers (Exabyte-io/express) make them: the scalar and tensor
// properties from its output, band gaps and the band structure from the eigenvalues in its data
// file, a relaxation's final structure as a material.
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { type Matrix3, vectorsToParameters } from "../../../structure/cell";
import { compositionOf } from "../../../structure/composition";
import { platformDerivedProperties } from "../../../structure/derived-properties";
import type { StructureRecord } from "../../../structure/structure";
import type { UnitResults, UnitRun } from "../compute-types";
import { bandGapsFromXml, bandStructureFromXml } from "./pw-bands";
import { finalCoordinates, parsePwOutput } from "./pw-output";

type Rec = Record<string, unknown>;
const isRecord = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === "string" ? v : "");

/** pw.x's data file in the job's folder (the templates' `prefix = '__prefix__'`, `outdir`). */
export function pwDataFile(workDir: string): string {
  return path.join(workDir, "outdir", "__prefix__.save", "data-file-schema.xml");
}

/**
 * A relaxation's final cell and positions as a material, the shape express gives
 * `final_structure` (a material whose `name` is the property's): lattice, basis, formulas and the
 * platform's derived properties.
 */
function finalStructure(material: Rec, output: string): (Rec & { name: string }) | undefined {
  const final = finalCoordinates(output);
  if (!final) return undefined;
  const cell = final.cell as Matrix3;
  const lattice = isRecord(material.lattice) ? material.lattice : {};
  const structure: StructureRecord = {
    lattice: {
      type: text(lattice.type) || "TRI",
      ...vectorsToParameters(cell),
      units: { length: "angstrom", angle: "degree" },
      vectors: { a: cell[0], b: cell[1], c: cell[2], alat: 1, units: "angstrom" },
    },
    basis: {
      units: "crystal",
      elements: final.sites.map((s, id) => ({ id, value: s.element })),
      coordinates: final.sites.map((s, id) => ({ id, value: s.fractional })),
    },
  };
  const { formula, unitCellFormula } = compositionOf(final.sites.map((s) => s.element));
  let derivedProperties: unknown[] = [];
  try {
    derivedProperties = platformDerivedProperties(structure);
  } catch {
    // A structure the symmetry finder refuses still has its lattice and basis.
  }
  return { _id: "", name: "final_structure", formula, unitCellFormula, ...structure, derivedProperties, tags: [] };
}

/** The results a pw.x unit lists, from its run. */
export function pwResults(run: UnitRun): UnitResults {
  const { wanted, stem } = run;
  const computed: UnitResults["computed"] = [];
  const notes: string[] = [];
  for (const [name, data] of parsePwOutput(run.output)) if (wanted.has(name)) computed.push(data);
  const fromXml = [
    ["band_gaps", "band gaps", bandGapsFromXml],
    ["band_structure", "band structure", bandStructureFromXml],
  ] as const;
  for (const [name, words, read] of fromXml) {
    if (!wanted.has(name)) continue;
    const xml = pwDataFile(run.workDir);
    const found = existsSync(xml) ? read(readFileSync(xml, "utf8")) : { reason: "pw.x wrote no data file" };
    if ("data" in found) computed.push(found.data);
    else notes.push(`${stem}: no ${words}: ${found.reason}.`);
  }
  if (wanted.has("final_structure")) {
    const structure = finalStructure(run.material, run.output);
    if (structure) computed.push(structure);
    else notes.push(`${stem}: no final structure: the output has no "Begin final coordinates" block.`);
  }
  return { computed, notes };
}
