import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { errorMessage, login, startTestServer, type Session } from "../server/helpers";
import { call, listAll, ok } from "./helpers";

// The collections beyond materials at the platform client's paths and verbs: what each lists,
// who may read and change what, the defaults a record created with few fields gets, sets and
// defaults, and the hostile-input defences the materials have.

let server: ServerHandle;
let alice: Session;
let bob: Session;

beforeAll(async () => {
  server = await startTestServer({ users: ["alice:alice-password", "bob:bob-password"] });
  alice = await login(server, "alice", "alice-password");
  bob = await login(server, "bob", "bob-password");
});
afterAll(() => server?.close());

describe("what each collection lists", () => {
  it("serves the 55 standata workflows in the bank and in workflows, read-only", async () => {
    const bank = await listAll(server, alice, "bank-workflows");
    expect(bank).toHaveLength(55);
    expect(bank.every((w) => w.owner.slug === "mat3ra-standata" && Array.isArray(w.subworkflows))).toBe(true);
    const vasp = bank.filter((w) => w.subworkflows.some((s: any) => s.application.name === "vasp"));
    expect(vasp.length).toBeGreaterThan(10);
    expect(await listAll(server, alice, "workflows")).toHaveLength(55);
    const gap = bank.find((w) => w.external.path.endsWith("vasp/band_gap.json"));
    expect(gap.subworkflows[0].model).toEqual({
      type: "dft",
      subtype: "gga",
      method: { type: "pseudopotential", subtype: "paw", data: {} },
      functional: "pbe",
    });
    expect(
      errorMessage(await call(server, alice, "PATCH", `/workflows/${gap._id}`, { body: { name: "mine" } }), 403),
    ).toMatch(/public.*copy it/);
    expect(
      errorMessage(await call(server, alice, "PATCH", `/bank-workflows/${gap._id}`, { body: { name: "mine" } }), 403),
    ).toMatch(/read-only/);
  });

  it("serves 1,056 finished reference jobs and their band_gaps properties, linked by job and unit", async () => {
    const jobs = await listAll(server, alice, "jobs", { tags: "reference" });
    expect(jobs).toHaveLength(1056);
    expect(new Set(jobs.map((j) => j.status))).toEqual(new Set(["finished"]));
    // Per job: the band gap and the dataset's three dielectric records, all of the band-gap unit.
    const all = await listAll(server, alice, "properties");
    expect(all).toHaveLength(4 * 1056);
    const kinds = new Map<string, number>();
    for (const p of all) kinds.set(p.slug, (kinds.get(p.slug) ?? 0) + 1);
    expect(Object.fromEntries(kinds)).toEqual({
      band_gaps: 1056,
      dielectric_tensor: 1056,
      dielectric_constant: 1056,
      refractive_index: 1056,
    });
    const units = new Set(all.map((p) => `${p.source.info.jobId} ${p.source.info.unitId}`));
    expect(units.size).toBe(1056);
    const properties = all.filter((p) => p.slug === "band_gaps");
    const byJob = new Map(properties.map((p) => [p.source.info.jobId, p]));
    for (const job of jobs.slice(0, 50)) {
      const property = byJob.get(job._id);
      const units = job.workflow.subworkflows.flatMap((s: any) => s.units);
      const unit = units.find((u: any) => u.flowchartId === property.source.info.unitId);
      expect(unit.results.map((r: any) => r.name)).toContain("band_gaps");
      expect(property.data.name).toBe("band_gaps");
      // One published value, the fundamental gap: no direct gap is made up.
      expect(property.data.values).toEqual([{ type: "indirect", value: expect.any(Number), units: "eV" }]);
      expect(property.source.info.materialId).toBe(job._material._id);
    }
    // Rb2Te (mp-441), the dataset's first row: 1.88 eV.
    const rb2te = jobs.find((j) => j._material.slug === "mp-441");
    expect(byJob.get(rb2te._id).data.values[0].value).toBe(1.88);
    const withU = jobs.filter((j) => j.tags.includes("GGA+U"));
    expect(withU).toHaveLength(84);
    expect(withU.every((j) => j.workflow.subworkflows[0].model.hubbardType === "u")).toBe(true);
  });

  it("serves every public material in bank-materials, and the reference jobs' materials there", async () => {
    const bank = await listAll(server, alice, "bank-materials");
    expect(bank).toHaveLength(29 + 1056);
    const materials = ok(await call(server, alice, "GET", "/materials", { projection: { limit: 500 } }));
    expect(materials).toHaveLength(29);
    const job = ok(await call(server, alice, "GET", "/jobs", { query: { "_material.slug": "mp-441" } }))[0];
    const rb2te = ok(await call(server, alice, "GET", `/bank-materials/${job._material._id}`));
    expect(rb2te.formula).toBe("Rb2Te");
    expect(rb2te.lattice.type).toBe("FCC");
  });

  it("answers metaproperties (the machine's pseudopotentials), read-only", async () => {
    const listed = ok(await call(server, alice, "GET", "/metaproperties", { projection: { limit: 5 } })) as any[];
    // Debian's quantum-espresso-data, where it is installed; none where it is not.
    for (const record of listed) expect(record.slug).toBe("pseudopotential");
    expect(
      errorMessage(await call(server, alice, "PUT", "/metaproperties/create", { body: { name: "x" } }), 403),
    ).toMatch(/read-only/);
  });

  it("keeps properties read-only for users", async () => {
    const [property] = ok(await call(server, alice, "GET", "/properties", { projection: { limit: 1 } }));
    expect(
      errorMessage(
        await call(server, alice, "PUT", "/properties/create", { body: { data: { name: "band_gaps" } } }),
        403,
      ),
    ).toMatch(/Jobs write properties/);
    expect(
      errorMessage(await call(server, alice, "PATCH", `/properties/${property._id}`, { body: { slug: "x" } }), 403),
    ).toMatch(/read-only/);
    expect(errorMessage(await call(server, alice, "DELETE", `/properties/${property._id}`), 403)).toMatch(/read-only/);
  });
});

describe("an account's own records", () => {
  it("gives each account a default project, and a job from only a name the platform's defaults", async () => {
    const projects = ok(await call(server, alice, "GET", "/projects"));
    const mine = projects.filter((p: any) => p.owner.slug === "alice");
    expect(mine).toEqual([expect.objectContaining({ name: "Default", isDefault: true })]);
    const job = ok(await call(server, alice, "PUT", "/jobs/create", { body: { name: "only a name" } }));
    expect(job).toMatchObject({
      name: "only a name",
      status: "pre-submission",
      compute: { queue: "D", nodes: 1, ppn: 1, timeLimit: "01:00:00" },
      _project: { _id: mine[0]._id },
      owner: { slug: "alice" },
    });
    expect(job.workflow.name).toBe("Total Energy");
    const silicon = ok(await call(server, alice, "GET", `/materials/${job._material._id}`));
    expect(silicon.formula).toBe("Si");
  });

  it("keeps compute as sent, fills in what ESSE requires, and refuses a status", async () => {
    const compute = {
      nodes: 2,
      notify: "abe",
      ppn: 4,
      queue: "OR",
      timeLimit: "00:10:00",
      cluster: { fqdn: "master-1" },
    };
    const job = ok(await call(server, alice, "PUT", "/jobs/create", { body: { name: "c", compute } }));
    expect(job.compute).toEqual(compute);
    expect(
      ok(await call(server, alice, "PUT", "/jobs/create", { body: { compute: { notify: "n" } } })).compute,
    ).toEqual({ queue: "D", nodes: 1, ppn: 1, timeLimit: "01:00:00", notify: "n" });
    expect(
      errorMessage(await call(server, alice, "PUT", "/jobs/create", { body: { status: "finished" } }), 400),
    ).toMatch(/pre-submission/);
    expect(
      errorMessage(await call(server, alice, "PATCH", `/jobs/${job._id}`, { body: { status: "finished" } }), 400),
    ).toMatch(/server keeps status/);
  });

  it("hides one account's records from another and refuses foreign references", async () => {
    const job = ok(await call(server, alice, "PUT", "/jobs/create", { body: { name: "private" } }));
    expect(errorMessage(await call(server, bob, "GET", `/jobs/${job._id}`), 404)).toMatch(/No job has the id/);
    // As with materials: a change to another account's record is refused, not hidden.
    expect(errorMessage(await call(server, bob, "DELETE", `/jobs/${job._id}`), 403)).toMatch(/another account/);
    expect(ok(await call(server, bob, "GET", "/jobs", { query: { name: "private" } }))).toEqual([]);
    const aliceProject = job._project._id;
    expect(
      errorMessage(await call(server, bob, "PUT", "/jobs/create", { body: { _project: { _id: aliceProject } } }), 400),
    ).toMatch(/names no project of yours/);
    expect(
      errorMessage(await call(server, bob, "PUT", "/jobs/create", { body: { owner: { _id: "someone-else" } } }), 403),
    ).toMatch(/your own account id/);
    expect(
      errorMessage(await call(server, bob, "PUT", "/jobs/create", { body: { _material: { _id: "nope" } } }), 400),
    ).toMatch(/names no material/);
    expect(
      errorMessage(await call(server, bob, "PUT", "/jobs/create", { body: { workflow: { _id: "nope" } } }), 400),
    ).toMatch(/names no workflow/);
  });

  it("creates, updates, copies and deletes workflows; copies bank workflows and materials into the account", async () => {
    const created = ok(await call(server, alice, "PUT", "/workflows/create", { body: { name: "bare" } }));
    expect(created).toMatchObject({ name: "bare", subworkflows: [], units: [], owner: { slug: "alice" } });
    expect(
      ok(await call(server, alice, "PATCH", `/workflows/${created._id}`, { body: { name: "renamed" } })).name,
    ).toBe("renamed");
    const [bank] = ok(await call(server, alice, "GET", "/bank-workflows", { projection: { limit: 1 } }));
    const copy = ok(
      await call(server, alice, "POST", `/bank-workflows/${bank._id}/copy`, {
        params: { accountId: alice["X-Account-Id"] },
      }),
    );
    expect(copy).toMatchObject({ name: bank.name, owner: { slug: "alice" } });
    expect(copy._id).not.toBe(bank._id);
    expect(ok(await call(server, alice, "GET", `/workflows/${copy._id}`)).subworkflows).toEqual(bank.subworkflows);
    expect(
      errorMessage(
        await call(server, alice, "POST", `/bank-workflows/${bank._id}/copy`, {
          params: { accountId: bob["X-Account-Id"] },
        }),
        403,
      ),
    ).toMatch(/accountId/);
    const [material] = ok(
      await call(server, alice, "GET", "/bank-materials", {
        query: { tags: "matminer:dielectric_constant" },
        projection: { limit: 1 },
      }),
    );
    const mine = ok(await call(server, alice, "POST", `/bank-materials/${material._id}/copy`));
    expect(ok(await call(server, alice, "GET", `/materials/${mine._id}`)).formula).toBe(material.formula);
    expect(ok(await call(server, alice, "DELETE", `/workflows/${created._id}`))).toEqual({ _id: created._id });
    expect(errorMessage(await call(server, alice, "GET", `/workflows/${created._id}`), 404)).toMatch(/No workflow/);
  });

  it("makes material sets, moves a material between them, and sets a default material the next job uses", async () => {
    const [bank] = ok(await call(server, bob, "GET", "/materials", { projection: { limit: 1 } }));
    const material = ok(await call(server, bob, "POST", `/materials/${bank._id}/copy`));
    const first = ok(await call(server, bob, "PUT", "/materials/create-set", { body: { name: "first" } }));
    const second = ok(await call(server, bob, "PUT", "/materials/create-set", { body: { name: "second" } }));
    expect(first).toMatchObject({ name: "first", isEntitySet: true, entityCls: "Material" });
    ok(await call(server, bob, "POST", `/materials/${material._id}/move-to-set`, { params: { newSetId: first._id } }));
    const moved = ok(
      await call(server, bob, "POST", `/materials/${material._id}/move-to-set`, {
        params: { oldSetId: first._id, newSetId: second._id },
      }),
    );
    expect(moved.inSet).toEqual([{ _id: second._id, cls: "Material" }]);
    expect(
      errorMessage(
        await call(server, bob, "POST", `/materials/${material._id}/move-to-set`, {
          params: { newSetId: material._id },
        }),
        400,
      ),
    ).toMatch(/not a set/);
    expect(errorMessage(await call(server, bob, "POST", `/materials/${bank._id}/set-default`), 403)).toMatch(/public/);
    ok(await call(server, bob, "POST", `/materials/${material._id}/set-default`));
    expect(ok(await call(server, bob, "PUT", "/jobs/create", { body: {} }))._material._id).toBe(material._id);
    expect(errorMessage(await call(server, bob, "GET", "/materials/create-set"), 404)).toMatch(
      /No material has the id "create-set"/,
    );
  });
});

describe("hostile input", () => {
  it("refuses bad queries, projections, bodies and verbs with what to do", async () => {
    expect(errorMessage(await call(server, alice, "GET", "/jobs", { query: { $where: "1" } }), 400)).toMatch(/\$where/);
    expect(
      errorMessage(await call(server, alice, "GET", "/properties", { projection: { limit: 100000 } }), 400),
    ).toMatch(/limit/);
    expect(
      errorMessage(await call(server, alice, "PUT", "/workflows/create", { body: { name: "x", "a.b": 1 } }), 400),
    ).toMatch(/not allowed/);
    expect(
      errorMessage(
        await call(server, alice, "PUT", "/workflows/create", { body: { __proto__x: 1, nested: { $set: 1 } } }),
        400,
      ),
    ).toMatch(/not allowed/);
    expect(
      errorMessage(await call(server, alice, "PATCH", "/workflows/x", { body: { $rename: { a: "b" } } }), 400),
    ).toMatch(/not supported/);
    expect(errorMessage(await call(server, alice, "POST", "/workflows/x/submit"), 404)).toMatch(/workflows has GET/);
    expect(errorMessage(await call(server, alice, "DELETE", "/jobs"), 405)).toMatch(/GET/);
    expect(errorMessage(await call(server, {}, "GET", "/jobs"), 401)).toBeTruthy();
  });

  it("answers every new endpoint 401 without credentials, before reading a body or an id", async () => {
    const endpoints: [string, string][] = [
      ["GET", "/workflows"],
      ["GET", "/bank-workflows/x"],
      ["PUT", "/workflows/create"],
      ["PATCH", "/workflows/x"],
      ["DELETE", "/jobs/x"],
      ["POST", "/bank-materials/x/copy"],
      ["POST", "/jobs/x/submit"],
      ["POST", "/jobs/x/terminate"],
      ["POST", "/jobs/x/purge"],
      ["GET", "/jobs/x/files"],
      ["POST", "/jobs/x/presigned-urls"],
      ["POST", "/jobs/x/output-files"],
      ["GET", "/projects"],
      ["POST", "/projects/x/set-default"],
      ["GET", "/properties"],
      ["GET", "/metaproperties"],
      ["PUT", "/materials/create-set"],
      ["POST", "/materials/x/move-to-set"],
      ["POST", "/materials/x/set-default"],
      ["PUT", "/jobs/create-set"],
    ];
    for (const [method, path] of endpoints) {
      const res = await call(
        server,
        { "X-Account-Id": alice["X-Account-Id"], "X-Auth-Token": "wrong" },
        method,
        path,
        ["PUT", "PATCH", "POST"].includes(method) ? { body: {} } : {},
      );
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(401);
    }
  });

  it("makes one finished, result-less job per synthetic material with --synthetic, and none without", async () => {
    expect(await listAll(server, alice, "jobs", { isSynthetic: true })).toEqual([]);
    const big = await startTestServer({ synthetic: 600 });
    try {
      const session = await login(big);
      const jobs = await listAll(big, session, "jobs", { isSynthetic: true });
      expect(jobs).toHaveLength(600);
      const materials = new Set((await listAll(big, session, "materials", { isSynthetic: true })).map((m) => m._id));
      expect(
        jobs.every((j) => j.status === "finished" && materials.has(j._material._id) && j.localRun.properties === 0),
      ).toBe(true);
      expect(jobs[0].localRun.reason).toMatch(/nobody computed this structure/);
      expect(await listAll(big, session, "properties")).toHaveLength(4 * 1056);
    } finally {
      await big.close();
    }
  });

  it("counts every collection in one quota", async () => {
    const small = await startTestServer({ users: ["carol:carol-password"], quotaRecords: 3 });
    try {
      const carol = await login(small, "carol", "carol-password");
      ok(await call(small, carol, "PUT", "/workflows/create", { body: { name: "one" } }));
      ok(await call(small, carol, "PUT", "/jobs/create", { body: { name: "two" } })); // and the default project: three
      expect(
        errorMessage(await call(small, carol, "PUT", "/workflows/create", { body: { name: "four" } }), 403),
      ).toMatch(/quota/);
    } finally {
      await small.close();
    }
  });
});
