import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ComputeOutcome } from "../../src/server/compute";
import { finalEnergyRy, RYDBERG_EV } from "../../src/server/compute/outputs/pw-output";
import { bandGapsFromXml } from "../../src/server/compute/outputs/pw-bands";
import { bankWorkflow, bulkSilicon } from "./fixtures";
import { byHand, hasPw, job, MP_GGA_GAP_SI, property, SCHEMAS, schema, validate } from "./pw-runs";
import { at, defined } from "../support/checked";

// Bulk silicon (mp-149) computed for real with Debian's pw.x through the bank's own espresso
// workflows: each job runs once per file, and its results are checked against its own output,
// against the same input run by hand with pw.x, against the Materials Project's GGA band gap, and
// against ESSE's property schemas (the platform's own validator).

const BUILT = path.join(__dirname, "..", "..", "dist", "server", "compute", "index.js");
const root = mkdtempSync(path.join(tmpdir(), "matframe-si-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.runIf(hasPw)("Si's band gap and total energy computed with pw.x", () => {
  let outcome: ComputeOutcome;
  let workDir: string;
  let handScf: string;

  beforeAll(async () => {
    // The hand run starts as soon as the job has written its input, and runs beside the job.
    let hand: Promise<string> | undefined;
    const started = job(root, "band-gap", "Band Gap", {
      onLog: (line) => {
        if (line.startsWith("pw_scf: pw.x started")) hand = byHand(root, path.join(root, "band-gap"), "pw_scf.in");
      },
    });
    workDir = started.workDir;
    outcome = await started.promise;
    handScf = await hand!;
  }, 600_000);

  it("finishes with the files named as the platform names them", () => {
    expect(outcome).toMatchObject({ status: "finished" });
    expect(outcome.files.map((f) => `${f.kind}:${f.name}`)).toEqual([
      "input:pw_scf.in",
      "output:pw_scf.out",
      "input:pw_nscf.in",
      "output:pw_nscf.out",
    ]);
    expect(outcome.notes.join("\n")).toMatch(/Si\.pbe-nl-rrkjus_psl\.1\.0\.0\.UPF[\s\S]*6×6×6[\s\S]*12×12×12/);
  });

  it("gives total_energy equal to the final energy of its own pw_scf.out, and of pw.x run by hand", () => {
    const energyEv = property(outcome, "total_energy").value as number;
    const own = finalEnergyRy(readFileSync(path.join(workDir, "pw_scf.out"), "utf8"))!;
    expect(Math.abs(energyEv / RYDBERG_EV - own)).toBeLessThan(1e-6);
    expect(Math.abs(energyEv / RYDBERG_EV - finalEnergyRy(handScf)!)).toBeLessThan(1e-6);
  });

  it("gives an indirect gap within 0.15 eV of the Materials Project's GGA value", () => {
    const gaps = property(outcome, "band_gaps").values as { type: string; value: number }[];
    const indirect = gaps.find((g) => g.type === "indirect")!;
    expect(Math.abs(indirect.value - MP_GGA_GAP_SI)).toBeLessThan(0.15);
    expect(gaps.find((g) => g.type === "direct")!.value).toBeGreaterThan(indirect.value);
  });

  it("gives properties ESSE's schemas accept, each tied to its unit", () => {
    const flowchartIds = new Set(
      at(bankWorkflow("Band Gap", "espresso").subworkflows as { units: { flowchartId: string }[] }[], 0).units.map(
        (u) => u.flowchartId,
      ),
    );
    for (const { unitId, data } of outcome.properties) {
      expect(flowchartIds).toContain(unitId);
      const result = validate(data, schema(defined(SCHEMAS[data.name], `the ESSE schema of ${data.name}`)));
      expect({ name: data.name, ...result }).toMatchObject({ name: data.name, isValid: true });
    }
    expect(new Set(outcome.properties.map((p) => p.data.name))).toEqual(new Set([...Object.keys(SCHEMAS)]));
  });

  it("gives no band gaps, and says why, from its own data file without the cell or with a k-point of two numbers", () => {
    const xml = readFileSync(path.join(workDir, "outdir", "__prefix__.save", "data-file-schema.xml"), "utf8");
    expect(bandGapsFromXml(xml)).toEqual({ data: property(outcome, "band_gaps") });
    // Every cell goes: the file holds the input's and the output's.
    expect(bandGapsFromXml(xml.replace(/<cell>[\s\S]*?<\/cell>/g, ""))).toEqual({
      reason: "the data file has no cell",
    });
    // The first k-point of the band structure, its third coordinate dropped.
    const twoNumbers = xml.replace(/(<ks_energies>\s*<k_point\b[^>]*>\s*\S+\s+\S+)\s+\S+\s*</, "$1<");
    expect(twoNumbers).not.toBe(xml);
    expect(bandGapsFromXml(twoNumbers)).toEqual({
      reason: "the data file has a k-point without its three coordinates",
    });
  });
});

/** Processes whose working folder is `dir` (pw.x of a job runs there). */
function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

describe.runIf(hasPw)("a job stopped while pw.x runs", () => {
  it("ends pw.x's whole process group within 1 s and says why", async () => {
    const controller = new AbortController();
    const started = job(root, "aborted", "Band Gap", { signal: controller.signal });
    await vi.waitFor(() => expect(processesIn(started.workDir).length).toBeGreaterThan(0), { timeout: 30_000 });
    const abortedAt = performance.now();
    controller.abort();
    const outcome = await started.promise;
    // The promise: terminate ends pw.x within 1 s (a kill of the group, not a polite wait).
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(processesIn(started.workDir)).toEqual([]);
    expect(outcome).toMatchObject({ status: "error", reason: expect.stringMatching(/stopped while pw_scf ran/) });
  });

  it("leaves no pw.x behind when the process that ran it exits without aborting", async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run "npm run build" first.`);
    const workDir = path.join(root, "exited");
    mkdirSync(workDir);
    // A process that starts a job and exits as soon as pw.x runs, as a server that crashes would.
    const script = `
      const { computeJob } = require(${JSON.stringify(BUILT)});
      const [workflow, material] = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
      computeJob({ jobId: "exited", workflow, material, workDir: ${JSON.stringify(workDir)},
        signal: new AbortController().signal,
        onLog: (line) => { if (line.includes("pw.x started")) setImmediate(() => process.exit(0)); } });`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "inherit", "inherit"] });
    child.stdin.end(JSON.stringify([bankWorkflow("Total Energy", "espresso"), bulkSilicon()]));
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(readFileSync(path.join(workDir, "pw_scf.in"), "utf8")).toContain("calculation = 'scf'");
    // The exit hook's SIGKILL is sent before the parent's exit, but the kernel tears pw.x down
    // after it: wait for that (within the 1 s promised for a stop; pw.x alone runs for seconds).
    await vi.waitFor(() => expect(processesIn(workDir)).toEqual([]), { timeout: 1000, interval: 10 });
  });
});
