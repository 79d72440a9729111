import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { SymmetryQueueFull, SymmetryThread } from "../../src/server/records/symmetry-thread";
import { login, PREFIX, rawRequest, startTestServer, type Session } from "./helpers";

/** Diamond silicon, `n`×`n`×`n` conventional cells (8 atoms each): highly symmetric, slow for moyo. */
function siliconSupercell(n: number) {
  const sites: [number, number, number][] = [
    [0, 0, 0],
    [0, 0.5, 0.5],
    [0.5, 0, 0.5],
    [0.5, 0.5, 0],
    [0.25, 0.25, 0.25],
    [0.25, 0.75, 0.75],
    [0.75, 0.25, 0.75],
    [0.75, 0.75, 0.25],
  ];
  const coordinates: { id: number; value: number[] }[] = [];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < n; k++) {
        for (const [x, y, z] of sites)
          coordinates.push({ id: coordinates.length, value: [(x + i) / n, (y + j) / n, (z + k) / n] });
      }
  const a = 5.43 * n;
  return {
    name: `Si ${n}x${n}x${n}`,
    lattice: {
      a,
      b: a,
      c: a,
      alpha: 90,
      beta: 90,
      gamma: 90,
      type: "CUB",
      units: { length: "angstrom", angle: "degree" },
    },
    basis: { elements: coordinates.map(({ id }) => ({ id, value: "Si" })), coordinates, units: "crystal" },
  };
}

const SILICON_PRIMITIVE = {
  name: "Si",
  lattice: {
    a: 3.867,
    b: 3.867,
    c: 3.867,
    alpha: 60,
    beta: 60,
    gamma: 60,
    type: "FCC",
    units: { length: "angstrom", angle: "degree" },
  },
  basis: {
    elements: [
      { id: 0, value: "Si" },
      { id: 1, value: "Si" },
    ],
    coordinates: [
      { id: 0, value: [0, 0, 0] },
      { id: 1, value: [0.25, 0.25, 0.25] },
    ],
    units: "crystal",
  },
};

function create(server: ServerHandle, session: Session, record: unknown) {
  return rawRequest(server, "PUT", `${PREFIX}/materials/create`, {
    headers: { ...session, "Content-Type": "application/json" },
    body: JSON.stringify(record),
  });
}

describe("space-group searches are shared fairly between accounts", () => {
  let server: ServerHandle;
  let anna: Session;
  let ben: Session;
  beforeAll(async () => {
    // Each 512-atom search runs its whole budget and is stopped; the budget is long enough that ben's
    // create arrives while anna's first searches run, even on a loaded machine.
    server = await startTestServer({ users: ["anna:anna-password-1", "ben:ben-password-1"], symmetryBudgetMs: 600 });
    anna = await login(server, "anna", "anna-password-1");
    ben = await login(server, "ben", "ben-password-1");
  });
  afterAll(() => server.close());

  it("one account's flood of expensive creates does not hold another account's small create behind it", async () => {
    const order: string[] = [];
    const big = siliconSupercell(4);
    expect(big.basis.elements).toHaveLength(512);
    const flood = Array.from({ length: 8 }, (_, i) =>
      create(server, anna, { ...big, name: `${big.name} #${i}` }).then((res) => {
        order.push("anna");
        return res;
      }),
    );
    // Once anna's first create is answered, the other seven are waiting behind it.
    await Promise.race(flood);
    const small = await create(server, ben, SILICON_PRIMITIVE);
    order.push("ben");
    const answered = await Promise.all(flood);
    expect(small.status).toBe(200);
    expect(answered.map((res) => res.status)).toEqual(Array(8).fill(200));
    // First come first served answers ben ninth; in turn, at most anna's running search comes before his.
    expect(order.indexOf("ben")).toBeLessThanOrEqual(2);
  });
});

describe("a cap on waiting space-group searches", () => {
  it("refuses an account's search past its share of the waiting work with 503 and Retry-After, writing nothing", async () => {
    const server = await startTestServer({
      users: ["anna:anna-password-1", "ben:ben-password-1"],
      // moyo takes about 4 s for the 512-atom supercell here: time enough for the 70 writes to
      // arrive while it runs, even on a loaded machine.
      symmetryBudgetMs: 8_000,
    });
    try {
      const anna = await login(server, "anna", "anna-password-1");
      const ben = await login(server, "ben", "ben-password-1");
      // Ben's 512-atom search holds the worker for its budget; meanwhile anna's 70 writes sent at
      // once find 64 places to wait and no more.
      const slow = create(server, ben, siliconSupercell(4));
      const answers = await Promise.all(Array.from({ length: 70 }, () => create(server, anna, SILICON_PRIMITIVE)));
      expect((await slow).status).toBe(200);
      const refused = answers.filter((res) => res.status === 503);
      const accepted = answers.filter((res) => res.status === 200).length;
      expect(refused.length).toBeGreaterThan(0);
      expect(accepted + refused.length).toBe(70);
      for (const res of refused) {
        expect(res.body).toMatchObject({ status: "error", code: 503 });
        expect(res.body.message).toMatch(
          /This account has many structures waiting.*nothing was written.*again in \d+ s/,
        );
        expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      }
      const query = encodeURIComponent(JSON.stringify({ "owner.slug": "anna" }));
      const stored = await rawRequest(
        server,
        "GET",
        `${PREFIX}/materials?query=${query}&projection=${encodeURIComponent(JSON.stringify({ fields: { _id: 1 }, limit: 500 }))}`,
        { headers: { ...anna } },
      );
      expect(stored.body.data).toHaveLength(accepted);
    } finally {
      await server.close();
    }
  });
});

describe("SymmetryThread's caps", () => {
  it("caps waiting work per account and in all, and closes with every waiting search answered", async () => {
    const thread = new SymmetryThread({ budgetMs: 5_000, maxWaitingPerAccount: 2, maxWaiting: 3 });
    const big = siliconSupercell(4) as never;
    const running = thread.symmetryOf(big, "a");
    const waiting = [thread.symmetryOf(big, "a"), thread.symmetryOf(big, "a")];
    expect(() => thread.symmetryOf(big, "a")).toThrow(SymmetryQueueFull);
    waiting.push(thread.symmetryOf(big, "b"));
    let full: unknown;
    try {
      void thread.symmetryOf(big, "c");
    } catch (error) {
      full = error;
    }
    expect(full).toMatchObject({ whose: "server" });
    expect(thread.waiting).toBe(3);
    await thread.close();
    expect(await Promise.all(waiting)).toEqual([null, null, null]);
    await running;
  });
});
