import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputeOutcome } from "../../src/server/compute";
import { finalCoordinates } from "../../src/server/compute/pw-output";
import { byHand, hasPw, job, property, schema, validate } from "./pw-runs";

// Bulk silicon (mp-149) relaxed for real with Debian's pw.x through the bank's "Variable-cell
// Relaxation": its final_structure against a vc-relax of the same input run by hand. A file of
// its own so that it runs beside the band gap's (espresso-si.test.ts) in another worker.

const root = mkdtempSync(path.join(tmpdir(), "matframe-si-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.runIf(hasPw)("Si's lattice relaxed with pw.x", () => {
  let outcome: ComputeOutcome;
  let hand: string;

  beforeAll(async () => {
    let handRun: Promise<string> | undefined;
    const started = job(root, "vc-relax", "Variable-cell Relaxation", undefined, (line) => {
      if (line.startsWith("pw_vc_relax: pw.x started"))
        handRun = byHand(root, path.join(root, "vc-relax"), "pw_vc_relax.in");
    });
    outcome = await started.promise;
    hand = await handRun!;
  }, 600_000);

  it("gives a final_structure whose lattice is within 1% of a vc-relax run by hand", () => {
    expect(outcome).toMatchObject({ status: "finished" });
    const final = property(outcome, "final_structure") as {
      lattice: { a: number; b: number; c: number; alpha: number; vectors: { a: number[] } };
      basis: unknown;
    };
    const byHandCell = finalCoordinates(hand)!.cell;
    const handA = Math.hypot(...byHandCell[0]);
    for (const length of [final.lattice.a, final.lattice.b, final.lattice.c])
      expect(Math.abs(length / handA - 1)).toBeLessThan(0.01);
    expect(final.lattice.alpha).toBeCloseTo(60, 1);
    const lattice = validate(final.lattice, schema("properties_directory/structural/lattice.json"));
    const basis = validate(final.basis as object, schema("properties_directory/structural/basis.json"));
    expect([lattice.isValid, basis.isValid]).toEqual([true, true]);
  });
});
