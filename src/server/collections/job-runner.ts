import type { Caller } from "../records/owners";
import type { StoredRecord } from "../records/store";
import { newRecordId, type CollectionContext } from "./collection";
import { findMaterial } from "./jobs";
import { bandGapsData, bandGapUnit, propertyRecord, type ReferenceData } from "./reference-results";

/** How long a submitted job stays `submitted` before it finishes, by default. */
export const DEFAULT_RUN_MS = 2000;

/** What the local platform can say about a job's results, and why. */
interface Outcome {
  properties: StoredRecord[];
  reason: string;
}

/**
 * Runs submitted jobs the only way the local platform can: it runs no simulation code, so a job
 * moves from `submitted` to `finished` after a short while, and gets property records only where
 * the reference data holds the published result of the same computation (the same Materials
 * Project material and the VASP GGA-PBE PAW band-gap workflow, with or without U as the
 * Materials Project computed it). Every other job finishes with no properties, and its record
 * says why in `localRun.reason`. No value is ever made up.
 */
export class JobRunner {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly context: CollectionContext,
    private readonly reference: ReferenceData,
    private readonly runMs = DEFAULT_RUN_MS,
  ) {}

  /** Starts the clock of a job that is now `submitted`. */
  start(jobId: string): void {
    if (this.closed || this.timers.has(jobId)) return;
    const timer = setTimeout(() => {
      this.timers.delete(jobId);
      this.finish(jobId).catch(() => undefined);
    }, this.runMs);
    timer.unref();
    this.timers.set(jobId, timer);
  }

  /** Stops the clock of a job (terminated or deleted). */
  stop(jobId: string): void {
    clearTimeout(this.timers.get(jobId));
    this.timers.delete(jobId);
  }

  /** Clears every clock: no job finishes after the server closed. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private async finish(jobId: string): Promise<void> {
    const { written } = this.context;
    const job = written.get(jobId, "jobs");
    if (this.closed || !job || job.status !== "submitted") return;
    const outcome = this.outcomeOf(job);
    // The properties first: a client that sees the job finished finds its results already there.
    for (const property of outcome.properties)
      await written.write(() => ({ put: property, result: undefined, collection: "properties" }));
    await written.write(() => {
      const current = written.get(jobId, "jobs");
      if (current?.status !== "submitted") return { put: current ?? job, result: undefined, collection: "jobs" };
      const finished = {
        ...current,
        status: "finished",
        localRun: { properties: outcome.properties.length, reason: outcome.reason },
      };
      return { put: finished, result: undefined, collection: "jobs" };
    });
  }

  private outcomeOf(job: StoredRecord): Outcome {
    const none = (reason: string): Outcome => ({
      properties: [],
      reason: `The local platform runs no simulation code and has no published result for this job: ${reason}`,
    });
    const owner = job.owner as Caller;
    const workflow = (job.workflow ?? {}) as Record<string, unknown>;
    const found = bandGapUnit(workflow);
    if (!found)
      return none("its workflow has no unit that computes band_gaps, the one property the reference data holds.");
    const model = (found.subworkflow.model ?? {}) as Record<string, unknown>;
    const method = (model.method ?? {}) as Record<string, unknown>;
    const application = (found.subworkflow.application ?? {}) as Record<string, unknown>;
    const computation = [
      application.name,
      model.type,
      model.subtype,
      model.functional,
      method.type,
      method.subtype,
    ].join(" ");
    if (computation !== "vasp dft gga pbe pseudopotential paw") {
      return none(
        `its band-gap unit computes with ${computation.replace(/\s+/g, " ").trim() || "no model"}; the reference band gaps are VASP dft gga pbe pseudopotential paw (the Materials Project's).`,
      );
    }
    const materialId = (job._material as { _id?: unknown } | undefined)?._id;
    const material = typeof materialId === "string" ? findMaterial(this.context, owner, materialId) : undefined;
    if (!material) return none("its material is not one it can read.");
    const external = (material.external ?? {}) as { id?: unknown; source?: unknown };
    const result =
      external.source === "Materials Project" && typeof external.id === "string"
        ? this.reference.byExternalId.get(external.id)
        : undefined;
    if (!result)
      return none(
        `its material (${String(material.formula ?? material._id)}) is not one of the ${this.reference.byExternalId.size} Materials Project materials of the reference data (by external.id).`,
      );
    const withU = model.hubbardType === "u";
    if (withU !== result.hubbardU) {
      return none(
        `the Materials Project computed ${external.id} with GGA${result.hubbardU ? "+U" : " (no U)"}, and this workflow's model ${withU ? "adds" : "has no"} a Hubbard U.`,
      );
    }
    const property = propertyRecord({
      _id: newRecordId(this.context),
      job,
      unitId: String(found.unit.flowchartId),
      data: bandGapsData(result),
      owner: { _id: owner._id, slug: owner.slug },
      createdAt: new Date().toISOString(),
      materialId: material._id,
      url: `https://next-gen.materialsproject.org/materials/${external.id}`,
    });
    return {
      properties: [property],
      reason: `the band gap is the published Materials Project value for ${external.id} (data/README.md), not computed here.`,
    };
  }
}
