import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { systemNameOf } from "../../src/server/collections/workflows";
import { checkEsse } from "../../src/server/records/esse-check";
import { call, ok } from "../collections/helpers";
import { errorMessage, login, startTestServer, type Session } from "./helpers";

// The requests the platform's example notebooks (Exabyte-io/api-examples, examples/) send,
// answered as the cloud answers them: workflows looked up by systemName, in the query dict or
// as bare URL parameters; every account's default project, material and workflow.

let server: ServerHandle;
let demo: Session;

beforeAll(async () => {
  server = await startTestServer({
    users: ["alice:correct-horse-1", "bob:correct-horse-2"],
    accountDefaults: true, // as matframe serve starts
  });
  demo = await login(server, "alice", "correct-horse-1");
});
afterAll(() => server?.close());

describe("systemName", () => {
  it("every bank workflow has one, all distinct, by wode's rule", async () => {
    const bank = ok(await call(server, demo, "GET", "/bank-workflows", { projection: { limit: 100 } })) as any[];
    expect(bank).toHaveLength(55);
    expect(new Set(bank.map((w) => w.systemName)).size).toBe(55);
    for (const workflow of bank) expect(workflow.systemName).toMatch(/^[a-z0-9]+(-[a-z0-9]+)+$/);
  });

  it("finds the workflows the notebooks name, in bank-workflows and workflows", async () => {
    for (const systemName of [
      "espresso-total-energy",
      "espresso-band-gap",
      "espresso-variable-cell-relaxation",
      "espresso-band-structure",
    ]) {
      const found = ok(await call(server, demo, "GET", "/bank-workflows", { query: { systemName } })) as any[];
      expect(found.map((w) => w.systemName)).toEqual([systemName]);
      const all = ok(await call(server, demo, "GET", "/workflows", { query: { systemName } })) as any[];
      expect(all.map((w) => w._id)).toContain(found[0]._id);
    }
    const [gap] = ok(
      await call(server, demo, "GET", "/bank-workflows", { query: { systemName: "espresso-band-gap" } }),
    );
    expect(gap.name).toBe("Band Gap");
    expect(gap.application.name).toBe("espresso");
  });

  it("answers ?systemName=...&limit=1 as bare URL parameters (get-file-from-job)", async () => {
    const found = ok(
      await call(server, demo, "GET", "/bank-workflows", {
        params: { systemName: "espresso-total-energy", limit: "1" },
      }),
    );
    expect(found).toHaveLength(1);
    expect(found[0].systemName).toBe("espresso-total-energy");
    // Refused in the words it was sent in, not as projection.limit.
    const wrong = await call(server, demo, "GET", "/bank-workflows", { params: { limit: "abc" } });
    expect(errorMessage(wrong, 400)).toBe('limit="abc" as a URL parameter must be a whole number, e.g. limit=10.');
  });

  it('takes "limit" inside the query dict as paging', async () => {
    const found = ok(
      await call(server, demo, "GET", "/bank-workflows", { query: { "application.name": "espresso", limit: 2 } }),
    );
    expect(found).toHaveLength(2);
    const skipped = ok(
      await call(server, demo, "GET", "/bank-workflows", {
        query: { "application.name": "espresso", limit: 1, skip: 1 },
      }),
    );
    expect(skipped[0]._id).toBe(found[1]._id);
  });

  it("refuses a paging key given twice, and fields/sort outside the projection", async () => {
    const twice = await call(server, demo, "GET", "/bank-workflows", {
      query: { limit: 1 },
      projection: { limit: 2 },
    });
    expect(errorMessage(twice, 400)).toMatch(/"limit" is given twice/);
    const sort = await call(server, demo, "GET", "/materials", { params: { sort: '{"name":1}' } });
    expect(errorMessage(sort, 400)).toMatch(/inside the projection/);
    const bad = await call(server, demo, "GET", "/materials", { params: { limit: "ten" } });
    expect(errorMessage(bad, 400)).toMatch(/limit/);
  });
});

describe("every account's defaults", () => {
  it("a new account has a default project, material (silicon) and workflow (espresso Total Energy)", async () => {
    const bob = await login(server, "bob", "correct-horse-2");
    for (const collection of ["projects", "materials", "workflows"]) {
      const found = ok(
        await call(server, bob, "GET", `/${collection}`, {
          query: { isDefault: true, "owner._id": bob["X-Account-Id"] },
        }),
      ) as any[];
      expect(found, collection).toHaveLength(1);
      expect(found[0].owner).toEqual({ _id: bob["X-Account-Id"], slug: "bob" });
    }
    const [material] = ok(
      await call(server, bob, "GET", "/materials", { query: { isDefault: true, "owner._id": bob["X-Account-Id"] } }),
    );
    expect(material.formula).toBe("Si");
    const [workflow] = ok(
      await call(server, bob, "GET", "/workflows", { query: { isDefault: true, "owner._id": bob["X-Account-Id"] } }),
    );
    expect(workflow.systemName).toBe("espresso-total-energy");
    // Each validates against its ESSE schema (checkEsse throws, naming the path, when one does not).
    for (const [collection, schema] of [
      ["projects", "project"],
      ["materials", "material"],
      ["workflows", "workflow"],
    ] as const) {
      const [record] = ok(
        await call(server, bob, "GET", `/${collection}`, {
          query: { isDefault: true, "owner._id": bob["X-Account-Id"] },
        }),
      );
      expect(() => checkEsse(record, schema, collection)).not.toThrow();
    }
    // create_and_submit_job: a job of the defaults, by their ids.
    const job = ok(
      await call(server, bob, "PUT", "/jobs/create", {
        body: {
          owner: { _id: bob["X-Account-Id"] },
          _material: { _id: material._id },
          workflow: { _id: workflow._id },
          name: "TEST JOB",
        },
      }),
    );
    expect(job._material._id).toBe(material._id);
    expect(job.workflow.name).toBe("Total Energy");
  });

  it("a server started again in memory makes the same defaults, byte for byte", async () => {
    const defaults = async () => {
      const again = await startTestServer({ accountDefaults: true });
      try {
        const session = await login(again);
        const own = { query: { "owner._id": session["X-Account-Id"] } };
        return [
          ok(await call(again, session, "GET", "/projects", own)),
          ok(await call(again, session, "GET", "/materials", own)),
          ok(await call(again, session, "GET", "/workflows", own)),
        ];
      } finally {
        await again.close();
      }
    };
    const first = await defaults();
    expect(first.map((records) => records.length)).toEqual([1, 1, 1]);
    expect(await defaults()).toEqual(first);
  });

  it("another account's defaults stay invisible", async () => {
    const bob = await login(server, "bob", "correct-horse-2");
    const seen = ok(await call(server, demo, "GET", "/workflows", { query: { "owner._id": bob["X-Account-Id"] } }));
    expect(seen).toEqual([]);
  });
});

describe("defaults are made with the account, never by a read", () => {
  it("an account at its quota reads its jobs and projects (no default project written on the way)", async () => {
    const lines: string[] = [];
    const full = await startTestServer({
      users: ["carol:correct-horse-3"],
      quotaRecords: 0,
      accountDefaults: true,
      log: (line) => lines.push(line),
    });
    try {
      expect(lines.join("\n")).toMatch(/account carol is at its quota; its default projects, materials, workflows/);
      const carol = await login(full, "carol", "correct-horse-3");
      for (const collection of ["jobs", "projects", "workflows", "materials"])
        expect((await call(full, carol, "GET", `/${collection}`)).status, collection).toBe(200);
      const own = ok(await call(full, carol, "GET", "/projects", { query: { "owner._id": carol["X-Account-Id"] } }));
      expect(own).toEqual([]);
      expect(errorMessage(await call(full, carol, "PUT", "/jobs/create", { body: {} }), 403)).toMatch(/quota/);
    } finally {
      await full.close();
    }
  });

  it("an existing --store gets its accounts' defaults once, and keeps them across restarts", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "matframe-defaults-"));
    const store = path.join(dir, "store");
    const owned = async (accountDefaults: boolean) => {
      const server = await startTestServer({ store, accountDefaults });
      try {
        const session = await login(server);
        const counts: Record<string, number> = {};
        for (const collection of ["projects", "materials", "workflows"])
          counts[collection] = ok(
            await call(server, session, "GET", `/${collection}`, { query: { "owner._id": session["X-Account-Id"] } }),
          ).length;
        return counts;
      } finally {
        await server.close();
      }
    };
    try {
      // A store from a server that made only the default project (as `startServer` does from code).
      expect(await owned(false)).toEqual({ projects: 1, materials: 0, workflows: 0 });
      expect(await owned(true)).toEqual({ projects: 1, materials: 1, workflows: 1 });
      expect(await owned(true)).toEqual({ projects: 1, materials: 1, workflows: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("requests the notebooks send that were refused", () => {
  it("a workflow body that still holds the bank copy's _id makes a new workflow, with its systemName", async () => {
    const [bank] = ok(
      await call(server, demo, "GET", "/bank-workflows", { params: { systemName: "shell-shell-script" } }),
    );
    const { owner: _owner, createdAt: _created, systemName: _name, ...body } = bank;
    const made = ok(
      await call(server, demo, "PUT", "/workflows/create", { body: { ...body, owner: { _id: demo["X-Account-Id"] } } }),
    );
    expect(made._id).not.toBe(bank._id);
    expect(made.owner._id).toBe(demo["X-Account-Id"]);
    expect(made.systemName).toBe("shell-shell-script");
    expect(made.isDefault).toBe(false);
    expect(ok(await call(server, demo, "GET", `/bank-workflows/${bank._id}`)).owner.slug).toBe("mat3ra-standata");
  });

  it("the server's systemName rule gives every bank workflow the name the data builder gave it", async () => {
    const bank = ok(await call(server, demo, "GET", "/bank-workflows", { projection: { limit: 100 } })) as any[];
    for (const workflow of bank) expect(systemNameOf(workflow), workflow.name).toBe(workflow.systemName);
  });

  it('a job with "_material": "null" (a string) gets the default material', async () => {
    const job = ok(
      await call(server, demo, "PUT", "/jobs/create", {
        body: { owner: { _id: demo["X-Account-Id"] }, name: "SCF Calculation", _material: "null" },
      }),
    );
    const [material] = ok(
      await call(server, demo, "GET", "/materials", { query: { isDefault: true, "owner._id": demo["X-Account-Id"] } }),
    );
    expect(job._material._id).toBe(material._id);
  });

  it("GET other/clusters lists this machine as one cluster with the D queue", async () => {
    const clusters = ok(await call(server, demo, "GET", "/other/clusters"));
    expect(clusters).toHaveLength(1);
    expect(clusters[0]).toMatchObject({ fqdn: "cluster-001", displayName: "cluster-001" });
    expect(clusters[0].hostname).toEqual(expect.any(String));
    expect(clusters[0].cores).toBeGreaterThan(0);
    expect(clusters[0].queues[0].NAME).toBe("D");
    expect((await call(server, {}, "GET", "/other/clusters")).status).toBe(401);
    expect(errorMessage(await call(server, demo, "POST", "/other/clusters"), 405)).toMatch(/GET/);
  });

  it("charges lists the account's (no) charges, read-only", async () => {
    expect(ok(await call(server, demo, "GET", "/charges", { query: { jid: "1.cluster-001" } }))).toEqual([]);
    expect(errorMessage(await call(server, demo, "PUT", "/charges/create", { body: {} }), 403)).toMatch(/read-only/);
  });

  it("a job PATCH keeps the fields it sets, not its updateParameters", async () => {
    const job = ok(await call(server, demo, "PUT", "/jobs/create", { body: { name: "patched" } }));
    const context = { isKgridEdited: true, kgrid: { dimensions: [6, 6, 1] } };
    const updated = ok(
      await call(server, demo, "PATCH", `/jobs/${job._id}`, {
        body: { updateParameters: { skipRender: false }, "workflow.subworkflows.0.units.0.context": context },
      }),
    );
    expect(updated).not.toHaveProperty("updateParameters");
    expect(updated.workflow.subworkflows[0].units[0].context).toEqual(context);
    expect(ok(await call(server, demo, "GET", `/jobs/${job._id}`))).not.toHaveProperty("updateParameters");
  });
});

describe("server-owned fields on create", () => {
  it("create-set refuses status, localRun, startTime, formula and derivedProperties", async () => {
    for (const field of ["status", "localRun", "startTime", "formula", "derivedProperties"]) {
      for (const collection of ["jobs", "materials"]) {
        const res = await call(server, demo, "PUT", `/${collection}/create-set`, {
          body: { name: "set", [field]: field === "status" ? "pre-submission" : "x" },
        });
        expect(errorMessage(res, 400), `${collection} ${field}`).toMatch(new RegExp(`${field} is refused`));
      }
    }
  });

  it("create-set answers 403 for a foreign owner, and takes the caller's own", async () => {
    const bob = await login(server, "bob", "correct-horse-2");
    const foreign = await call(server, demo, "PUT", "/jobs/create-set", {
      body: { name: "set", owner: { _id: bob["X-Account-Id"] } },
    });
    expect(errorMessage(foreign, 403)).toMatch(/your own account id/);
    const [project] = ok(
      await call(server, demo, "GET", "/projects", { query: { isDefault: true, "owner._id": demo["X-Account-Id"] } }),
    );
    const set = ok(
      await call(server, demo, "PUT", "/jobs/create-set", {
        body: { name: "jobs-set", projectId: project._id, owner: { _id: demo["X-Account-Id"] } },
      }),
    );
    expect(set.owner._id).toBe(demo["X-Account-Id"]);
    expect(set).not.toHaveProperty("status");
    expect(errorMessage(await call(server, demo, "POST", `/jobs/${set._id}/submit`), 400)).toMatch(/pre-submission/);
  });

  it("a project or workflow is never created as the default: the account keeps one", async () => {
    for (const collection of ["projects", "workflows"]) {
      const made = ok(
        await call(server, demo, "PUT", `/${collection}/create`, { body: { name: "x", isDefault: true } }),
      );
      expect(made.isDefault, collection).toBe(false);
      const defaults = ok(
        await call(server, demo, "GET", `/${collection}`, {
          query: { isDefault: true, "owner._id": demo["X-Account-Id"] },
        }),
      );
      expect(defaults, collection).toHaveLength(1);
    }
  });

  it("a job's create refuses localRun and startTime", async () => {
    for (const field of ["localRun", "startTime"]) {
      const res = await call(server, demo, "PUT", "/jobs/create", { body: { name: "x", [field]: "x" } });
      expect(errorMessage(res, 400)).toMatch(new RegExp(`${field} is refused`));
    }
  });
});

describe("writes checked against ESSE", () => {
  it("a workflow body from standata with empty context lists is stored valid; an invalid one is refused with its path", async () => {
    const [bank] = ok(
      await call(server, demo, "GET", "/bank-workflows", { params: { systemName: "shell-shell-script" } }),
    );
    const { _id: _bank, owner: _owner, createdAt: _created, ...body } = structuredClone(bank);
    // Newer standata writes an empty context as [], as the qe_scf_calculation notebook's body has it.
    body.subworkflows[0].units[0].context = [];
    const made = ok(await call(server, demo, "PUT", "/workflows/create", { body }));
    expect(made.subworkflows[0].units[0].context).toEqual({});
    const broken = await call(server, demo, "PUT", "/workflows/create", { body: { ...body, subworkflows: "none" } });
    expect(errorMessage(broken, 400)).toMatch(/does not validate against ESSE's "workflow" schema: \/subworkflows/);
    const patched = await call(server, demo, "PATCH", `/workflows/${made._id}`, { body: { $set: { units: 3 } } });
    expect(errorMessage(patched, 400)).toMatch(
      /after the update does not validate against ESSE's "workflow" schema: \/units/,
    );
    expect(ok(await call(server, demo, "GET", `/workflows/${made._id}`)).units).toEqual(made.units);
  });

  it("a job whose compute names a queue ESSE does not know is refused with the path", async () => {
    const res = await call(server, demo, "PUT", "/jobs/create", { body: { compute: { queue: "nope" } } });
    expect(errorMessage(res, 400)).toMatch(/ESSE's "job" schema: \/compute\/queue/);
  });
});
