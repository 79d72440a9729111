// The statuses of a job's workflow units as its run moves them, the platform's way (ESSE's unit
// `status`: idle → active → finished or error): each unit of a subworkflow, and the workflow's own
// unit that stands for the subworkflow, whose status follows its units'.

type Rec = Record<string, unknown>;
const isRecord = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** ESSE's unit statuses (workflow/unit/base.json) that a run sets. */
export type UnitStatus = "idle" | "active" | "finished" | "error";

/** A subworkflow's status from its units': an error shows, all finished is finished, any begun is active. */
function statusOfUnits(units: Rec[]): UnitStatus {
  const statuses = units.map((unit) => unit.status);
  if (statuses.includes("error")) return "error";
  if (statuses.length > 0 && statuses.every((status) => status === "finished")) return "finished";
  if (statuses.some((status) => status === "active" || status === "finished")) return "active";
  return "idle";
}

/**
 * The workflow with the units `change` returns a status for set to it (matched in every
 * subworkflow) and the workflow's units for those subworkflows set to follow; the same object
 * when nothing changes.
 */
function withStatuses(workflow: Rec, change: (unit: Rec) => UnitStatus | undefined): Rec {
  if (!Array.isArray(workflow.subworkflows)) return workflow;
  const moved = new Map<string, UnitStatus>();
  const subworkflows = workflow.subworkflows.map((subworkflow: unknown) => {
    if (!isRecord(subworkflow) || !Array.isArray(subworkflow.units)) return subworkflow;
    let changed = false;
    const units = subworkflow.units.map((unit: unknown) => {
      const status = isRecord(unit) ? change(unit) : undefined;
      if (status === undefined || (unit as Rec).status === status) return unit;
      changed = true;
      return { ...(unit as Rec), status };
    });
    if (!changed) return subworkflow;
    moved.set(String(subworkflow._id), statusOfUnits(units.filter(isRecord)));
    return { ...subworkflow, units };
  });
  if (moved.size === 0) return workflow;
  const units = Array.isArray(workflow.units)
    ? workflow.units.map((unit: unknown) => {
        const status = isRecord(unit) ? moved.get(String(unit._id)) : undefined;
        return status === undefined ? unit : { ...(unit as Rec), status };
      })
    : workflow.units;
  return { ...workflow, subworkflows, units };
}

/** The workflow with the unit of `flowchartId` (a subworkflow's unit) at `status`. */
export function withUnitStatus(workflow: Rec, flowchartId: string, status: UnitStatus): Rec {
  return withStatuses(workflow, (unit) => (unit.flowchartId === flowchartId ? status : undefined));
}

/**
 * The workflow of a job that has ended with its units still `active` (the one a terminate, the
 * time limit or a stop cut off) in `error`: an ended job has no unit running.
 */
export function withUnitsEnded(workflow: Rec): Rec {
  return withStatuses(workflow, (unit) => (unit.status === "active" ? "error" : undefined));
}

/** The workflow with every unit `idle`: a run's start, whatever a copied workflow's units said. */
export function withUnitsIdle(workflow: Rec): Rec {
  return withStatuses(workflow, () => "idle");
}
