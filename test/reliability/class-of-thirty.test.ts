import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src";
import { BIN, cleanEnv } from "./support/cli";

// A class of 30 on one laptop, compressed into one process: 30 students log in at once, read the
// materials into a DataFrame, then every notebook is busy for longer than Node's default
// keep-alive timeout (5 s) of synchronous work, and then writes. The server runs in its own process,
// as `matframe serve` does in class, so its timers run while the students' event loop is blocked.
// Before the server kept idle connections longer than its clients, the writes met sockets the
// server had just closed ("other side closed").

const STUDENTS = 30;
const POSCAR = [
  "Si",
  "1.0",
  "0 2.75 2.75",
  "2.75 0 2.75",
  "2.75 2.75 0",
  "Si",
  "2",
  "Direct",
  "0 0 0",
  "0.25 0.25 0.25",
].join("\n");

/** Synchronous work, as a heavy notebook cell does: nothing else of this process runs meanwhile. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning on purpose
  }
}

let dir: string;
let child: ChildProcess;
let baseUrl: string;
const users = Array.from({ length: STUDENTS }, (_, i) => ({ username: `student${i}`, password: `class-pw-${i}-long` }));

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "matframe-class-"));
  const file = path.join(dir, "users.txt");
  writeFileSync(file, users.map((u) => `${u.username}:${u.password}\n`).join(""), { mode: 0o600 });
  child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--quiet", "--users-file", file], {
    env: cleanEnv({}),
  });
  baseUrl = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    child.on("exit", (code) => reject(new Error(`matframe serve exited with ${code}`)));
  });
});

afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("a class of 30 on one laptop", () => {
  it("every student logs in, reads a DataFrame, computes for 6 s and then imports: 30 of 30", async () => {
    const read = await Promise.allSettled(
      users.map(async ({ username, password }) => {
        const client = await Client.login({ baseUrl, username, password });
        const df = await client.materials.toDataFrame({ columns: ["formula", "lattice.a"] });
        return { client, rows: df.shape[0] };
      }),
    );
    expect(read.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual(
      [],
    );
    const students = read.map((r) => (r as PromiseFulfilledResult<{ client: Client; rows: number }>).value);
    expect(students.every((s) => s.rows > 0)).toBe(true);

    // Every notebook's connection is idle through the busy cell (the server's default kept it 5 s).
    busyFor(6_000);

    const written = await Promise.allSettled(
      students.map(({ client }, i) =>
        client.materials.importStructure({ name: `Si ${i}`, content: POSCAR, format: "poscar" }),
      ),
    );
    expect(
      written.filter((w) => w.status === "rejected").map((w) => String((w as PromiseRejectedResult).reason)),
    ).toEqual([]);
    await Promise.all(students.map(({ client }) => client.logout()));
  });
});
