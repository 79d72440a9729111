import { describe, expect, expectTypeOf, it } from "vitest";
import {
  JobRecord,
  ProjectRecord,
  PropertyRecord,
  WorkflowRecord,
  type MaterialRecord,
  type Collection,
  type JobsCollection,
  type WorkflowsCollection,
} from "../../src";
import { usePlatform } from "../support/platform";

// The typed collections beyond materials: each is a Collection of its record type, and every
// record the local platform serves parses with the zod schema the type comes from.

const platform = usePlatform("matframe-record-schemas-", { synthetic: 5 });

describe("typed collections", () => {
  it("are collections of their record types", () => {
    const { client } = platform;
    // materials, workflows and jobs add the platform's own verbs (sets, copyFromBank, submit, ...).
    expectTypeOf(client.workflows).toEqualTypeOf<WorkflowsCollection>();
    expectTypeOf(client.workflows).toExtend<Collection<WorkflowRecord>>();
    expectTypeOf(client.bankWorkflows).toEqualTypeOf<Collection<WorkflowRecord>>();
    expectTypeOf(client.jobs).toEqualTypeOf<JobsCollection>();
    expectTypeOf(client.jobs).toExtend<Collection<JobRecord>>();
    expectTypeOf(client.materials).toExtend<Collection<MaterialRecord>>();
    expectTypeOf(client.projects).toEqualTypeOf<Collection<ProjectRecord>>();
    expectTypeOf(client.properties).toEqualTypeOf<Collection<PropertyRecord>>();
    expectTypeOf(client.bankMaterials).toEqualTypeOf<Collection<MaterialRecord>>();
    expect([
      client.workflows.name,
      client.bankWorkflows.name,
      client.jobs.name,
      client.projects.name,
      client.properties.name,
      client.bankMaterials.name,
    ]).toEqual(["workflows", "bank-workflows", "jobs", "projects", "properties", "bank-materials"]);
  });

  it.each([
    ["workflows", WorkflowRecord],
    ["bank-workflows", WorkflowRecord],
    ["jobs", JobRecord],
    ["projects", ProjectRecord],
    ["properties", PropertyRecord],
  ] as const)("every record of %s parses with its schema", async (name, schema) => {
    let count = 0;
    for await (const record of platform.client.collection(name).iterate({ pageSize: 500 })) {
      const parsed = schema.safeParse(record);
      expect(
        parsed.success,
        `${name} ${record._id}: ${parsed.error?.issues[0]?.message} at ${parsed.error?.issues[0]?.path.join(".")}`,
      ).toBe(true);
      count++;
    }
    expect(count).toBeGreaterThan(0);
  });

  it("a job's subworkflow model holds the method", async () => {
    const [job] = await platform.client.jobs.list({ query: { status: "finished" }, projection: { limit: 1 } });
    const model = JobRecord.parse(job).workflow?.subworkflows?.[0]?.model;
    expect(model).toMatchObject({ type: "dft", method: { type: "pseudopotential" } });
  });
});
