// Optional dependencies as a user without them meets matframe: loaded on first use only, or
// replaced (native Snappy by hyparquet-writer's JavaScript port), checked in a child process whose require refuses them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { DuckDBInstance } from "@duckdb/node-api";
import { promisify } from "node:util";
import type { ServerHandle } from "../../src/server";
import { rawLogin } from "../support/raw-login";
import { startTestServer } from "../server/helpers";

const run = promisify(execFile);
const dist = join(__dirname, "../../dist");

// A preload that makes `require("danfojs-node")` fail as it does when the package is not installed.
const WITHOUT_DANFO = `
const Module = require("node:module");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === "danfojs-node") {
    const error = new Error("Cannot find module 'danfojs-node'");
    error.code = "MODULE_NOT_FOUND";
    throw error;
  }
  return resolve.call(this, request, ...rest);
};`;

async function node(script: string, preload = ""): Promise<string> {
  const { stdout } = await run(process.execPath, ["-e", `${preload}\n${script}`], { cwd: dist });
  return stdout.trim();
}

describe("danfojs-node is loaded lazily", () => {
  it("is not loaded by importing matframe or exporting CSV", async () => {
    const out = await node(`
      const m = require("./index.js");
      m.exportCsv([[{ _id: "a", formula: "Si" }]], require("node:stream").Writable({ write(c, e, cb) { cb(); } }))
        .then(() => console.log(Object.keys(require.cache).some((k) => k.includes("danfojs-node"))));
    `);
    expect(out).toBe("false");
  });

  it("is loaded when a DataFrame is asked for", async () => {
    const out = await node(`
      require("./index.js").toDataFrame([{ _id: "a" }]).then((df) => console.log(df.shape.join("x"), Object.keys(require.cache).some((k) => k.includes("danfojs-node"))));
    `);
    expect(out).toBe("1x10 true");
  });

  it("is loaded by importing matframe/notebook, whose users always build frames, and the first frame keeps it", async () => {
    const out = await node(`
      const loaded = () => Object.keys(require.cache).some((k) => k.includes("danfojs-node"));
      const before = loaded();
      require("./notebook/index.js");
      const afterImport = loaded();
      const danfo = require("danfojs-node");
      require("./index.js").toDataFrame([{ _id: "a" }]).then((df) =>
        console.log(before, afterImport, df.shape.join("x"), df instanceof danfo.DataFrame));
    `);
    expect(out).toBe("false true 1x10 true");
  });

  it("matframe/notebook also loads the modules a first table loads, and prints nothing", async () => {
    const out = await node(`
      const loaded = (file) => Object.keys(require.cache).some((k) => k.endsWith(file));
      const files = ["frame/results/index.js", "frame/collection-reads.js"];
      const before = files.map(loaded);
      require("./notebook/index.js");
      console.log(before.join(" "), files.map(loaded).join(" "));
    `);
    expect(out).toBe("false false true true");
  });

  it("matframe/notebook imports without danfojs-node, and the first frame names the package", async () => {
    const out = await node(
      `const nb = require("./notebook/index.js");
      console.log(typeof nb.show);
      require("./index.js").toDataFrame([{ _id: "a" }]).then(() => console.log("no error"), (e) => console.log(e.code));`,
      WITHOUT_DANFO,
    );
    expect(out).toBe("function\nERR_MISSING_DEPENDENCY");
  });

  it("names the package to install when it is missing", async () => {
    const out = await node(
      `require("./index.js").toDataFrame([{ _id: "a" }]).then(() => console.log("no error"), (e) => console.log(e.name, e.code, e.message));`,
      WITHOUT_DANFO,
    );
    expect(out).toBe(
      'MissingDependencyError ERR_MISSING_DEPENDENCY A DataFrame needs the optional package danfojs-node, which is not installed: run `npm install danfojs-node`. Version 1.2.0 also needs "overrides" in your package.json: see "Installing danfojs-node" in matframe\'s docs/tables.md.',
    );
  });
});

describe("mingo is loaded when a results table is filtered", () => {
  // The server (which uses mingo too) runs in this process; the client in a child of its own.
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("is not loaded by importing matframe nor by a results table without a query, and is by one with", async () => {
    const credentials = await rawLogin(server.baseUrl, "demo", "demo");
    const out = await node(`
      const loaded = () => Object.keys(require.cache).some((k) => k.includes("/mingo/"));
      const { Client } = require("./index.js");
      const client = new Client({ baseUrl: ${JSON.stringify(server.baseUrl)}, ...${JSON.stringify(credentials)} });
      const seen = [loaded()];
      const read = (query) => client.results.toDataFrame({ properties: ["band_gaps"], query, onWarning: () => {} });
      read(undefined)
        .then((all) => { seen.push(loaded()); return read({ "band_gaps.indirect": { $gt: 1 } }).then((some) => [all, some]); })
        .then(([all, some]) => { seen.push(loaded()); console.log(seen.join(" "), some.shape[0] > 0 && some.shape[0] < all.shape[0]); })
        .finally(() => client.close());
    `);
    expect(out).toBe("false false true true");
  });
});

describe("native Snappy is optional", () => {
  it("a Parquet export falls back to hyparquet-writer's JavaScript Snappy where the snappy package does not load, and DuckDB reads the file", async () => {
    const withoutSnappy = WITHOUT_DANFO.replace('request === "danfojs-node"', 'request === "snappy"').replace(
      "'danfojs-node'",
      "'snappy'",
    );
    const file = join(tmpdir(), `matframe-no-native-snappy-${process.pid}.parquet`);
    try {
      const out = await node(
        `
        const records = Array.from({ length: 3000 }, (_, i) => ({ _id: "id" + i, name: "material number " + i, lattice: { a: i / 8 } }));
        require("./index.js").exportParquet([records], ${JSON.stringify(file)}, { columns: ["name", "lattice.a"], force: true })
          .then((r) => console.log(r.items, require("./frame/export/snappy.js").snappyBackend(), Object.keys(require.cache).some((k) => k.includes("@napi-rs"))));
      `,
        withoutSnappy,
      );
      expect(out).toBe("3000 js false");
      const duck = await (await DuckDBInstance.create(":memory:")).connect();
      const codecs = await duck.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${file}')`);
      expect(codecs.getRows()).toEqual([["SNAPPY"]]);
      const sums = await duck.runAndReadAll(
        `SELECT count(*)::INTEGER, sum("lattice.a"), count(DISTINCT name)::INTEGER FROM '${file}'`,
      );
      expect(sums.getRows()[0]).toEqual([3000, (2999 * 3000) / 2 / 8, 3000]);
      duck.closeSync();
    } finally {
      rmSync(file, { force: true });
    }
  });
});

describe("hyparquet-writer that is installed but does not load", () => {
  // As a broken copy fails: its entry is there, but loading it throws.
  const BROKEN_WRITER = `
const Module = require("node:module");
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === "hyparquet-writer") {
    const error = new SyntaxError("Unexpected token 'export'");
    throw error;
  }
  return load.call(this, request, ...rest);
};`;

  it("is not reported as missing: the message names the failure and what to reinstall", async () => {
    const out = await node(
      `require("./index.js").exportParquet([[{ _id: "a" }]], require("node:stream").Writable({ write(c, e, cb) { cb(); } }))
        .then(() => console.log("no error"), (e) => console.log(e.name, e.code, e.message));`,
      BROKEN_WRITER,
    );
    expect(out).not.toContain("not installed");
    expect(out).toBe(
      "MatframeError ERR_MATFRAME A Parquet export could not load hyparquet-writer (SyntaxError: Unexpected token 'export'). Reinstall it: run `npm install hyparquet-writer@0.17.0`.",
    );
  });
});
