import { describe, expect, it } from "vitest";
import { openCache } from "../src/client/transport/response-cache";
import { makeFieldSelector } from "../src/server/query/projection";
import { symmetryOf } from "../src/structure/symmetry";
import { MODULE_CACHES, resetModuleCaches, type ModuleCache } from "./support/module-caches";

// The shared-process guard (test/support/shared-process.ts) empties these caches after every test
// file of the `core` project: here each is filled the way the code fills it, then emptied by the
// guard's own call, and a hook that does not empty its cache is reported by name.

const SILICON = {
  lattice: { a: 3.867, b: 3.867, c: 3.867, alpha: 60, beta: 60, gamma: 60 },
  basis: {
    units: "crystal",
    elements: [
      { id: 0, value: "Si" },
      { id: 1, value: "Si" },
    ],
    coordinates: [
      { id: 0, value: [0, 0, 0] },
      { id: 1, value: [0.25, 0.25, 0.25] },
    ],
  },
};

describe("module caches between test files", () => {
  it("each cache the code fills is emptied by the guard's reset", async () => {
    await openCache("memory").set("a".repeat(64), { etag: '"A"', text: "{}" });
    expect(symmetryOf(SILICON).spaceGroupSymbol).toBe("Fd-3m");
    makeFieldSelector({ name: 1, "lattice.a": 1 })({ _id: "x", name: "Si", lattice: { a: 1 } });
    expect(MODULE_CACHES.map((cache) => [cache.name, cache.size() > 0])).toEqual(
      MODULE_CACHES.map((cache) => [cache.name, true]),
    );

    expect(resetModuleCaches()).toEqual([]);
    expect(MODULE_CACHES.map((cache) => cache.size())).toEqual(MODULE_CACHES.map(() => 0));
    // A client made after the reset starts from an empty memory cache.
    expect(await openCache("memory").get("a".repeat(64))).toBeUndefined();
  });

  it("names a cache whose reset hook leaves entries behind", () => {
    const kept = new Map([["k", 1]]);
    const broken: ModuleCache = { name: "a cache with a broken hook", size: () => kept.size, reset: () => undefined };
    const working: ModuleCache = { name: "a working cache", size: () => kept.size, reset: () => kept.clear() };
    expect(resetModuleCaches([broken])).toEqual(["a cache with a broken hook"]);
    expect(resetModuleCaches([working, broken])).toEqual([]);
  });
});
