import { describe, expect, it } from "vitest";
import { Collection } from "../../src/client/collection";
import { OptimadeEntries } from "../../src/client/optimade/optimade-client";
import "../../src/frame/collection-methods";
import "../../src/frame/optimade/optimade-methods";
import { TABLE_EXPORT_METHODS } from "../../src/frame/frame-methods";

// One registration gives a platform collection and an OPTIMADE provider's entries the same frame
// methods, defined as class methods are.
const NAMES = ["toDataFrame", "toArrow", ...Object.values(TABLE_EXPORT_METHODS), "exportStructures"];

describe("the frame methods' registration", () => {
  for (const [source, prototype] of [
    ["Collection", Collection.prototype],
    ["OptimadeEntries", OptimadeEntries.prototype],
  ] as const) {
    it(`${source} has every frame method, none enumerable`, () => {
      for (const name of NAMES) {
        const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
        expect(typeof descriptor?.value, `${source}.${name}`).toBe("function");
        expect(descriptor?.enumerable, `${source}.${name}`).toBe(false);
      }
      expect(Object.keys(prototype).filter((key) => NAMES.includes(key))).toEqual([]);
    });
  }
});
