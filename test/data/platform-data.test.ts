import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";

// `npm run platform-data` must rebuild exactly the committed files from the upstream files kept
// in data/sources/, and those must be the upstream files byte for byte (their git blob ids, as
// `git hash-object` prints them, are the ones the upstream repositories hold).
const ROOT = path.join(__dirname, "..", "..");
const DATA = path.join(ROOT, "data");
const FILES = ["bank-workflows.json", "reference-materials.json", "reference-results.json"];
const dir = mkdtempSync(path.join(tmpdir(), "matframe-platform-data-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function gitBlobId(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

describe("the platform data", () => {
  it("is rebuilt byte for byte by scripts/build-platform-data.js", () => {
    execFileSync(process.execPath, [path.join(ROOT, "scripts", "build-platform-data.js")], {
      env: { ...process.env, MATFRAME_PLATFORM_DATA_OUT: dir },
      stdio: "pipe",
    });
    for (const file of FILES)
      expect(readFileSync(path.join(dir, file), "utf8"), file).toBe(readFileSync(path.join(DATA, file), "utf8"));
  }, 120_000);

  it("comes from the upstream files, unchanged: matminer's CSV blob and standata's 55 workflow blobs", () => {
    const csv = gunzipSync(readFileSync(path.join(DATA, "sources", "matminer-dielectric_constant.csv.gz")));
    expect(gitBlobId(csv)).toBe("dff984b33e2ab6f563e34e28fa1494b205cb7793");
    expect(csv.toString("utf8")).toMatch(
      /^# ref: Petousis, I\., .* Sci\. Data 4, 160134 \(2017\)\.\nidx,band_gap,e_electronic/,
    );
    const standata = JSON.parse(
      gunzipSync(readFileSync(path.join(DATA, "sources", "standata-workflows.json.gz"))).toString("utf8"),
    );
    expect(standata.commit).toBe("267b0429d382b6a6299e9a0927144a218ff7c149");
    expect(standata.files).toHaveLength(55);
    for (const file of standata.files) expect(gitBlobId(Buffer.from(file.content, "utf8")), file.path).toBe(file.blob);
  });

  it("keeps each published band gap as given, one per Materials Project material, with the dataset's columns and nothing else", () => {
    const { results } = JSON.parse(readFileSync(path.join(DATA, "reference-results.json"), "utf8"));
    const materials = JSON.parse(readFileSync(path.join(DATA, "reference-materials.json"), "utf8"));
    expect(results).toHaveLength(1056);
    expect(new Set(results.map((r: any) => r.material.external)).size).toBe(1056);
    expect(materials.map((m: any) => m._id).sort()).toEqual(results.map((r: any) => r.material._id).sort());
    expect(results.find((r: any) => r.material.external === "mp-441")).toMatchObject({
      bandGap: 1.88,
      hubbardU: false,
      row: 0,
    });
    expect(results.filter((r: any) => r.hubbardU)).toHaveLength(84);
    // The CSV's columns and the flag read from its meta; no number of matframe's making
    // (test/results/dielectric.test.ts compares each with pandas' reading).
    const keys = [
      "material",
      "bandGap",
      "hubbardU",
      "row",
      "eElectronic",
      "eTotal",
      "polyElectronic",
      "polyTotal",
      "n",
      "potFerroelectric",
    ];
    for (const result of results) expect(Object.keys(result)).toEqual(keys);
    // The CSV's own column, read by another reader (a plain split; the first fields are unquoted).
    const lines = gunzipSync(readFileSync(path.join(DATA, "sources", "matminer-dielectric_constant.csv.gz")))
      .toString("utf8")
      .split("\n")
      .slice(2)
      .filter(Boolean);
    expect(results.map((r: any) => r.bandGap)).toEqual(lines.map((line) => Number(line.split(",")[1])));
  });
});
