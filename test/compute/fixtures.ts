import { readFileSync } from "node:fs";
import * as path from "node:path";
import { at } from "../support/checked";

// The bank's workflows and the bundled bulk silicon (mp-149), as the engine's tests use them.

const DATA = path.join(__dirname, "..", "..", "data");

type Rec = Record<string, unknown>;

const workflows = JSON.parse(readFileSync(path.join(DATA, "bank-workflows.json"), "utf8")) as Rec[];
const materials = JSON.parse(readFileSync(path.join(DATA, "materials.json"), "utf8")) as Rec[];

/** A bank workflow by name and application (`espresso`, `vasp` ...). */
export function bankWorkflow(name: string, application: string): Rec {
  const found = workflows.find(
    (w) =>
      w.name === name &&
      (w.subworkflows as { application: { name: string } }[]).every((s) => s.application.name === application),
  );
  if (!found) throw new Error(`No bank workflow "${name}" for ${application}.`);
  return structuredClone(found);
}

/** Bulk silicon, mp-149 (the bank's first Si is silicene, a 2D sheet). */
export function bulkSilicon(): Rec {
  const found = materials.find((m) => typeof m.name === "string" && /\bmp-149$/.test(m.name));
  if (!found) throw new Error("data/materials.json has no mp-149.");
  return structuredClone(found);
}

/** A unit's template content and name. */
export function templateOf(workflow: Rec, unitName: string): { name: string; content: string } {
  for (const subworkflow of workflow.subworkflows as { units: Rec[] }[]) {
    for (const unit of subworkflow.units) {
      if (unit.name === unitName)
        return at(unit.input as { template: { name: string; content: string } }[], 0, `${unitName}'s input`).template;
    }
  }
  throw new Error(`No unit ${unitName}.`);
}
