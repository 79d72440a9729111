import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileAppears } from "../support/file-appears";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { startCli } from "./support/cli";

// An export to a directory, SIGKILLed mid-run, leaves its hidden `.NAME.<hex>.partial/` folder:
// nothing runs after SIGKILL. The next run without --resume removes it (its writer is gone) and
// says so, and leaves alone a folder a live process owns and one that names no writer.

let server: FaultServer;
// While set, list requests (after the server's first) wait for it: a first run is killed while held.
let held: { until: Promise<void>; release: () => void } | undefined;

/** Holds the list requests after the first from now on, until `release` is called. */
function hold(): () => void {
  let release = (): void => undefined;
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  held = { until, release };
  return () => {
    held = undefined;
    release();
  };
}

beforeAll(async () => {
  server = await startFaultServer({
    records: 600,
    fault: (r, n) =>
      r.path.endsWith("/materials") && n.list > 1 && held ? { kind: "hold", until: held.until } : undefined,
  });
});

afterAll(async () => {
  held?.release();
  await server?.close();
});

const env = () => ({ MATFRAME_ACCOUNT_ID: server.accountId, MATFRAME_AUTH_TOKEN: server.authToken });

function hiveExport(target: string) {
  return startCli(
    [
      "export",
      "--base-url",
      server.origin,
      "--output",
      target,
      "--format",
      "parquet",
      "--columns",
      "_id,formula",
      "--partition-by",
      "formula",
      "--page-size",
      "100",
    ],
    { env: env() },
  );
}

describe("the unfinished folder of a killed export to a directory", () => {
  it("is removed by the next run, which says so; live and unowned folders are kept", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "matframe-stale-"));
    const target = path.join(dir, "by-formula");
    const release = hold();
    const first = hiveExport(target);
    const partial = await fileAppears(dir, (name) => /^\.by-formula\.[0-9a-f]{8}\.partial$/.test(name), first.done);
    // The folder names its writer before any page is written; the second page is held meanwhile.
    await fileAppears(path.join(dir, partial), (name) => name === ".matframe-owner", first.done);
    first.child.kill("SIGKILL");
    expect((await first.done).signal).toBe("SIGKILL");
    expect(readdirSync(dir)).toEqual([partial]);

    // Another export of the same target still running (this test process stands for it), and a
    // folder an older matframe left without an owner file: neither may be removed.
    const live = path.join(dir, ".by-formula.0a1b2c3d.partial");
    mkdirSync(live);
    writeFileSync(path.join(live, ".matframe-owner"), `${JSON.stringify({ pid: process.pid })}\n`);
    const unowned = path.join(dir, ".by-formula.deadbeef.partial");
    mkdirSync(unowned);
    writeFileSync(path.join(unowned, "part.parquet"), "kept");

    release();
    const second = await hiveExport(target).done;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      `warning: removed ${path.join(dir, partial)}, the unfinished folder of an earlier export to ${target} whose process (${first.child.pid}) was killed`,
    );
    expect(second.stderr).toContain(`warning: left ${unowned} alone`);
    expect(second.stderr).not.toContain(live);
    expect(readdirSync(dir).sort()).toEqual([
      ".by-formula.0a1b2c3d.partial",
      ".by-formula.deadbeef.partial",
      "by-formula",
    ]);
    expect(existsSync(path.join(target, "_SUCCESS"))).toBe(true);
    // The finished dataset holds only the export's files: the owner file left before the rename.
    expect(existsSync(path.join(target, ".matframe-owner"))).toBe(false);
  });

  it("a file export's temporary file is removed by the next run; a live writer's is kept", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "matframe-stale-"));
    const target = path.join(dir, "m.csv");
    const args = ["export", "--base-url", server.origin, "--output", target, "--page-size", "100"];
    const release = hold();
    const first = startCli(args, { env: env() });
    // Made before the first page is asked for, which the server holds.
    const temp = await fileAppears(dir, (name) => /^\.m\.csv\.\d+\.[0-9a-f]{8}\.tmp$/.test(name), first.done);
    first.child.kill("SIGKILL");
    expect((await first.done).signal).toBe("SIGKILL");
    // Another writer of the same file, still running (this test process stands for it).
    const live = `.m.csv.${process.pid}.0a1b2c3d.tmp`;
    writeFileSync(path.join(dir, live), "");
    release();
    const second = await startCli(args, { env: env() }).done;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      `warning: removed ${path.join(dir, temp)}, the unfinished file of an earlier export to ${target} whose process (${first.child.pid}) was killed`,
    );
    expect(readdirSync(dir).sort()).toEqual([live, "m.csv"]);
  });

  it("a plain export that writes the file whole removes what a killed --resume run saved", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "matframe-stale-"));
    const target = path.join(dir, "r.csv");
    const args = ["export", "--base-url", server.origin, "--output", target, "--page-size", "100"];
    const release = hold();
    const first = startCli([...args, "--resume"], { env: env() });
    await fileAppears(dir, (name) => name === ".r.csv.matframe-partial", first.done);
    first.child.kill("SIGKILL");
    expect((await first.done).signal).toBe("SIGKILL");
    expect(readdirSync(dir).some((name) => name.startsWith(".r.csv.matframe-"))).toBe(true);
    release();
    const plain = await startCli(args, { env: env() }).done;
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(
      `warning: removed the progress a killed --resume run had saved for ${target} (0 records): this run wrote ${target} whole.`,
    );
    expect(readdirSync(dir)).toEqual(["r.csv"]);
  });
});
