import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type FrameWarning, ValidationError } from "../../src";
import type { ServerHandle } from "../../src/server";
import { startTestServer } from "../server/helpers";

// Each collection's table has its own default columns, filled on the local platform's records,
// with no warning: a job table used to get the materials' columns, all null, 8 warnings a call.

let server: ServerHandle;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
});
afterAll(async () => {
  await client?.logout();
  await server?.close();
});

const DEFAULTS = {
  jobs: ["_id", "name", "status", "_material._id", "workflow.name", "_project.slug", "owner.slug", "createdAt"],
  projects: ["_id", "name", "slug", "isDefault", "owner.slug", "createdAt"],
  properties: [
    "_id",
    "slug",
    "source.info.jobId",
    "source.info.unitId",
    "source.info.materialId",
    "owner.slug",
    "createdAt",
  ],
} as const;

describe("a collection's default columns", () => {
  for (const [name, columns] of Object.entries(DEFAULTS)) {
    it(`${name}: its own columns, none empty, no warning`, async () => {
      const warnings: FrameWarning[] = [];
      const df = await client.collection(name).toDataFrame({ maxItems: 300, onWarning: (w) => warnings.push(w) });
      expect(df.columns).toEqual([...columns]);
      expect(df.shape[0]).toBeGreaterThan(0);
      for (const column of columns) {
        const values = df.column(column).values as unknown[];
        expect(
          values.some((v) => v !== null && v !== undefined && !Number.isNaN(v)),
          `${name}.${column}`,
        ).toBe(true);
      }
      expect(warnings).toEqual([]);
    });
  }

  it("names them the same way from client.jobs, client.projects and client.properties", async () => {
    const jobs = await client.jobs.toDataFrame({ maxItems: 5 });
    expect(jobs.columns).toEqual([...DEFAULTS.jobs]);
    expect(jobs.column("status").values).toEqual(["finished", "finished", "finished", "finished", "finished"]);
    expect((await client.projects.toDataFrame()).columns).toEqual([...DEFAULTS.projects]);
    expect((await client.properties.toDataFrame({ maxItems: 5 })).columns).toEqual([...DEFAULTS.properties]);
  });

  it("refuses an option toDataFrame does not use, with the nearest one, rather than reading everything", async () => {
    await expect(client.materials.toDataFrame({ querry: { formula: "Si" } } as never)).rejects.toThrow(
      /toDataFrame does not use the option "querry" \(did you mean "query"\?\)/,
    );
    await expect(client.jobs.toDataFrame({ fields: { name: 1 } } as never)).rejects.toThrow(ValidationError);
  });

  it("refuses a misspelt option to list, iterate and pages too, before any request", async () => {
    // Found running the packed tarball as a new user: list({ querry }) answered every material.
    await expect(client.materials.list({ querry: { formula: "Si" } } as never)).rejects.toThrow(
      /list does not use the option "querry" \(did you mean "query"\?\)/,
    );
    expect(() => client.materials.iterate({ colums: ["formula"] } as never)).toThrow(ValidationError);
    expect(() => client.materials.pages({ pageSiz: 10 } as never)).toThrow(/did you mean "pageSize"/);
    // An option left undefined is no misspelling.
    expect(await client.materials.list({ query: { formula: "Si" }, signal: undefined })).not.toHaveLength(0);
  });

  it("still warns of an empty column the caller named", async () => {
    const warnings: FrameWarning[] = [];
    await client.jobs.toDataFrame({ columns: ["name", "stauts"], maxItems: 5, onWarning: (w) => warnings.push(w) });
    expect(warnings.map((w) => w.code)).toEqual(["EMPTY_COLUMN"]);
  });
});
