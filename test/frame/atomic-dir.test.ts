import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OutputError } from "../../src/errors";
import { openAtomicDir, placeDir } from "../../src/frame/export/atomic/atomic-dir";

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "matframe-atomic-dir-"));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function oldExport(): string {
  const target = path.join(root, "structures");
  fs.mkdirSync(target);
  fs.writeFileSync(path.join(target, "old.cif"), "old data");
  return target;
}

describe("replacing a directory export with force", () => {
  it("puts the new directory in place and leaves nothing of the old one beside it", async () => {
    const target = oldExport();
    const dir = openAtomicDir(target, { force: true });
    fs.writeFileSync(path.join(dir.tempPath, "new.cif"), "new data");
    await dir.commit();
    expect(fs.readdirSync(target)).toEqual(["new.cif"]);
    expect(fs.readdirSync(root)).toEqual(["structures"]);
  });

  it("keeps the old directory when the new one cannot be renamed in", async () => {
    const target = oldExport();
    // A source that is gone by the time it is placed: the rename into the target fails after the
    // old directory was moved aside, so the old one must come back.
    await expect(placeDir(path.join(root, ".gone.partial"), target, "structures", true)).rejects.toThrow(OutputError);
    expect(fs.readFileSync(path.join(target, "old.cif"), "utf8")).toBe("old data");
    expect(fs.readdirSync(root)).toEqual(["structures"]);
  });
});
