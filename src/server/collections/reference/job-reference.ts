import type { Caller } from "../../records/owners";
import type { StoredRecord } from "../../records/store";
import { newRecordId, type CollectionContext } from "../collection";
import { bandGapsData, bandGapUnit, propertyRecord, type ReferenceData } from "./reference-results";

/** The computation whose published results the reference data holds: the Materials Project's. */
const REFERENCE_COMPUTATION = "vasp dft gga pbe pseudopotential paw";

/**
 * The published result of a job the machine cannot compute, when the reference data holds it:
 * the band gap of a Materials Project material through a workflow whose band-gap unit computes it
 * as the Materials Project did (VASP GGA-PBE PAW, with a Hubbard U exactly where they used one).
 * Undefined for any other job: no value is ever made up.
 */
export function referenceResult(
  context: CollectionContext,
  reference: ReferenceData,
  job: StoredRecord,
  material: StoredRecord | undefined,
): { property: StoredRecord; reason: string } | undefined {
  const owner = job.owner as Caller;
  const found = bandGapUnit((job.workflow ?? {}) as Record<string, unknown>);
  if (!found || !material) return undefined;
  const model = (found.subworkflow.model ?? {}) as Record<string, unknown>;
  const method = (model.method ?? {}) as Record<string, unknown>;
  const application = (found.subworkflow.application ?? {}) as Record<string, unknown>;
  const computation = [application.name, model.type, model.subtype, model.functional, method.type, method.subtype];
  if (computation.join(" ") !== REFERENCE_COMPUTATION) return undefined;
  const external = (material.external ?? {}) as { id?: unknown; source?: unknown };
  const result =
    external.source === "Materials Project" && typeof external.id === "string"
      ? reference.byExternalId.get(external.id)
      : undefined;
  if (!result || (model.hubbardType === "u") !== result.hubbardU) return undefined;
  const property = propertyRecord({
    _id: newRecordId(context),
    job,
    unitId: String(found.unit.flowchartId),
    data: bandGapsData(result),
    owner: { _id: owner._id, slug: owner.slug },
    createdAt: new Date().toISOString(),
    materialId: material._id,
    url: `https://next-gen.materialsproject.org/materials/${external.id}`,
  });
  return {
    property,
    reason: `the band gap is the published Materials Project value for ${external.id} (data/README.md), not computed here.`,
  };
}
