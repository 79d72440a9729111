import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as root from "../../src";
import * as server from "../../src/server";
import { capturedAll } from "../support/checked";

// One entry per product (docs/development.md): `matframe` is the client, its tables and the
// structure tools; `matframe/server` is the local platform. What the server entry exports, at
// runtime or as a type, the root does not, so a client-only program's declarations stay free of it.

const srcDir = join(__dirname, "../../src");

/** The names a module's `export { ... }` and `export type { ... }` lists give out. */
function exportedNames(file: string): string[] {
  const text = readFileSync(join(srcDir, file), "utf8");
  return capturedAll(/export (?:type )?\{([^}]*)\}/g, text).flatMap((list) =>
    list
      .split(",")
      .map((name) => name.trim().replace(/^type\s+/, ""))
      .map((name) => name.split(/\s+as\s+/).at(-1) ?? name)
      .filter((name) => name.length > 0),
  );
}

describe("the entries", () => {
  it("the root's runtime exports leave out the local platform", () => {
    expect(Object.keys(root)).not.toContain("startServer");
    expect(typeof root.Client).toBe("function");
    expect(typeof server.startServer).toBe("function");
  });

  it("no name of matframe/server, runtime or type, is exported by the root too", () => {
    const serverNames = exportedNames("server/index.ts");
    expect(serverNames).toContain("StartServerOptions");
    const rootNames = new Set(exportedNames("index.ts"));
    expect(serverNames.filter((name) => rootNames.has(name))).toEqual([]);
  });

  it("Client declares only public members: its internals are behind a handle no entry exports", () => {
    const members = Object.getOwnPropertyNames(root.Client.prototype).sort();
    expect(members).toEqual(
      [
        "bankMaterials",
        "bankWorkflows",
        "close",
        "collection",
        "constructor",
        "getData",
        "jobs",
        "logout",
        "materials",
        "projects",
        "properties",
        "results", // registered by the frame (src/frame/results), loaded with the root
        "workflows",
      ].sort(),
    );
    expect(
      Object.getOwnPropertyNames(root.Client).filter((name) => typeof Reflect.get(root.Client, name) === "function"),
    ).toEqual(expect.arrayContaining(["login", "fromEnv", "fromProfile"]));
    expect(root.Client).not.toHaveProperty("connect");
    for (const file of ["client/client.ts", "client/connection.ts"])
      expect(readFileSync(join(srcDir, file), "utf8"), file).not.toMatch(/@internal/);
    for (const entry of ["index.ts", "client/index.ts", "server/index.ts", "notebook/index.ts"])
      expect(readFileSync(join(srcDir, entry), "utf8"), entry).not.toMatch(/client-internals/);
  });

  it("the package's own name resolves each entry to its built file", () => {
    expect(require.resolve("matframe/server")).toBe(join(__dirname, "../../dist/server/index.js"));
    expect(require.resolve("matframe")).toBe(join(__dirname, "../../dist/index.js"));
  });
});
