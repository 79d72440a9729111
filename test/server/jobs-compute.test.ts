import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src";
import type { ServerHandle } from "../../src/server";
import { RYDBERG_EV } from "../../src/server/compute/outputs/pw-output";
import { findOnPath } from "../../src/server/compute/run-executable";
import { call, ok, waitForEnd } from "../collections/helpers";
import { runCli } from "../cli-export/run-cli";
import { rawLogin } from "../support/raw-login";
import { at } from "../support/checked";
import { errorMessage, login, startTestServer, type Session } from "./helpers";

// One job computed for real, end to end, with Debian's pw.x: the bank's Quantum ESPRESSO Total
// Energy on bulk silicon (mp-149, the default job). It finishes; its files are listed as the
// platform lists them and download by their signed URL alone (no header), as the notebooks fetch
// them; its total_energy property is the energy of its own downloaded pw_scf.out; the results
// table shows it; a changed, expired or foreign URL is refused; purge removes the files.

const PW = findOnPath("pw.x");
const USERS = ["demo:demo", "mallory:mallory-password"];
let server: ServerHandle;
let demo: Session;
let job: any;

beforeAll(async () => {
  if (!PW) return;
  server = await startTestServer({ users: USERS });
  demo = await login(server);
  const created = ok(await call(server, demo, "PUT", "/jobs/create", { body: { name: "Si total energy" } }));
  ok(await call(server, demo, "POST", `/jobs/${created._id}/submit`));
  job = await waitForEnd(server, demo, created._id, 120_000);
}, 180_000);
afterAll(() => server?.close());

/** The last `!    total energy = X Ry` of a pw.x output, in Ry. */
function finalEnergyRy(output: string): number {
  const energies = [...output.matchAll(/^!\s+total energy\s+=\s+(-?[\d.]+) Ry/gm)].map((m) => Number(m[1]));
  expect(energies.length).toBeGreaterThan(0);
  return energies.at(-1)!;
}

describe.runIf(PW)("a Total Energy job computed with pw.x", () => {
  it("finishes, and its total_energy is the energy of its own downloaded pw_scf.out", async () => {
    expect(job.status, job.localRun?.reason).toBe("finished");
    // Its units say so too, the workflow's own and the subworkflow's.
    expect(job.workflow.units.map((unit: any) => unit.status)).toEqual(["finished"]);
    expect(job.workflow.subworkflows[0].units.map((unit: any) => unit.status)).toEqual(["finished"]);
    const files = ok(await call(server, demo, "GET", `/jobs/${job._id}/files`));
    const keys = files.map((file: any) => file.key);
    expect(keys).toEqual(expect.arrayContaining(["pw_scf.in", "pw_scf.out"]));
    const out = files.find((file: any) => file.key === "pw_scf.out");
    expect(out).toMatchObject({ name: "pw_scf.out", kind: "output", size: expect.any(Number) });
    expect(out.signedUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/2018-10-01\/jobs\/\w+\/files\/pw_scf\.out\?/);
    // Fetched as urllib.request.urlopen does: the URL and nothing else.
    const res = await fetch(out.signedUrl);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(Buffer.byteLength(text)).toBe(out.size);
    const [energy] = ok(
      await call(server, demo, "GET", "/properties", {
        query: { "source.info.jobId": job._id, "data.name": "total_energy" },
      }),
    );
    expect(energy.source.info.unitId).toBe(out.unitId);
    expect(energy.exabyteId).toEqual([job._material._id]);
    expect(energy.owner).toEqual(job.owner);
    expect(Math.abs(energy.data.value / RYDBERG_EV - finalEnergyRy(text))).toBeLessThan(1e-6);
    // The results table shows it beside its material and method.
    const client = new Client({ baseUrl: server.baseUrl, ...(await rawLogin(server.baseUrl, "demo", "demo")) });
    try {
      const df = await client.results.toDataFrame({ properties: ["total_energy"] });
      const rows = (df.values as unknown[][]).filter((row) => row[df.columns.indexOf("job._id")] === job._id);
      expect(rows).toHaveLength(1);
      const column = df.columns.find((name) => name.startsWith("total_energy"))!;
      const row = at(rows, 0, "the job's row");
      expect(row[df.columns.indexOf(column)]).toBeCloseTo(energy.data.value, 9);
      expect(row[df.columns.indexOf("application.name")]).toBe("espresso");
      // The version is the one that computed it, as its own output says (Debian's pw.x), not the
      // one the bank's workflow names; a note keeps the workflow's.
      const version = /^\s*Program PWSCF v\.(\d+(?:\.\d+)*)/m.exec(text)?.[1];
      expect(version).toBeDefined();
      expect(row[df.columns.indexOf("application.version")]).toBe(version);
      expect(job.localRun.notes.join("\n")).toMatch(new RegExp(`Quantum ESPRESSO ${version} ran .*the workflow named`));
    } finally {
      await client.close();
    }
  });

  it("gives its stress tensor and energy contributions as number columns, equal to its own pw_scf.out", async () => {
    const files = ok(await call(server, demo, "GET", `/jobs/${job._id}/files`));
    const text = await (await fetch(files.find((file: any) => file.key === "pw_scf.out").signedUrl)).text();
    // pw.x prints the stress as three rows of Ry/bohr**3 then kbar, after "total   stress".
    const stress = /total\s+stress[^\n]*\n((?:[^\n]*\n){3})/.exec(text)?.[1]?.trim().split("\n");
    const kbar = (stress ?? []).map((line) => line.trim().split(/\s+/).slice(3).map(Number));
    expect(kbar).toHaveLength(3);
    const ry = (label: string) => Number(new RegExp(`${label}\\s+=\\s+(-?[\\d.]+) Ry`).exec(text)?.[1]);
    const client = new Client({ baseUrl: server.baseUrl, ...(await rawLogin(server.baseUrl, "demo", "demo")) });
    try {
      const df = await client.results.toDataFrame({ properties: ["stress_tensor", "total_energy_contributions"] });
      // One row per property record: the stress's, then the contributions' (each leaves the other's cells empty).
      const rows = (df.values as unknown[][]).filter((row) => row[df.columns.indexOf("job._id")] === job._id);
      expect(rows).toHaveLength(2);
      const cell = (name: string) =>
        rows.map((row) => row[df.columns.indexOf(name)]).find((value) => value !== null && value !== undefined) ?? null;
      const voigt: [string, number, number][] = [
        ["xx", 0, 0],
        ["yy", 1, 1],
        ["zz", 2, 2],
        ["yz", 1, 2],
        ["xz", 0, 2],
        ["xy", 0, 1],
      ];
      for (const [part, i, j] of voigt) expect(cell(`stress_tensor.${part}`)).toBeCloseTo(kbar[i]![j]!, 6);
      expect(cell("total_energy_contributions.hartree")).toBeCloseTo(ry("hartree contribution") * RYDBERG_EV, 6);
      expect(cell("total_energy_contributions.ewald")).toBeCloseTo(ry("ewald contribution") * RYDBERG_EV, 6);
      expect(cell("total_energy_contributions.oneElectron")).toBeCloseTo(
        ry("one-electron contribution") * RYDBERG_EV,
        6,
      );
      // A contribution pw.x does not print for this run is an empty cell of a number column.
      expect(cell("total_energy_contributions.hartreeFock")).toBeNull();
      for (const name of df.columns.filter((c) => /^(stress_tensor|total_energy_contributions)\./.test(c)))
        expect(["float32", "int32"], name).toContain(df.column(name).dtype);
    } finally {
      await client.close();
    }
  });

  it("is in `matframe export --results total_energy`, beside its material and method", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "matframe-computed-results-"));
    try {
      const file = path.join(dir, "energies.ndjson");
      const env = { MATFRAME_BASE_URL: server.baseUrl, MATFRAME_USERNAME: "demo", MATFRAME_PASSWORD: "demo" };
      const result = await runCli(["export", "--results", "total_energy", "--output", file, "--quiet"], { env });
      expect(result.code, result.stderr).toBe(0);
      const rows = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
        .filter((row) => row["job._id"] === job._id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        "material.formula": "Si",
        "application.name": "espresso",
        "job.status": "finished",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a file URL that is changed, expired, for another file, or unsigned, and hides the files from another account", async () => {
    const files = ok(await call(server, demo, "GET", `/jobs/${job._id}/files`));
    const url = new URL(files.find((file: any) => file.key === "pw_scf.out").signedUrl);
    const variant = (change: (u: URL) => void) => {
      const copy = new URL(url);
      change(copy);
      return fetch(copy);
    };
    const refusal = async (res: Response) => {
      expect(res.status).toBe(403);
      return ((await res.json()) as { message: string }).message;
    };
    expect(await refusal(await variant((u) => u.searchParams.set("expires", "1000000000")))).toMatch(/expired/);
    const later = String(Number(url.searchParams.get("expires")) + 3600);
    expect(await refusal(await variant((u) => u.searchParams.set("expires", later)))).toMatch(
      /signature does not match/,
    );
    expect(await refusal(await variant((u) => (u.pathname = u.pathname.replace("pw_scf.out", "pw_scf.in"))))).toMatch(
      /signature does not match/,
    );
    expect(await refusal(await variant((u) => u.searchParams.delete("signature")))).toMatch(/no signature/);
    const mallory = await login(server, "mallory", "mallory-password");
    expect(await refusal(await variant((u) => u.searchParams.set("account", mallory["X-Account-Id"])))).toMatch(
      /signature does not match/,
    );
    expect(errorMessage(await call(server, mallory, "GET", `/jobs/${job._id}/files`), 404)).toMatch(/No job/);
  });

  it("purges the files: none listed, and their URLs answer 404", async () => {
    const files = ok(await call(server, demo, "GET", `/jobs/${job._id}/files`));
    const purged = ok(await call(server, demo, "POST", `/jobs/${job._id}/purge`));
    expect(purged.files.sort()).toEqual(files.map((file: any) => file.key).sort());
    expect(ok(await call(server, demo, "GET", `/jobs/${job._id}/files`))).toEqual([]);
    expect((await fetch(files[0].signedUrl)).status).toBe(404);
    // The results stay: purge removes files, not the job or its properties.
    expect(
      ok(await call(server, demo, "GET", "/properties", { query: { "source.info.jobId": job._id } })).length,
    ).toBeGreaterThan(0);
  });
});

describe.runIf(PW)("a job terminated while pw.x computes", () => {
  it("lists the input and the output pw.x wrote up to then, and has no results", async () => {
    // A server of its own, whose log says when this job's pw.x starts (computing starts at the
    // submit; the status says `active` a second later, so the terminate comes while `submitted`).
    let started: () => void = () => undefined;
    const lines: string[] = [];
    const own = await startTestServer({
      log: (line) => {
        lines.push(line);
        if (line.includes("pw.x started")) started();
      },
    });
    try {
      const session = await login(own);
      const created = ok(await call(own, session, "PUT", "/jobs/create", { body: { name: "Si, stopped" } }));
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      ok(await call(own, session, "POST", `/jobs/${created._id}/submit`));
      await running;
      ok(await call(own, session, "POST", `/jobs/${created._id}/terminate`));
      // Terminate answers once pw.x is gone, with the files already listed.
      const files = ok(await call(own, session, "GET", `/jobs/${created._id}/files`));
      expect(files.map((file: any) => file.key).sort(), lines.join("\n")).toEqual(["pw_scf.in", "pw_scf.out"]);
      const input = files.find((file: any) => file.key === "pw_scf.in");
      expect(await (await fetch(input.signedUrl)).text()).toContain("calculation = 'scf'");
      const out = files.find((file: any) => file.key === "pw_scf.out");
      expect((await fetch(out.signedUrl)).status).toBe(200);
      const stopped = ok(await call(own, session, "GET", `/jobs/${created._id}`));
      expect(stopped.status).toBe("terminated");
      expect(stopped.localRun.reason).toMatch(/stopped while pw_scf ran/);
      const query = { "source.info.jobId": created._id };
      expect(ok(await call(own, session, "GET", "/properties", { query }))).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe.runIf(PW)("a Band Gap job terminated while its second unit computes", () => {
  it("keeps the results of its finished SCF, equal to its own pw_scf.out", async () => {
    let nscfStarted: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      nscfStarted = resolve;
    });
    const own = await startTestServer({
      jobStartDelayMs: 0,
      log: (line) => {
        if (line.includes("pw_nscf: pw.x started")) nscfStarted();
      },
    });
    try {
      const session = await login(own);
      const [workflow] = ok(
        await call(own, session, "GET", "/bank-workflows", {
          query: { "external.path": { $regex: "espresso/band_gap\\.json$" } },
        }),
      );
      const [silicon] = ok(await call(own, session, "GET", "/materials", { query: { "external.id": "mp-149" } }));
      const created = ok(
        await call(own, session, "PUT", "/jobs/create", {
          body: { name: "Si band gap, stopped", workflow: { _id: workflow._id }, _material: { _id: silicon._id } },
        }),
      );
      ok(await call(own, session, "POST", `/jobs/${created._id}/submit`));
      await running;
      ok(await call(own, session, "POST", `/jobs/${created._id}/terminate`));
      const files = ok(await call(own, session, "GET", `/jobs/${created._id}/files`));
      const scfOut = files.find((file: any) => file.key === "pw_scf.out");
      const text = await (await fetch(scfOut.signedUrl)).text();
      expect(text).toContain("JOB DONE");
      const properties = ok(
        await call(own, session, "GET", "/properties", { query: { "source.info.jobId": created._id } }),
      );
      expect(properties.every((p: any) => p.source.info.unitId === scfOut.unitId)).toBe(true);
      const energy = properties.find((p: any) => p.data.name === "total_energy");
      expect(Math.abs(energy.data.value / RYDBERG_EV - finalEnergyRy(text))).toBeLessThan(1e-6);
      // The NSCF's band gaps never came: it was ended.
      expect(properties.map((p: any) => p.data.name)).not.toContain("band_gaps");
      const stopped = ok(await call(own, session, "GET", `/jobs/${created._id}`));
      expect([stopped.status, stopped.localRun.properties]).toEqual(["terminated", properties.length]);
    } finally {
      await own.close();
    }
  }, 180_000);
});

it.runIf(!PW)("skips the pw.x job: pw.x is not on PATH", () => {
  console.warn(
    "\n*** SKIPPED test/server/jobs-compute.test.ts: pw.x is not on PATH (apt install quantum-espresso quantum-espresso-data). ***\n",
  );
});
