import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src";
import { usePlatform } from "../support/platform";
import { listAll } from "../collections/helpers";
import { login } from "../server/helpers";

// Workflow tables one row per unit (or per subworkflow), with the model and method of the unit's
// subworkflow, checked against the standata workflows read whole over raw HTTP.

const platform = usePlatform("matframe-workflow-table-");

describe("client.workflows.toDataFrame", () => {
  it("gives one row per subworkflow unit with its application, model and method by default", async () => {
    const raw = await listAll(platform.server, await login(platform.server), "workflows");
    const expected = raw.flatMap((w) =>
      w.subworkflows.flatMap((s: any) =>
        s.units.map((u: any) =>
          [
            w._id,
            u.flowchartId,
            s.application.name,
            s.model.type,
            s.model.subtype,
            s.model.method.type,
            s.model.method.subtype,
          ].join("|"),
        ),
      ),
    );
    const df = await platform.client.workflows.toDataFrame();
    expect(df.columns).toEqual([
      "_id",
      "name",
      "subworkflows.name",
      "subworkflows.application.name",
      "subworkflows.application.version",
      "subworkflows.model.type",
      "subworkflows.model.subtype",
      "subworkflows.model.method.type",
      "subworkflows.model.method.subtype",
      "subworkflows.units.flowchartId",
      "subworkflows.units.name",
    ]);
    const at = (name: string) => df.columns.indexOf(name);
    const got = (df.values as unknown[][]).map((r) =>
      [
        r[at("_id")],
        r[at("subworkflows.units.flowchartId")],
        r[at("subworkflows.application.name")],
        r[at("subworkflows.model.type")],
        r[at("subworkflows.model.subtype")],
        r[at("subworkflows.model.method.type")],
        r[at("subworkflows.model.method.subtype")],
      ].join("|"),
    );
    expect(expected.length).toBeGreaterThan(raw.length);
    expect(got.sort()).toEqual(expected.sort());
  });

  it("gives one row per subworkflow when no unit column is named, and a row per workflow with an index", async () => {
    const bank = await platform.client.bankWorkflows.toDataFrame({ columns: ["subworkflows.model.method"] });
    const raw = await listAll(platform.server, await login(platform.server), "bank-workflows");
    expect(bank.shape[0]).toBe(raw.reduce((n, w) => n + w.subworkflows.length, 0));
    const first = await platform.client.workflows.toDataFrame({ columns: ["subworkflows.0.model.method"] });
    expect(first.shape[0]).toBe(raw.length);
  });

  it("refuses a partitioned or resumed export of unit rows, before any request", async () => {
    await expect(
      platform.client.workflows.exportCsv(`${platform.dir}/w.csv`, {
        columns: ["subworkflows.model.type"],
        resume: true,
      }),
    ).rejects.toThrow(ValidationError);
  });
});
