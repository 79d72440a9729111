import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Client,
  NotFoundError,
  PermissionDeniedError,
  StructureError,
  ValidationError,
  toPoscar,
  toCif,
  type MaterialRecord,
} from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { startFaultServer } from "../support/fault-server";
import { at } from "../support/checked";
import { internalsOf } from "../../src/client/client-internals";

// Issue 16: the whole loop from the client, against the local platform over HTTP: create,
// update, copy, import, delete; inputs checked before sending; writes never sent twice.

let server: ServerHandle;
let client: Client;
let silicon: MaterialRecord;

beforeAll(async () => {
  server = await startServer({ port: 0, users: ["ada:lovelace-1815", "bob:babbage-1791"] });
  client = await Client.login({ baseUrl: server.baseUrl, username: "ada", password: "lovelace-1815" });
  silicon = at(
    await client.materials.list({ query: { formula: "Si" }, projection: { limit: 1 } }),
    0,
    "a silicon material",
  );
});

afterAll(async () => {
  await client?.logout();
  await server?.close();
});

describe("writing records", () => {
  it("create, update, read back, delete", async () => {
    const created = await client.materials.create({
      name: "Si, strained 1%",
      formula: "Si",
      lattice: silicon.lattice,
      basis: silicon.basis,
      tags: ["strained"],
    });
    expect(created._id).toMatch(/^[A-Za-z0-9]{17}$/);
    expect(created.owner).toMatchObject({ slug: "ada" });
    expect(created.formula).toBe("Si");

    const updated = await client.materials.update(created._id, {
      $set: { name: "Si, strained 1% (relaxed)" },
      $addToSet: { tags: "relaxed" },
    });
    expect(updated.name).toBe("Si, strained 1% (relaxed)");
    expect(updated.tags).toEqual(["strained", "relaxed"]);
    expect((await client.materials.get(created._id)).name).toBe("Si, strained 1% (relaxed)");
    const renamed = await client.materials.update(created._id, { name: "Si, plain fields" });
    expect(renamed).toMatchObject({ name: "Si, plain fields", tags: ["strained", "relaxed"] });
    expect((await client.materials.get(created._id)).name).toBe("Si, plain fields");
    const mine = await client.materials.list({ query: { "owner.slug": "ada" } });
    expect(mine.map((m) => m._id)).toContain(created._id);

    await client.materials.delete(created._id);
    await expect(client.materials.get(created._id)).rejects.toThrow(NotFoundError);
  });

  it("keeps parameters, vectors and derived properties consistent when a lattice parameter changes", async () => {
    const mine = await client.materials.copy(silicon._id);
    const stretched = await client.materials.update(mine._id, { $set: { "lattice.a": mine.lattice.a * 1.1 } });
    const v = (stretched.lattice as unknown as { vectors: { a: number[] } }).vectors.a;
    expect(Math.hypot(...v)).toBeCloseTo(mine.lattice.a * 1.1, 6);
    const volume = (m: MaterialRecord) => m.derivedProperties.find((p) => p.name === "volume")?.value as number;
    expect(volume(stretched)).toBeGreaterThan(volume(mine) * 1.05);
    // And the other way: new vectors give new parameters.
    const back = await client.materials.update(mine._id, {
      $set: { "lattice.vectors.a": (mine.lattice as unknown as { vectors: { a: number[] } }).vectors.a },
    });
    expect(back.lattice.a).toBeCloseTo(mine.lattice.a, 6);
    expect(volume(back)).toBeCloseTo(volume(mine), 4);
    await client.materials.delete(mine._id);
  });

  it("copies a public material into the account; the public one cannot be changed or deleted", async () => {
    const copy = await client.materials.copy(silicon._id);
    expect(copy._id).not.toBe(silicon._id);
    expect(copy.owner).toMatchObject({ slug: "ada" });
    expect(copy.lattice).toEqual(silicon.lattice);
    await expect(client.materials.update(silicon._id, { $set: { name: "mine now" } })).rejects.toThrow(
      PermissionDeniedError,
    );
    await expect(client.materials.delete(silicon._id)).rejects.toThrow(PermissionDeniedError);
    await client.materials.delete(copy._id);
  });

  it("another account neither sees nor changes my records", async () => {
    const mine = await client.materials.create({ name: "ada's secret phase", formula: "Si" });
    const bob = await Client.login({ baseUrl: server.baseUrl, username: "bob", password: "babbage-1791" });
    try {
      await expect(bob.materials.get(mine._id)).rejects.toThrow(NotFoundError);
      expect(await bob.materials.list({ query: { name: "ada's secret phase" } })).toEqual([]);
      await expect(bob.materials.update(mine._id, { $set: { name: "bob's" } })).rejects.toThrow(/404|403|not/i);
    } finally {
      await bob.logout();
      await client.materials.delete(mine._id);
    }
  });

  it.each([
    ["poscar", toPoscar],
    ["cif", toCif],
  ] as const)("imports a %s written from silicon: the platform computes formula and density", async (format, write) => {
    const imported = await client.materials.importStructure({
      name: `Si from ${format}`,
      content: write(silicon),
      format,
      tags: ["imported"],
    });
    expect(imported.formula).toBe("Si");
    expect(imported.tags).toEqual(["imported"]);
    const density = (m: MaterialRecord) => m.derivedProperties.find((p) => p.name === "density")?.value as number;
    expect(density(imported)).toBeCloseTo(density(silicon), 3);
    await client.materials.delete(imported._id);
  });

  it("a Bearer client writes too", async () => {
    const { authToken } = internalsOf(client).savedCredentials();
    const bearer = new Client({ baseUrl: server.baseUrl, accessToken: authToken });
    const created = await bearer.materials.create({ name: "by bearer", formula: "Si" });
    expect(created.owner).toMatchObject({ slug: "ada" });
    await bearer.materials.delete(created._id);
    await bearer.close();
  });
});

describe("write inputs are checked before anything is sent", () => {
  it.each([
    [
      "a record with an _id",
      () => client.materials.create({ _id: "x", name: "y" }),
      ValidationError,
      /must not have an _id/,
    ],
    [
      "an unknown operator",
      () => client.materials.update("x", { $rename: { a: "b" } } as never),
      ValidationError,
      /"\$rename" is not one the platform accepts/,
    ],
    [
      "fields mixed with operators",
      () => client.materials.update("x", { name: "y", $unset: { tags: "" } }),
      ValidationError,
      /mixes fields \("name"\) with operators/,
    ],
    ["a field _id", () => client.materials.update("x", { _id: "y" }), ValidationError, /cannot change _id/],
    [
      "a change of _id",
      () => client.materials.update("x", { $set: { _id: "y" } }),
      ValidationError,
      /cannot change _id/,
    ],
    [
      "a change of owner",
      () => client.materials.update("x", { $set: { "owner._id": "y" } }),
      ValidationError,
      /cannot change owner/,
    ],
    [
      "a malformed POSCAR",
      () => client.materials.importStructure({ name: "bad", content: "not a poscar", format: "poscar" }),
      StructureError,
      /POSCAR/,
    ],
    [
      "an unknown format",
      () => client.materials.importStructure({ name: "x", content: "x", format: "xyz" as never }),
      ValidationError,
      /format must be "poscar" or "cif"/,
    ],
    ["an empty id", () => client.materials.delete(""), ValidationError, /id must be a non-empty string/],
  ])("%s", async (_what, write, type, message) => {
    const error = await write().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
  });
});

describe("writes are not sent twice", () => {
  it("a 503 or a dropped connection is not retried: the write may have been applied", async () => {
    const fault = await startFaultServer({
      fault: (r) =>
        r.method === "PUT"
          ? { kind: "status", status: 503 }
          : r.method === "PATCH"
            ? { kind: "drop-mid-body" }
            : undefined,
    });
    const writer = new Client({
      baseUrl: fault.baseUrl,
      accountId: fault.accountId,
      authToken: fault.authToken,
      maxRetries: 3,
    });
    await expect(writer.materials.create({ name: "x" })).rejects.toThrow(/503/);
    await expect(writer.materials.update("m1", { $set: { name: "y" } })).rejects.toThrow();
    expect(fault.requests.filter((r) => r.method === "PUT")).toHaveLength(1);
    expect(fault.requests.filter((r) => r.method === "PATCH")).toHaveLength(1);
    await writer.close();
    await fault.close();
  });

  it("a refused connection, which surely sent nothing, is tried again", async () => {
    // Port 1 (tcpmux), which nothing here serves: a closed test server's port may be given to
    // another test's server before the request, which would then answer it.
    const baseUrl = "http://127.0.0.1:1/api/2018-10-01";
    const writer = new Client({ baseUrl, accountId: "a", authToken: "t", maxRetries: 2 });
    const error = await writer.materials.create({ name: "x" }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("ConnectionError");
    expect((error as Error).message).toMatch(/\(3 attempts\)/);
    await writer.close();
  });
});
