import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileAppears } from "../support/file-appears";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { startCli } from "./support/cli";
import { Figures } from "./support/report";

// `matframe export` killed mid-run, as a user's Ctrl-C, a CI timeout or the OOM killer would:
// no file may appear at the target path, and an existing file there stays as it was. The
// export reads from a slow loopback server (every page delayed 150 ms: about 10 s for the
// whole export), so the kill lands mid-run.

const figures = new Figures("kill-export");
let server: FaultServer;

beforeAll(async () => {
  server = await startFaultServer({
    records: 20_000,
    fault: (r) => (r.path.endsWith("/materials") ? { kind: "delay", ms: 150 } : undefined),
  });
});

afterAll(async () => {
  figures.write();
  await server?.close();
});

/** Resolves once a temporary file of some pages sits beside `target`, from the folder's change events. */
function partialFileWritten(target: string, done: Promise<unknown>): Promise<string> {
  const prefix = `.${path.basename(target)}.`;
  return fileAppears(path.dirname(target), (name, size) => name.startsWith(prefix) && size > 2_000, done).catch(() => {
    throw new Error("the export ended before it was killed; make the server slower");
  });
}

function exportTo(target: string, extra: string[] = []) {
  return startCli(
    [
      "export",
      "--base-url",
      server.origin,
      "--output",
      target,
      "--page-size",
      "100",
      "--columns",
      "name,formula",
      "--quiet",
      ...extra,
    ],
    {
      env: { MATFRAME_ACCOUNT_ID: server.accountId, MATFRAME_AUTH_TOKEN: server.authToken },
    },
  );
}

describe("killing matframe export mid-run", () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGKILL"] as const) {
    it(`${signal}: no file at the target path`, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "matframe-kill-"));
      const target = path.join(dir, "materials.csv");
      const run = exportTo(target);
      await partialFileWritten(target, run.done);
      run.child.kill(signal);
      const finished = await run.done;
      expect(existsSync(target)).toBe(false);
      if (signal === "SIGKILL") {
        // Nothing can run after SIGKILL: a hidden temporary file (.materials.csv.<pid>.<hex>.tmp) may
        // stay behind (the next export to that file removes it: stale-partials.test.ts), but never
        // under the target's name.
        expect(finished.signal).toBe("SIGKILL");
        expect(readdirSync(dir).every((f) => /^\.materials\.csv\.\d+\.[0-9a-f]+\.tmp$/.test(f))).toBe(true);
      } else {
        expect(finished.code).toBe(signal === "SIGINT" ? 130 : 143);
        expect(finished.stderr).toMatch(new RegExp(`interrupted by ${signal}.*was not written`));
        expect(readdirSync(dir)).toEqual([]);
      }
      figures.add("kills survived");
    });
  }

  it("SIGTERM with --force over an existing file leaves the old file as it was", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "matframe-kill-"));
    const target = path.join(dir, "materials.csv");
    writeFileSync(target, "_id,name,formula\nold,kept,Si\n");
    const run = exportTo(target, ["--force"]);
    await partialFileWritten(target, run.done);
    run.child.kill("SIGTERM");
    const finished = await run.done;
    expect(finished.code, JSON.stringify(finished).slice(0, 500)).toBe(143);
    expect(readFileSync(target, "utf8")).toBe("_id,name,formula\nold,kept,Si\n");
    expect(readdirSync(dir)).toEqual(["materials.csv"]);
    figures.add("kills survived");
  });
});
