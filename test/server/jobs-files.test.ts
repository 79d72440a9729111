import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { call, ok, waitForStatus } from "../collections/helpers";
import { at } from "../support/checked";
import { errorMessage, login, startTestServer, type Session } from "./helpers";

// Files into a job as the platform's client puts them: POST presigned-urls gives one URL per
// path, a plain PUT to it (no credential) stores the bytes in the job's folder, GET files lists
// them with a signedUrl that gives the same bytes back, and output-files marks uploaded files as
// outputs. Paths that leave the folder, URLs used for another method, and jobs that are running
// are refused with a message.

let server: ServerHandle;
let demo: Session;

beforeAll(async () => {
  // A job answered from the reference data stays active an hour: long enough to find it running.
  server = await startTestServer({ users: ["demo:demo", "mallory:mallory-password"], jobRunMs: 3_600_000 });
  demo = await login(server);
});
afterAll(() => server?.close());

async function newJob(name: string): Promise<string> {
  return ok(await call(server, demo, "PUT", "/jobs/create", { body: { name } }))._id;
}

describe("job files by presigned URL", () => {
  it("uploads by a plain PUT, lists the files with signed URLs that give the bytes back, and marks outputs", async () => {
    const id = await newJob("uploads");
    const { presignedURLs } = ok(
      await call(server, demo, "POST", `/jobs/${id}/presigned-urls`, { body: { files: ["pw.in", "extra/Si.upf"] } }),
    );
    expect(presignedURLs.map((entry: any) => entry.file)).toEqual(["pw.in", "extra/Si.upf"]);
    // Every byte value, not text: a pseudopotential or a binary file arrives as it was.
    const bytes: [Buffer, Buffer] = [
      Buffer.from("&CONTROL\n/\n"),
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)),
    ];
    for (const [i, entry] of presignedURLs.entries()) {
      const res = await fetch(entry.URL, { method: "PUT", body: bytes[i] });
      expect(res.status).toBe(200);
    }
    const files = ok(await call(server, demo, "GET", `/jobs/${id}/files`));
    expect(files.map((file: any) => [file.key, file.name, file.kind, file.size])).toEqual([
      ["pw.in", "pw.in", "input", bytes[0].length],
      ["extra/Si.upf", "Si.upf", "input", bytes[1].length],
    ]);
    for (const [i, file] of files.entries()) {
      const res = await fetch(file.signedUrl);
      expect(Buffer.from(await res.arrayBuffer()).equals(at(bytes, i, "the uploaded bytes"))).toBe(true);
    }
    expect(ok(await call(server, demo, "POST", `/jobs/${id}/output-files`, { body: { files: ["pw.in"] } }))).toEqual([
      { name: "pw.in", key: "pw.in" },
    ]);
    const after = ok(await call(server, demo, "GET", `/jobs/${id}/files`));
    expect(after.find((file: any) => file.key === "pw.in").kind).toBe("output");
  });

  it("refuses paths out of the folder, a download URL used to upload, a foreign job, and a running job", async () => {
    const id = await newJob("refusals");
    for (const bad of ["../escape", "/etc/passwd", ".hidden", "a//b", ""]) {
      expect(
        errorMessage(await call(server, demo, "POST", `/jobs/${id}/presigned-urls`, { body: { files: [bad] } }), 400),
      ).toMatch(/is refused: a file's path/);
    }
    // The notebook's commented-out call sends the content itself: say what is expected instead.
    expect(
      errorMessage(await call(server, demo, "POST", `/jobs/${id}/output-files`, { body: { files: "content" } }), 400),
    ).toMatch(/files must be a list of 1 to 100 paths .*presigned-urls/);
    expect(
      errorMessage(
        await call(server, demo, "POST", `/jobs/${id}/output-files`, { body: { files: ["none.out"] } }),
        400,
      ),
    ).toMatch(/has no file "none.out"; upload it first/);
    const [entry] = ok(
      await call(server, demo, "POST", `/jobs/${id}/presigned-urls`, { body: { files: ["pw.in"] } }),
    ).presignedURLs;
    expect((await fetch(entry.URL, { method: "PUT", body: "x" })).status).toBe(200);
    const [listed] = ok(await call(server, demo, "GET", `/jobs/${id}/files`));
    // A download URL does not upload: the method is signed too.
    const res = await fetch(listed.signedUrl, { method: "PUT", body: "overwritten" });
    expect(res.status).toBe(403);
    expect(await (await fetch(listed.signedUrl)).text()).toBe("x");
    const mallory = await login(server, "mallory", "mallory-password");
    expect(
      errorMessage(
        await call(server, mallory, "POST", `/jobs/${id}/presigned-urls`, { body: { files: ["pw.in"] } }),
        403,
      ),
    ).toMatch(/another account/);
    // A job that runs: its folder is the run's. A URL signed before the submit no longer uploads.
    const [vasp] = ok(
      await call(server, demo, "GET", "/bank-workflows", { query: { "external.path": { $regex: "vasp/band_gap" } } }),
    );
    const [mos2] = ok(await call(server, demo, "GET", "/materials", { query: { "external.id": "mp-2815" } }));
    const running = ok(
      await call(server, demo, "PUT", "/jobs/create", {
        body: { name: "running", workflow: { _id: vasp._id }, _material: { _id: mos2._id } },
      }),
    )._id;
    const [early] = ok(
      await call(server, demo, "POST", `/jobs/${running}/presigned-urls`, { body: { files: ["pw.in"] } }),
    ).presignedURLs;
    ok(await call(server, demo, "POST", `/jobs/${running}/submit`));
    await waitForStatus(server, demo, running, "active");
    expect(
      errorMessage(
        await call(server, demo, "POST", `/jobs/${running}/presigned-urls`, { body: { files: ["a"] } }),
        400,
      ),
    ).toMatch(/is active; files can be added before it is submitted or after it has ended/);
    const late = await fetch(early.URL, { method: "PUT", body: "late" });
    expect(late.status).toBe(400);
    expect(((await late.json()) as { message: string }).message).toMatch(/is active/);
  });
});
