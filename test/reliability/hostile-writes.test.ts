import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import { Client, StructureError, fromCif, fromPoscar, toCif } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { login, PREFIX, rawRequest, type Session } from "../server/helpers";
import { at } from "../support/checked";

// Small hostile writes, as an outside probe sent them: each one either killed the server (a
// heap exhausted by a size the request only declared), answered 500, or left a record whose
// structure disagreed with itself. Each is now a 4xx that names the limit, and the server serves
// the next request.

let server: ServerHandle;
let session: Session;
let materialId: string;

beforeAll(async () => {
  server = await startServer({ port: 0, maxConnections: 8, quotaRecords: 40, quotaBytes: 4 * 1024 * 1024 });
  session = await login(server);
  const created = await send("PUT", "/materials/create", { name: "target", tags: ["a", "b"] });
  materialId = created.body.data._id;
});

afterAll(async () => {
  await server?.close();
});

function send(method: string, route: string, body?: unknown, who: Session = session) {
  return rawRequest(server, method, `${PREFIX}${route}`, {
    headers: { ...who, "Content-Type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The server still answers: a read of the materials works. */
async function alive(): Promise<void> {
  const res = await rawRequest(
    server,
    "GET",
    `${PREFIX}/materials?projection=${encodeURIComponent(JSON.stringify({ limit: 1 }))}`,
    { headers: { ...session } },
  );
  expect(res.status).toBe(200);
}

const POSCAR = (counts: string, mode = "Direct", cell = ["5 0 0", "0 5 0", "0 0 5"]) =>
  ["hostile", "1.0", ...cell, "Si", counts, mode, "0 0 0", "0.25 0.25 0.25"].join("\n");

describe("sizes a request only declares are bounded before anything of that size is built", () => {
  it.each([
    [
      "an atom count of 2,000,000,000 (92 bytes)",
      POSCAR("2000000000"),
      /declares 2,000,000,000 atoms; a structure may have at most 100,000/,
    ],
    [
      "an atom count of 1e20",
      POSCAR("1e20"),
      /declares 100,000,000,000,000,000,000 atoms|counts must be whole numbers/,
    ],
    ["more atoms declared than coordinate lines", POSCAR("3"), /declares 3 atoms, but the file has 2 coordinate lines/],
    ["cartesian coordinates in a flat cell", POSCAR("2", "Cartesian", ["1 0 0", "2 0 0", "0 0 1"]), /flat cell/],
    ["a zero scale", POSCAR("2").replace("\n1.0\n", "\n0\n"), /scale factor/],
  ])("POSCAR import with %s: 400 naming the problem, and the server lives", async (_name, content, message) => {
    const res = await send("POST", "/materials/import", { format: "poscar", content });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    await alive();
  });

  it("the client's fromPoscar refuses the same count at once, in the user's own process", () => {
    expect(() => fromPoscar(POSCAR("2000000000"))).toThrow(StructureError);
    expect(() => fromPoscar(POSCAR("2000000000"))).toThrow(/at most 100,000/);
  });

  it.each([
    ["$set at index 200000000", { $set: { "tags.200000000": "x" } }, /index 200000000; an index may be at most 100000/],
    [
      "$set at index 4294967294",
      { $set: { "tags.4294967294": "x" } },
      /index 4294967294; an index may be at most 100000/,
    ],
    ["$push into an index path", { $push: { "tags.4294967294": "x" } }, /an index may be at most 100000/],
    [
      "an index past the array's end",
      { $set: { "tags.50": "x" } },
      /tags has 2 entries, so index 50 would leave a gap/,
    ],
  ])("PATCH with %s: 400 naming the limit, and the server lives", async (_name, modifier, message) => {
    const res = await send("PATCH", `/materials/${materialId}`, modifier);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    await alive();
  });

  it("an index at the array's end appends, as MongoDB does", async () => {
    const res = await send("PATCH", `/materials/${materialId}`, { $set: { "tags.2": "c" } });
    expect(res.status).toBe(200);
    expect(res.body.data.tags).toEqual(["a", "b", "c"]);
  });
});

describe("fields the platform derives are not set by hand", () => {
  let silicon: Record<string, any>;
  beforeAll(async () => {
    const content = POSCAR("2");
    silicon = (await send("POST", "/materials/import", { format: "poscar", content })).body.data;
  });

  it.each([
    ["$set formula", { $set: { formula: "Au" } }, /formula is computed from the structure/],
    ["$set unitCellFormula", { $set: { unitCellFormula: "Au4" } }, /unitCellFormula is computed from the structure/],
    [
      "$set a derived property",
      { $set: { "derivedProperties.0.value": 99 } },
      /derivedProperties is computed from the structure/,
    ],
    ["a plain field object naming formula", { formula: "Au" }, /formula is computed from the structure/],
    ["$unset basis", { $unset: { basis: "" } }, /a material keeps its basis/],
    ["$unset lattice", { $unset: { lattice: "" } }, /a material keeps its lattice/],
  ])("%s: 400, and the record is unchanged", async (_name, modifier, message) => {
    const res = await send("PATCH", `/materials/${silicon._id}`, modifier);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect((await send("GET", `/materials/${silicon._id}`)).body.data).toEqual(silicon);
  });

  it("changing the structure recomputes them", async () => {
    const res = await send("PATCH", `/materials/${silicon._id}`, { $set: { "basis.elements.0.value": "Ge" } });
    expect(res.status).toBe(200);
    expect(res.body.data.formula).toBe("SiGe");
    expect(res.body.data.derivedProperties).not.toEqual(silicon.derivedProperties);
  });
});

describe("CIF import", () => {
  /** A CIF of `n` distinct sites and `ops` translations that map the set onto itself. */
  function bigCif(n: number, ops: number): string {
    const lines = [
      "data_big",
      "_cell_length_a 50",
      "_cell_length_b 50",
      "_cell_length_c 50",
      "loop_",
      "_symmetry_equiv_pos_as_xyz",
    ];
    for (let k = 0; k < ops; k++) lines.push(`'x+${k}/${ops}, y, z'`);
    lines.push(
      "loop_",
      "_atom_site_label",
      "_atom_site_type_symbol",
      "_atom_site_fract_x",
      "_atom_site_fract_y",
      "_atom_site_fract_z",
    );
    for (let i = 0; i < n; i++)
      lines.push(
        `Si${i} Si ${((i % ops) / ops / 1).toFixed(6)} ${(Math.floor(i / ops) / Math.ceil(n / ops)).toFixed(6)} 0.5`,
      );
    return lines.join("\n");
  }

  it("4,000 atoms under 10 translations merge to the distinct sites (the duplicate check is no longer a scan of every site)", async () => {
    const parsed = fromCif(bigCif(4000, 10));
    // Each site's 10 images land on sites of the same set: 4,000 distinct atoms.
    expect(parsed.basis.elements).toHaveLength(4000);
    const res = await send("POST", "/materials/import", { format: "cif", content: bigCif(4000, 10) });
    expect(res.status).toBe(200);
    expect(res.body.data.basis.elements).toHaveLength(4000);
    await send("DELETE", `/materials/${res.body.data._id}`);
  });

  it("a structure whose space-group search runs past its budget is stored without symmetry, and others are served meanwhile", async () => {
    // A 400-atom grid: moyo's search takes about 17 s here, in one synchronous WebAssembly call.
    let answered = false;
    const pending = send("POST", "/materials/import", { format: "cif", content: bigCif(400, 10) }).finally(
      () => (answered = true),
    );
    await alive();
    // The read was answered while the search ran.
    expect(answered).toBe(false);
    const res = await pending;
    expect(res.status).toBe(200);
    const names = res.body.data.derivedProperties.map((property: { name: string }) => property.name);
    expect(names).toContain("volume");
    expect(names).not.toContain("symmetry");
    // The next structure gets a fresh worker and its space group.
    const silicon = await send("POST", "/materials/import", { format: "poscar", content: POSCAR("2") });
    expect(silicon.status).toBe(200);
    expect(
      silicon.body.data.derivedProperties.find((property: { name: string }) => property.name === "symmetry")
        ?.spaceGroupSymbol,
    ).toMatch(/^[PIFCAR]/);
    await send("DELETE", `/materials/${res.body.data._id}`);
    await send("DELETE", `/materials/${silicon.body.data._id}`);
  });

  it("a CIF that expands past the atom limit is refused with 400", async () => {
    const huge = await send("POST", "/materials/import", {
      format: "cif",
      content: bigCif(20_000, 10).replace(/(_symmetry_equiv_pos_as_xyz)/, "$1\n'x, y, z+1/3'\n'x, y, z+2/3'"),
    });
    expect(huge.status).toBe(400);
    await alive();
  });

  it("fromCif reads back matframe's own CIF of a record with a 10 MB name (no recursion on input size)", () => {
    const record = {
      _id: "x1",
      name: "N".repeat(10 * 1024 * 1024),
      lattice: { a: 5, b: 5, c: 5, alpha: 90, beta: 90, gamma: 90, type: "CUB" },
      basis: { elements: [{ id: 0, value: "Si" }], coordinates: [{ id: 0, value: [0, 0, 0] }], units: "crystal" },
    };
    const parsed = fromCif(toCif(record as never));
    expect(parsed.name).toHaveLength(10 * 1024 * 1024);
    expect(parsed.basis.elements).toEqual([{ id: 0, value: "Si" }]);
  });
});

describe("per-account quota", () => {
  it("an account that fills its quota gets 403 saying so; another account is not affected", async () => {
    const other = await startServer({
      port: 0,
      quotaRecords: 5,
      quotaBytes: 64 * 1024,
      users: ["alice:pw-alice-1", "bob:pw-bob-1"],
    });
    try {
      const alice = await login(other, "alice", "pw-alice-1");
      const bob = await login(other, "bob", "pw-bob-1");
      const put = (who: Session, body: unknown) =>
        rawRequest(other, "PUT", `${PREFIX}/materials/create`, {
          headers: { ...who, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      // The account's default project, made with the account, is one of its 5 records.
      for (let i = 0; i < 4; i++) expect((await put(alice, { name: `n${i}` })).status).toBe(200);
      const over = await put(alice, { name: "one too many" });
      expect(over.status).toBe(403);
      expect(over.body.message).toMatch(
        /has 5 records, its quota on this server \(5\); delete some before creating more/,
      );
      expect((await put(bob, { name: "bob's first" })).status).toBe(200);
      const big = await put(bob, { name: "x".repeat(70 * 1024) });
      expect(big.status).toBe(403);
      expect(big.body.message).toMatch(/past its quota on this server \(65536 bytes\)/);
    } finally {
      await other.close();
    }
  });
});

describe("over --max-connections", () => {
  it("connections whose request has not arrived are not dropped; new ones get 503 with Retry-After, and logins retry to success", async () => {
    const quiet: Socket[] = [];
    try {
      // Eight connections that have not sent their request yet fill the cap.
      for (let i = 0; i < 8; i++) {
        const socket = connect(server.port, "127.0.0.1");
        socket.on("error", () => undefined);
        await new Promise((resolve) => socket.once("connect", resolve));
        quiet.push(socket);
      }
      // The server counts a connection when it accepts it, which may come just after the client's
      // connect: a request that came first is answered, one after is refused.
      const ask = () =>
        rawRequest(server, "GET", `${PREFIX}/materials`, { headers: { ...session } }).catch((error: Error) => error);
      let refused = await ask();
      await expect
        .poll(async () => {
          if (!(refused instanceof Error) && refused.status === 503) return 503;
          refused = await ask();
          return refused instanceof Error ? refused.message : refused.status;
        })
        .toBe(503);
      expect((refused as { status: number }).status).toBe(503);
      expect((refused as { headers: Record<string, unknown> }).headers["retry-after"]).toBe("1");
      // A quiet connection still gets its answer when its request arrives.
      const first = at(quiet, 0, "a quiet connection");
      const answer = new Promise<string>((resolve) => {
        let text = "";
        first.on("data", (chunk) => (text += chunk));
        first.on("end", () => resolve(text));
      });
      first.end(
        `GET ${PREFIX}/materials/${materialId} HTTP/1.1\r\nHost: x\r\nX-Account-Id: ${session["X-Account-Id"]}\r\nX-Auth-Token: ${session["X-Auth-Token"]}\r\nConnection: close\r\n\r\n`,
      );
      expect(await answer).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      for (const socket of quiet) socket.destroy();
    }
    // Many logins at once over the cap: each either gets in at once or is told to retry, and retries.
    const clients = await Promise.all(
      Array.from({ length: 30 }, () =>
        Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo", maxRetries: 10 }),
      ),
    );
    expect(clients).toHaveLength(30);
    await Promise.all(clients.map((client) => client.close()));
  }, 60_000);
});
