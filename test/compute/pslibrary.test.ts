import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computability } from "../../src/server/compute";
import {
  choosePseudopotential,
  forgetPseudopotentialScan,
  readUpfHeader,
} from "../../src/server/compute/pseudopotentials";
import { generatePseudopotential } from "../../src/server/compute/pslibrary";
import { findOnPath } from "../../src/server/compute/run-executable";
import { bankWorkflow, bulkSilicon } from "./fixtures";

// A pseudopotential the machine lacks (Debian has no ultrasoft PBE sodium), generated once with
// ld1.x from pslibrary's own input and then chosen like the others. pslibrary is GPL-2 and not
// bundled: the test runs where MATFRAME_PSLIBRARY names a checkout of it.

const pslibrary = process.env.MATFRAME_PSLIBRARY;
const ready = pslibrary !== undefined && findOnPath("ld1.x") !== undefined;
if (!ready)
  console.warn(
    "Skipping the ld1.x generation: set MATFRAME_PSLIBRARY to a checkout of github.com/dalcorso/pslibrary and install ld1.x (quantum-espresso).",
  );

describe.runIf(ready)("a missing pseudopotential generated with ld1.x from pslibrary", () => {
  const saved = process.env.MATFRAME_PSEUDO_CACHE;
  let cache: string;

  // Made here, not when the file loads: a skipped describe runs no afterAll to remove it.
  beforeAll(() => {
    cache = mkdtempSync(path.join(tmpdir(), "matframe-pseudo-cache-"));
    process.env.MATFRAME_PSEUDO_CACHE = cache;
    forgetPseudopotentialScan();
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.MATFRAME_PSEUDO_CACHE;
    else process.env.MATFRAME_PSEUDO_CACHE = saved;
    forgetPseudopotentialScan();
    rmSync(cache, { recursive: true, force: true });
  });

  it("makes Na's ultrasoft PBE file, which is then chosen for a sodium job", async () => {
    const sodium = bulkSilicon();
    for (const element of (sodium.basis as { elements: { value: string }[] }).elements) element.value = "Na";
    expect(choosePseudopotential("Na", "us", "pbe").found).toBe(false);
    // Runnable already: the engine generates the file when the job runs.
    expect(computability(bankWorkflow("Total Energy", "espresso"), sodium)).toEqual({ runnable: true });

    const generated = await generatePseudopotential("Na", "us", "pbe", new AbortController().signal);
    expect(generated).toEqual({ path: path.join(cache, "Na.pbe-spn-rrkjus_psl.1.0.0.UPF") });
    expect(readUpfHeader(path.join(cache, "Na.pbe-spn-rrkjus_psl.1.0.0.UPF"))).toMatchObject({
      element: "Na",
      type: "us",
      functional: "pbe",
    });
    forgetPseudopotentialScan();
    expect(choosePseudopotential("Na", "us", "pbe")).toMatchObject({
      found: true,
      pseudopotential: { filename: "Na.pbe-spn-rrkjus_psl.1.0.0.UPF" },
    });
  });
});
