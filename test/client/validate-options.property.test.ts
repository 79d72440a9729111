import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Client, ValidationError } from "../../src";

// Whatever a notebook user passes, iterate()/list() either accept it or throw ValidationError,
// at once and before any request: never a TypeError from deep inside, never a request.

const client = new Client({ baseUrl: "http://127.0.0.1:9", accountId: "a", authToken: "t", maxRetries: 0 });
afterAll(() => client.close());

const optionKeys = [
  "query",
  "fields",
  "sort",
  "pageSize",
  "maxItems",
  "paging",
  "concurrency",
  "signal",
  "onPage",
  "onDuplicate",
];
const hostile = fc.oneof(
  fc.anything({
    withBigInt: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withTypedArray: true,
    withNullPrototype: true,
  }),
  fc.integer(),
  fc.double(),
  fc.constantFrom("offset", "keyset", 0, 1, 500, 501, -1, NaN, Infinity, null, [], {}),
);

describe("option validation under random input", () => {
  it("iterate() accepts or throws ValidationError, synchronously", () => {
    let tried = 0;
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...optionKeys), hostile, { maxKeys: 4 }), (options) => {
        tried += 1;
        try {
          const iterable = client.materials.iterate(options as never);
          expect(typeof iterable[Symbol.asyncIterator]).toBe("function");
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).message.length).toBeGreaterThan(20);
        }
      }),
      { numRuns: 2000 },
    );
    console.log(`iterate(): ${tried} random option sets tried`);
  });

  it("list() rejects bad projections with ValidationError before sending", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            query: hostile,
            projection: fc.dictionary(fc.constantFrom("fields", "sort", "skip", "limit", "x"), hostile),
          },
          { requiredKeys: [] },
        ),
        async (options) => {
          const error = await client.materials.list(options as never).catch((e: unknown) => e);
          // Valid options reach the (closed) port and fail as a connection error instead.
          expect((error as Error).name).toMatch(/^(ValidationError|ConnectionError)$/);
        },
      ),
      { numRuns: 300 },
    );
  });
});
