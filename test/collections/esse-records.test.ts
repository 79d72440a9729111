import { afterAll, beforeAll, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { login, startTestServer, type Session } from "../server/helpers";
import { call, listAll, ok, waitForEnd, waitForStatus } from "./helpers";

// Every record the local platform serves, of every kind, validates against the @mat3ra/esse
// schema of its kind, with ESSE's own validator (ajv over the dereferenced schemas it ships):
// the public ones and those an account makes with few fields (completed with the defaults).
const { validate } = require("@mat3ra/esse/dist/js/utils/ajv") as {
  validate: (data: object, schema: object) => { isValid: boolean; errors: unknown };
};
const schemas = require("@mat3ra/esse/dist/js/schemas.json") as { $id: string }[];
const schema = (id: string) => schemas.find((s) => s.$id === id)!;

let server: ServerHandle;
let demo: Session;

beforeAll(async () => {
  // ajv compiles the big schemas once (seconds); done first, so no idle keep-alive socket goes stale meanwhile.
  for (const id of [
    "job",
    "workflow",
    "property/raw",
    "properties-directory/non-scalar/band-gaps",
    "properties-directory/non-scalar/dielectric-tensor",
    "project",
    "material",
    "system/set",
  ])
    failures([{}], id);
  server = await startTestServer({ jobRunMs: 20, synthetic: 20 });
  demo = await login(server);
});
afterAll(() => server?.close());

/** The property kinds that are matframe's own: the reference data's, where ESSE has no schema (docs/results.md). */
const OWN_KINDS = ["dielectric_constant", "refractive_index"];

/** The ESSE schema of a property's data, by its name: total_energy -> properties-directory/scalar/total-energy. */
function propertySchema(name: string): string | undefined {
  if (name === "final_structure") return "material";
  const tail = `/${name.replaceAll("_", "-")}`;
  return schemas.find((s) => s.$id.startsWith("properties-directory/") && s.$id.endsWith(tail))?.$id;
}

/** The records that fail, with ESSE's first complaint about each (empty when all pass). */
function failures(records: any[], id: string): string[] {
  return records.flatMap((record) => {
    const { isValid, errors } = validate(structuredClone(record), schema(id));
    return isValid ? [] : [`${record._id}: ${JSON.stringify(errors).slice(0, 300)}`];
  });
}

it("validates every ESSE kind the checks below use (a broken record fails)", () => {
  expect(failures([{ _id: "x", status: "finished" }], "job")).toHaveLength(1);
  expect(failures([{ _id: "x", subworkflows: [] }], "workflow")).toHaveLength(1);
  expect(failures([{ _id: "x", data: { name: "band_gaps" } }], "property/raw")).toHaveLength(1);
  expect(
    failures([{ _id: "x", name: "band_gaps", values: [{ value: 1 }] }], "properties-directory/non-scalar/band-gaps"),
  ).toHaveLength(1);
});

it("every served workflow, job, property, project and material validates against ESSE", async () => {
  // Records an account makes with few fields, and a job's results, among the served ones.
  const workflow = ok(await call(server, demo, "PUT", "/workflows/create", { body: { name: "only a name" } }));
  ok(await call(server, demo, "PUT", "/projects/create", { body: { name: "only a name" } }));
  const job = ok(await call(server, demo, "PUT", "/jobs/create", { body: { name: "only a name" } }));
  const [mos2] = ok(await call(server, demo, "GET", "/materials", { query: { "external.id": "mp-2815" } }));
  const [vasp] = ok(
    await call(server, demo, "GET", "/bank-workflows", { query: { "external.path": { $regex: "vasp/band_gap" } } }),
  );
  const computed = ok(
    await call(server, demo, "PUT", "/jobs/create", {
      body: { workflow: { _id: vasp._id }, _material: { _id: mos2._id }, compute: { notify: "n" } },
    }),
  );
  ok(await call(server, demo, "POST", `/bank-workflows/${vasp._id}/copy`));
  // The default workflow (Quantum ESPRESSO Total Energy on silicon) computes where pw.x is
  // installed and ends in error where it is not: either way its record, and any result, validate.
  ok(await call(server, demo, "POST", `/jobs/${job._id}/submit`));
  const ended = await waitForEnd(server, demo, job._id);
  ok(await call(server, demo, "POST", `/jobs/${computed._id}/submit`));
  await waitForStatus(server, demo, computed._id, "finished");

  const workflows = await listAll(server, demo, "workflows");
  expect(workflows.length).toBe(55 + 2);
  expect(workflows.map((w) => w._id)).toContain(workflow._id);
  expect(failures(workflows, "workflow")).toEqual([]);

  const jobs = await listAll(server, demo, "jobs");
  expect(jobs.length).toBe(1056 + 2 + 20); // the reference jobs, the two above, one per synthetic material
  expect(failures(jobs, "job")).toEqual([]);

  const properties = await listAll(server, demo, "properties");
  // Four per reference job (band_gaps and the dataset's three dielectric records), the band gap of the VASP job, the computed ones.
  expect(properties.length).toBe(4 * 1056 + 1 + ended.localRun.properties);
  expect(failures(properties, "property/raw")).toEqual([]);
  // Each property's data against the ESSE schema of its name (a relaxation's final_structure is a
  // material), but matframe's own kinds, which ESSE has no schema for and whose records say so.
  const own = properties.filter((p) => OWN_KINDS.includes(p.data.name));
  expect(own).toHaveLength(2 * 1056);
  for (const property of own) {
    expect(propertySchema(property.data.name)).toBeUndefined();
    expect(property.description).toMatch(/is matframe's own property kind: ESSE has no schema for it/);
  }
  for (const property of properties) {
    if (OWN_KINDS.includes(property.data.name)) continue;
    const id = propertySchema(property.data.name);
    expect(id, `an ESSE schema for ${property.data.name}`).toBeDefined();
    expect(failures([{ _id: property._id, ...property.data }], id!)).toEqual([]);
  }

  const projects = await listAll(server, demo, "projects");
  expect(projects.length).toBe(4); // the reference and synthetic projects, the default one, the one made above
  expect(failures(projects, "project")).toEqual([]);

  const materials = await listAll(server, demo, "bank-materials");
  expect(materials.length).toBe(29 + 20 + 1056);
  expect(failures(materials, "material")).toEqual([]);
});

it("a material set validates as ESSE's entity set", async () => {
  const set = ok(await call(server, demo, "PUT", "/materials/create-set", { body: { name: "a set" } }));
  expect(failures([set], "system/set")).toEqual([]);
  expect(set.isEntitySet).toBe(true);
});

it("metaproperties are the machine's pseudopotentials, each valid as ESSE's pseudopotential file", async () => {
  const { existsSync, readdirSync } = await import("node:fs");
  const debian = "/usr/share/espresso/pseudo";
  const metaproperties = await listAll(server, demo, "metaproperties");
  if (!existsSync(debian)) {
    console.log(`metaproperties: ${debian} is missing (apt install quantum-espresso-data): nothing to list`);
    expect(metaproperties).toEqual([]);
    return;
  }
  // Every UPF file of Debian's set that the engine can read, and only those.
  expect(metaproperties.length).toBeGreaterThan(0);
  expect(metaproperties.length).toBeLessThanOrEqual(readdirSync(debian).filter((f) => /\.upf$/i.test(f)).length);
  expect(failures(metaproperties, "methods-directory/physical/psp/file")).toEqual([]);
  const silicon = metaproperties.filter((m) => m.data.element === "Si");
  expect(silicon.length).toBeGreaterThan(0);
  expect(silicon.every((m) => existsSync(m.data.path) && m.data.apps.includes("espresso"))).toBe(true);
});
