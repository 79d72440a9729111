import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type ServerHandle } from "../../src/server";
import { Client, ValidationError, type FrameWarning } from "../../src";
import { runCli } from "../reliability/support/cli";
import { at, defined } from "../support/checked";

// A query path that cannot match a material answers an empty table, silently. It is now named
// before the request, with the form that works, and `strict` refuses it.

let server: ServerHandle;
let client: Client;
let dir: string;
const requests: string[] = [];

beforeAll(async () => {
  server = await startServer({ port: 0 });
  client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  dir = mkdtempSync(join(tmpdir(), "matframe-query-paths-"));
});

afterAll(async () => {
  await client?.logout();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function read(
  query: Record<string, unknown>,
  strict = false,
): Promise<{ rows: number; warnings: FrameWarning[] }> {
  const warnings: FrameWarning[] = [];
  const df = await client.materials.toDataFrame({
    query,
    columns: ["formula"],
    strict,
    onWarning: (w) => warnings.push(w),
  });
  requests.push(JSON.stringify(query));
  return { rows: at(df.shape, 0, "the frame's shape"), warnings };
}

describe("query paths checked against the material record", () => {
  it("a named entry of derivedProperties as a dotted path: warned, with the $elemMatch form, which does match", async () => {
    const wrong = await read({ "derivedProperties.density": { $gt: 5 } });
    expect(wrong.rows).toBe(0);
    expect(wrong.warnings).toHaveLength(1);
    const warning = at(wrong.warnings, 0, "the warnings");
    expect(warning).toMatchObject({ code: "QUERY_PATH", path: "derivedProperties.density" });
    expect(warning.message).toMatch(/matches no material: derivedProperties is a list of named entries.*\$elemMatch/);
    const suggested = JSON.parse(defined(warning.suggestion, "the warning's suggestion"));
    expect(suggested).toEqual({ derivedProperties: { $elemMatch: { name: "density", value: { $gt: 5 } } } });
    const right = await read(suggested);
    expect(right.rows).toBeGreaterThan(0);
    expect(right.warnings).toEqual([]);
  });

  it("a misspelt field, also inside $or: the nearest known path", async () => {
    const { warnings } = await read({ $or: [{ formla: "Si" }, { "lattice.typ": "FCC" }] });
    expect(warnings.map((w) => [w.path, w.suggestion])).toEqual([
      ["formla", "formula"],
      ["lattice.typ", "lattice.type"],
    ]);
    expect(at(warnings, 0, "the warnings").message).toBe(
      'The query path "formla" is not a field of material records; did you mean "formula"?',
    );
  });

  it("paths that can match stay quiet: known fields, entry keys, array insides, operators", async () => {
    const { warnings, rows } = await read({
      formula: "Si",
      "derivedProperties.name": "volume",
      "basis.elements.value": "Si",
      "tags.0": { $ne: "no such tag" },
      $and: [{ "lattice.a": { $gt: 1 } }],
    });
    expect(warnings).toEqual([]);
    expect(rows).toBeGreaterThan(0);
  });

  it("strict: refused with a ValidationError before any request", async () => {
    const before = requests.length;
    await expect(read({ "derivedProperties.density": { $gt: 5 } }, true)).rejects.toThrow(ValidationError);
    await expect(
      client.materials.exportCsv(join(dir, "x.csv"), { query: { formla: "Si" }, strict: true }),
    ).rejects.toThrow(/did you mean "formula"/);
    expect(requests.length).toBe(before);
  });

  it("matframe export --query prints the warning in its own words", async () => {
    const run = await runCli([
      "export",
      "--format",
      "csv",
      "--output",
      join(dir, "cli.csv"),
      "--query",
      '{"derivedProperties.density": {"$gt": 5}}',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /The query path "derivedProperties\.density" matches no material.*\{"derivedProperties":\{"\$elemMatch":\{"name":"density","value":\{"\$gt":5\}\}\}\}/,
    );
  });
});
