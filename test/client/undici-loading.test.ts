// undici is loaded on a client's first request: a program that requires matframe and never sends
// one does not pay for it. A client without a proxy loads undici's Pool module alone, not the
// root entry (fetch, WebSocket, EventSource...: 70-100 ms against 20-30 ms in a fresh process).
// matframe/notebook loads the Pool at import, as it does danfo. Checked in child processes of the
// built package, whose module caches start empty.
import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const dist = join(__dirname, "../../dist");

/** Which of undici's files are loaded, relative to its folder (its root module is `index.js`). */
const UNDICI_FILES = `
const undiciRoot = require("node:path").dirname(require.resolve("undici"));
const undiciFiles = () => Object.keys(require.cache).filter((f) => f.startsWith(undiciRoot)).map((f) => f.slice(undiciRoot.length + 1));`;

async function node(script: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["-e", `${UNDICI_FILES}\n${script}`], { cwd: dist });
  return stdout.trim();
}

describe("undici loading", () => {
  it("require('matframe') alone loads none of undici", async () => {
    expect(await node(`require("./index.js"); console.log(undiciFiles().length);`)).toBe("0");
  });

  it("matframe/notebook loads it at import, so that a notebook's first table does not", async () => {
    expect(
      await node(
        `const before = undiciFiles().length; require("./notebook/index.js"); const files = undiciFiles(); console.log(before, files.includes("lib/dispatcher/pool.js"), files.includes("index.js"));`,
      ),
    ).toBe("0 true false");
  });

  // The one file of undici's own that matframe loads (src/client/transport/dispatcher.ts): it must
  // stay the Pool undici's root entry exports, or the next undici would be loaded another way.
  it("undici's Pool module is the Pool its root entry exports", async () => {
    expect(
      await node(
        `const own = require("undici/lib/dispatcher/pool.js"); console.log(own === require("undici").Pool, typeof own.prototype.compose);`,
      ),
    ).toBe("true function");
  });

  it("a login and a read load undici's Pool, not its root module", async () => {
    const out = await node(`
const { Client } = require("./index.js");
const { startServer } = require("./server/index.js");
startServer({ port: 0 }).then(async (server) => {
  const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
  const read = await client.materials.list({ projection: { limit: 3 } });
  await client.logout();
  await server.close();
  const files = undiciFiles();
  console.log(read.length, files.includes("lib/dispatcher/pool.js"), files.includes("index.js"), files.some((f) => f.startsWith("lib/web/")));
});`);
    expect(out).toBe("3 true false false");
  });
});
