import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

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

  it("names the package to install when it is missing", async () => {
    const out = await node(
      `require("./index.js").toDataFrame([{ _id: "a" }]).then(() => console.log("no error"), (e) => console.log(e.name, e.code, e.message));`,
      WITHOUT_DANFO,
    );
    expect(out).toBe(
      "MissingDependencyError ERR_MISSING_DEPENDENCY A DataFrame needs the optional package danfojs-node, which is not installed: run `npm install danfojs-node`. Version 1.2.0 also needs \"overrides\" in your package.json: see \"Installing danfojs-node\" in matframe's README.",
    );
  });
});
