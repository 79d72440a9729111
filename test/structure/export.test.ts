import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AbortError,
  Client,
  fromCif,
  fromPoscar,
  TargetExistsError,
  ValidationError,
  type FrameWarning,
} from "../../src";
import type { ServerHandle } from "../../src/server";
import { startTestServer } from "../server/helpers";
import { runCli } from "../cli-export/run-cli";
import { at } from "./support/checked";

const bundled = JSON.parse(readFileSync(join(__dirname, "../../data/materials.json"), "utf8")) as Array<
  Record<string, any>
>;

let server: ServerHandle;
let client: Client;
let dir: string;
beforeAll(async () => {
  // The bundled records, one with a basis that disagrees with itself and 1,200 synthetic ones.
  const first = at(bundled, 0, "the bundled materials");
  const broken = {
    ...first,
    _id: "broken-basis",
    basis: { ...first.basis, coordinates: first.basis.coordinates.slice(1) },
  };
  server = await startTestServer({ data: [...bundled, broken], synthetic: 1200 });
  client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  dir = mkdtempSync(join(tmpdir(), "matframe-structures-"));
});
afterAll(async () => {
  await client.logout();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("exportStructures", () => {
  it("writes one file per material with an index, skipping (and naming) a record whose basis disagrees", async () => {
    const target = join(dir, "cif");
    const warnings: FrameWarning[] = [];
    const pages: number[] = [];
    const result = await client.materials.exportStructures(target, {
      format: "cif",
      pageSize: 200,
      onWarning: (w) => warnings.push(w),
      onProgress: (p) => pages.push(p.pages),
    });
    const total = bundled.length + 1200;
    expect(result.items).toBe(total);
    expect(result.skipped).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: "INVALID_STRUCTURE", ids: ["broken-basis"] });
    const files = readdirSync(target);
    expect(files).toHaveLength(total + 1);
    // index.csv's columns (INDEX_HEADER in src/frame/export/structure-export.ts).
    const index = parse(readFileSync(join(target, "index.csv"), "utf8"), { columns: true }) as Array<
      Record<"file" | "_id" | "name" | "formula" | "atoms", string>
    >;
    expect(index).toHaveLength(total);
    expect(new Set(index.map((row) => row.file)).size).toBe(total);
    expect(new Set(files.map((f) => f.toLowerCase())).size).toBe(files.length); // safe where case is ignored
    for (const name of files) expect(name).toMatch(/^[A-Za-z0-9._-]+$/);
    const si = index.find((row) => row.name === "Si, Silicon, FCC (Fd-3m) 3D (Bulk), mp-149")!;
    expect(si.file).toBe(`Si_mp-149_${si._id}.cif`);
    const back = fromCif(readFileSync(join(target, si.file), "utf8"));
    expect(back.basis.elements).toHaveLength(Number(si.atoms));
    expect(pages.at(-1)).toBe(Math.ceil((total + 1) / 200));
  });

  it("writes POSCARs (.vasp) and one multi-frame xyz file", async () => {
    const poscars = join(dir, "poscar");
    await client.materials.exportStructures(poscars, {
      format: "poscar",
      query: { formula: "MoS2" },
      onWarning: () => {},
    });
    const files = readdirSync(poscars).filter((f) => f.endsWith(".vasp"));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files)
      expect(
        fromPoscar(readFileSync(join(poscars, f), "utf8"))
          .basis.elements.map((e) => e.value)
          .filter((e) => e !== "Mo" && e !== "S"),
      ).toEqual([]);
    const single = join(dir, "all.xyz");
    const result = await client.materials.exportStructures(single, {
      format: "xyz",
      singleFile: true,
      maxItems: 50,
      onWarning: () => {},
    });
    expect(result.items).toBe(50);
    const text = readFileSync(single, "utf8");
    expect(text.match(/^\d+\nLattice=/gm)).toHaveLength(50);
  });

  it("leaves nothing behind when it fails, and keeps an existing directory unless forced", async () => {
    const target = join(dir, "aborted");
    const controller = new AbortController();
    const error = await client.materials
      .exportStructures(target, {
        format: "cif",
        pageSize: 50,
        signal: controller.signal,
        onProgress: () => controller.abort(),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("partial"))).toEqual([]);

    const kept = join(dir, "cif");
    await expect(client.materials.exportStructures(kept, { format: "xyz" })).rejects.toBeInstanceOf(TargetExistsError);
    expect(readdirSync(kept).some((f) => f.endsWith(".cif"))).toBe(true);
    await client.materials.exportStructures(kept, { format: "xyz", force: true, maxItems: 3, onWarning: () => {} });
    expect(readdirSync(kept).sort()).toHaveLength(4);
  });

  it("checks its options before any request", async () => {
    await expect(client.materials.exportStructures(join(dir, "x"), { format: "pdb" as never })).rejects.toThrow(
      /format must be "poscar", "cif", "cif-symmetrized" or "xyz"/,
    );
    await expect(
      client.materials.exportStructures(join(dir, "x"), { format: "cif", singleFile: true }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

describe("matframe export --format poscar|cif|xyz", () => {
  it("writes a directory from the built-in local platform", async () => {
    const out = join(dir, "cli-cif");
    const run = await runCli(["export", "--format", "cif", "--output", out, "--query", '{"formula":"Si"}']);
    expect(run.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(expect.arrayContaining(["index.csv"]));
    expect(readdirSync(out).filter((f) => f.endsWith(".cif"))).toHaveLength(2);
  });

  it("answers mistakes in the words of the flags", async () => {
    const stdout = await runCli(["export", "--format", "poscar"]);
    expect(stdout.code).toBe(1);
    expect(stdout.stderr).toMatch(/--format poscar writes one file per material: give --output DIR/);
    const columns = await runCli(["export", "--format", "cif", "--output", join(dir, "never"), "--columns", "formula"]);
    expect(columns.code).toBe(1);
    expect(columns.stderr).toMatch(/--columns applies to csv and ndjson/);
    expect(existsSync(join(dir, "never"))).toBe(false);
  });
});
