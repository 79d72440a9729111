import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formEncoded } from "../../src/client/transport/query-string";

// The client writes its query strings without URLSearchParams (for speed); the server, its
// start-up reads and every cache keyed by request path expect exactly what URLSearchParams writes.

describe("formEncoded", () => {
  it("writes what URLSearchParams writes, for any names and values", () => {
    const text = fc.string({ unit: "binary" }); // every code point, lone surrogates included
    fc.assert(
      fc.property(fc.dictionary(text, text), (search) => {
        expect(formEncoded(search)).toBe(new URLSearchParams(search).toString());
      }),
      { numRuns: 2000 },
    );
  });

  it("writes a results join's query as URLSearchParams does", () => {
    const search = {
      query: JSON.stringify({ _id: { $in: ["a b", "c~d", "e'f(g)!", "é", "😀"] } }),
      projection: JSON.stringify({ fields: { _id: 1, "source.info": 1 }, sort: { _id: 1 }, limit: 150 }),
      1: "integer-like names come first",
    };
    expect(formEncoded(search)).toBe(new URLSearchParams(search).toString());
    expect(formEncoded({})).toBe("");
    // Two names that are one once well-formed: one pair, at the first's place, with the last's value.
    const colliding = { a: "1", "\uD800": "x", b: "2", "\uDC00": "y" };
    expect(formEncoded(colliding)).toBe(new URLSearchParams(colliding).toString());
    expect(formEncoded(colliding)).toBe("a=1&%EF%BF%BD=y&b=2");
  });
});
