// How much of undici a client loads: its pool and request API, not the whole package (fetch,
// WebSocket, mocks and caches cost a user's first request 75 to 240 ms on a loaded machine).
// Checked in a child process of the built package, whose module cache starts empty.
import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const dist = join(__dirname, "../../dist");

/** Logs in to a local platform, reads 3 materials, and says whether undici's root module was loaded. */
const READ = `
const { Client, startServer } = require("./index.js");
startServer({ port: 0 }).then(async (server) => {
  const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  const read = await client.materials.list({ projection: { limit: 3 } });
  await client.logout();
  await server.close();
  const root = require.resolve("undici");
  console.log(read.length, Object.keys(require.cache).includes(root));
});`;

// A preload that makes undici's internal files unreachable, as a version laid out differently would.
const WITHOUT_DEEP_IMPORTS = `
const Module = require("node:module");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith("undici/lib/")) {
    const error = new Error("Package subpath not exported");
    error.code = "ERR_PACKAGE_PATH_NOT_EXPORTED";
    throw error;
  }
  return resolve.call(this, request, ...rest);
};`;

async function node(script: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["-e", script], { cwd: dist });
  return stdout.trim();
}

describe("undici loading", () => {
  it("a login and a read load undici's pool, not its root module", async () => {
    expect(await node(READ)).toBe("3 false");
  });

  it("a version whose internal files cannot be reached gets the whole package, and reads all the same", async () => {
    expect(await node(`${WITHOUT_DEEP_IMPORTS}\n${READ}`)).toBe("3 true");
  });
});
