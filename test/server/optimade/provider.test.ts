import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, OptimadeClient, OptimadeFilterError } from "../../../src";
import { startServer, type ServerHandle } from "../../../src/server";
import { at, defined } from "../../support/checked";

// `matframe serve` as an OPTIMADE provider, read over HTTP by matframe's own OptimadeClient and
// checked against the same materials read through the platform API.

let server: ServerHandle;
let client: Client;
let op: OptimadeClient;
let origin: string;

beforeAll(async () => {
  server = await startServer({ port: 0, synthetic: 60 });
  origin = new URL(server.baseUrl).origin;
  client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  op = new OptimadeClient({ baseUrl: `${origin}/optimade` });
});

afterAll(async () => {
  await op?.close();
  await client?.logout();
  await server?.close();
});

async function get(path: string): Promise<{ status: number; type: string | null; body: any }> {
  const response = await fetch(`${origin}${path}`);
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: text.startsWith("{") ? JSON.parse(text) : text,
  };
}

/** Each material's elements, as the platform stores its basis. */
async function platformElements(): Promise<Map<string, string[]>> {
  const elements = new Map<string, string[]>();
  for await (const m of client.materials.iterate({ fields: { basis: 1 } })) {
    const basis = (m as unknown as { basis: { elements: { value: string }[] } }).basis;
    elements.set(m._id, [...new Set(basis.elements.map((e) => e.value))].sort());
  }
  return elements;
}

describe("matframe serve /optimade", () => {
  it("answers versions, info, info/structures and links", async () => {
    const versions = await get("/optimade/versions");
    expect(versions.status).toBe(200);
    expect(versions.type).toMatch(/^text\/csv/);
    expect(versions.body).toBe("version\n1\n");
    const info = await get("/optimade/v1/info");
    expect(info.type).toBe("application/vnd.api+json");
    expect(info.body.data.attributes).toMatchObject({ api_version: "1.2.0", is_index: false, formats: ["json"] });
    expect(info.body.meta.provider.prefix).toBe("matframe");
    const properties = (await get("/optimade/v1/info/structures")).body.data.properties;
    expect(properties.nsites).toMatchObject({ type: "integer", sortable: true });
    expect((await get("/optimade/v1/links")).body.data).toEqual([]);
  });

  it("serves every material once over links.next, with the platform's elements", async () => {
    const elements = await platformElements();
    const seen = new Map<string, string[]>();
    for await (const s of op.structures.iterate({ fields: ["elements", "nelements", "nsites"], pageSize: 7 }))
      seen.set(s.id, s.attributes!.elements as string[]);
    expect(seen).toEqual(elements);
    expect(seen.size).toBe(server.materialCount);
  });

  it("filters with the full grammar, as the platform's own data says", async () => {
    const elements = await platformElements();
    const [, some] = defined(
      [...elements].find(([, e]) => e.length >= 2),
      "a material of two or more elements",
    );
    const element = at(some, 0, "its first element");
    const expected = [...elements].filter(([, e]) => e.includes(element) && e.length === 2).map(([id]) => id);
    const filter = `elements HAS "${element}" AND nelements=2`;
    const ids: string[] = [];
    for await (const s of op.structures.iterate({ filter, pageSize: 3 })) ids.push(s.id);
    expect(ids).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
    const none: string[] = [];
    for await (const s of op.structures.iterate({ filter: 'elements HAS "Og"' })) none.push(s.id);
    expect(none).toEqual([]);
  });

  it("reads one structure, and its rows agree with the platform's materials", async () => {
    const [first] = await client.materials.list({ projection: { limit: 1 } });
    const s = await op.structures.get((first as { _id: string })._id, { fields: ["nsites", "species_at_sites"] });
    expect(s.attributes!.nsites).toBe((first as unknown as { basis: { elements: unknown[] } }).basis.elements.length);
    const df = await op.structures.toDataFrame({
      columns: ["id", "derivedProperties.density", "_matframe_density"],
      maxItems: 10,
    });
    for (const [, computed, stored] of df.values as [string, number, number][]) expect(computed).toBeCloseTo(stored, 4);
  });

  it("answers errors in OPTIMADE's format", async () => {
    const bad = await get("/optimade/v1/structures?filter=nelements%3D");
    expect(bad.status).toBe(400);
    expect(bad.type).toBe("application/vnd.api+json");
    expect(bad.body.errors[0]).toMatchObject({ status: "400", title: "Bad Request" });
    expect(bad.body.errors[0].detail).toMatch(/does not parse at column 11/);
    expect(bad.body.meta.api_version).toBe("1.2.0");
    expect((await get("/optimade/v1/structures?filter=colour%3D1")).body.errors[0].detail).toMatch(
      /"colour", which is not a property/,
    );
    expect((await get("/optimade/v1/structures?page_limit=5000")).status).toBe(403);
    expect((await get("/optimade/v1/structures/nope")).status).toBe(404);
    expect((await get("/optimade/v2/info")).status).toBe(553);
    await expect(op.structures.toDataFrame({ filter: "nelements=" })).rejects.toBeInstanceOf(OptimadeFilterError);
  });

  it("sorts and pages with page_limit and page_offset", async () => {
    const page = (
      await get("/optimade/v1/structures?sort=-nsites,id&page_limit=4&page_offset=2&response_fields=nsites")
    ).body;
    expect(page.data).toHaveLength(4);
    const sizes = page.data.map((d: { attributes: { nsites: number } }) => d.attributes.nsites);
    expect([...sizes].sort((a, b) => b - a)).toEqual(sizes);
    expect(page.links.next).toContain("page_offset=6");
    expect(page.meta.data_returned).toBe(server.materialCount);
  });
});
