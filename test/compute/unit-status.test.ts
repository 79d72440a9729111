import { describe, expect, it } from "vitest";
import { withUnitStatus, withUnitsEnded } from "../../src/server/compute";
import { bankWorkflow } from "./fixtures";
import { schema, validate } from "./pw-runs";

// The unit statuses a run moves, on the bank's espresso Band Gap (pw_scf, then pw_nscf) and on a
// workflow of two subworkflows: the workflow's own unit for each follows its units, the other
// stays as it was, and every step is a workflow ESSE accepts.

type Rec = Record<string, any>;

const statuses = (workflow: Rec) => ({
  workflow: workflow.units.map((unit: Rec) => unit.status),
  units: workflow.subworkflows.map((subworkflow: Rec) => subworkflow.units.map((unit: Rec) => unit.status)),
});

/** The Band Gap workflow with a second subworkflow (Total Energy's), run after the first. */
function twoSubworkflows(): Rec {
  const bandGap = bankWorkflow("Band Gap", "espresso") as Rec;
  const second = structuredClone((bankWorkflow("Total Energy", "espresso") as Rec).subworkflows[0]);
  second._id = "second-subworkflow";
  second.units[0].flowchartId = "second-scf";
  const unit = { ...structuredClone(bandGap.units[0]), _id: second._id, flowchartId: "second-unit", head: false };
  bandGap.units[0].next = unit.flowchartId;
  return { ...bandGap, subworkflows: [...bandGap.subworkflows, second], units: [...bandGap.units, unit] };
}

describe("unit statuses", () => {
  it("moves a unit and the workflow's unit for its subworkflow, idle to active to finished", () => {
    const start = twoSubworkflows();
    const [scf, nscf] = start.subworkflows[0].units.map((unit: Rec) => unit.flowchartId);
    expect(statuses(start)).toEqual({ workflow: ["idle", "idle"], units: [["idle", "idle"], ["idle"]] });
    const steps = [
      withUnitStatus(start, scf, "active"),
      withUnitStatus(withUnitStatus(start, scf, "finished"), nscf, "active"),
      withUnitStatus(withUnitStatus(start, scf, "finished"), nscf, "finished"),
    ];
    expect(steps.map(statuses)).toEqual([
      { workflow: ["active", "idle"], units: [["active", "idle"], ["idle"]] },
      // Between its units, and while the second runs, the subworkflow is still active.
      { workflow: ["active", "idle"], units: [["finished", "active"], ["idle"]] },
      { workflow: ["finished", "idle"], units: [["finished", "finished"], ["idle"]] },
    ]);
    const workflowSchema = schema("workflow.json");
    for (const step of steps) expect(validate(step, workflowSchema)).toMatchObject({ isValid: true });
    // The record it was given is left as it was.
    expect(statuses(start).workflow).toEqual(["idle", "idle"]);
  });

  it("ends a unit left active in error, and its subworkflow with it; finished units stay", () => {
    const start = twoSubworkflows();
    const [scf, nscf] = start.subworkflows[0].units.map((unit: Rec) => unit.flowchartId);
    const cutOff = withUnitsEnded(withUnitStatus(withUnitStatus(start, scf, "finished"), nscf, "active"));
    expect(statuses(cutOff)).toEqual({ workflow: ["error", "idle"], units: [["finished", "error"], ["idle"]] });
    const finished = withUnitStatus(withUnitStatus(start, scf, "finished"), nscf, "finished");
    expect(withUnitsEnded(finished)).toBe(finished);
  });
});
