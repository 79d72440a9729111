import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, ValidationError, type IterateOptions } from "../../src";
import { normaliseBaseUrl } from "../../src/client/config/validate-options";
import { startFaultServer, type FaultServer } from "../support/fault-server";

describe("baseUrl normalisation", () => {
  it.each([
    ["http://127.0.0.1:4000", "http://127.0.0.1:4000/api/2018-10-01"],
    ["http://127.0.0.1:4000/", "http://127.0.0.1:4000/api/2018-10-01"],
    ["http://127.0.0.1:4000/api", "http://127.0.0.1:4000/api/2018-10-01"],
    ["http://127.0.0.1:4000/api/2018-10-01", "http://127.0.0.1:4000/api/2018-10-01"],
    ["https://platform.example.org/api/2018-10-01/", "https://platform.example.org/api/2018-10-01"],
    ["https://example.org/proxy/", "https://example.org/proxy/api/2018-10-01"],
  ])("%s -> %s", (input, expected) => {
    expect(normaliseBaseUrl(input).href).toBe(expected);
  });

  it.each([
    ["", /baseUrl is required/],
    ["not a url", /is not a URL/],
    ["ftp://example.org", /http:\/\/ or https:\/\//],
    ["https://example.org/api/2020-01-01", /matframe speaks 2018-10-01/],
    ["https://u:p@example.org", /must not contain a username or password/],
  ])("rejects %j", (input, message) => {
    expect(() => normaliseBaseUrl(input)).toThrow(message);
  });
});

describe("client options", () => {
  const base = { baseUrl: "http://127.0.0.1:9", accountId: "a", authToken: "t0ken-value" };

  it.each([
    [{ timeout: 0 }, "timeout"],
    [{ timeout: -5 }, "timeout"],
    [{ maxRetries: 1.5 }, "maxRetries"],
    [{ maxRetries: -1 }, "maxRetries"],
    [{ connections: 0 }, "connections"],
    [{ userAgent: "a\nb" }, "userAgent"],
    [{ signal: "stop" }, "signal"],
    [{ dispatcher: {} }, "dispatcher"],
    // A dispatcher of an older undici, without compose(): the interceptors could not be added.
    [{ dispatcher: { request() {}, dispatch() {} } }, "dispatcher"],
    [{ accountId: "" }, "accountId"],
    [{ authToken: 42 }, "authToken"],
  ])("%j is refused, naming %s", (bad, option) => {
    const attempt = () => new Client({ ...base, ...bad } as never);
    expect(attempt).toThrow(ValidationError);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).option).toBe(option);
      expect((error as ValidationError).code).toBe("ERR_INVALID_OPTION");
    }
  });

  it("never echoes a bad token", () => {
    expect(() => new Client({ ...base, accountId: undefined as never })).toThrow(/accountId is required/);
    const error = (() => {
      try {
        new Client({ ...base, baseUrl: "nope" });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).not.toContain(base.authToken);
  });
});

describe("list and iterate options are checked before any request", () => {
  let server: FaultServer;
  let client: Client;
  beforeAll(async () => {
    server = await startFaultServer({ records: 10 });
    client = new Client({ baseUrl: server.origin, accountId: server.accountId, authToken: server.authToken });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  const badIterate: Array<[IterateOptions, string, RegExp]> = [
    [{ pageSize: 0 }, "pageSize", /from 1 to 500 \(500 is the platform's largest page\)/],
    [{ pageSize: 501 }, "pageSize", /from 1 to 500/],
    [{ pageSize: 2.5 }, "pageSize", /integer/],
    [{ pageSize: "100" as never }, "pageSize", /got "100"/],
    [{ maxItems: 0 }, "maxItems", /1 or more/],
    [{ concurrency: 0 }, "concurrency", /from 1 to 16/],
    [{ concurrency: 100 }, "concurrency", /from 1 to 16/],
    [{ paging: "cursor" as never }, "paging", /"offset" or "keyset"/],
    [{ query: [] as never }, "query", /plain object.*got an array/],
    [{ query: "formula=Si" as never }, "query", /plain object/],
    [{ query: new Map() as never }, "query", /got a Map/],
    [{ query: { n: 10n } }, "query", /cannot be sent as JSON/],
    [{ fields: { formula: true } as never }, "fields", /1 \(include\) or 0 \(exclude\)/],
    [{ sort: { formula: "asc" } as never }, "sort", /1 \(ascending\) or -1 \(descending\)/],
    [{ paging: "keyset", sort: { formula: 1 } }, "sort", /Keyset paging always sorts by _id/],
    [{ onPage: 1 as never }, "onPage", /must be a function/],
  ];

  it.each(badIterate.map(([o, name, m]) => [name, o, m] as const))(
    "iterate() rejects a bad %s before sending",
    (option, options, message) => {
      const before = server.requests.length;
      let caught: unknown;
      try {
        client.materials.iterate(options);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ValidationError);
      expect((caught as ValidationError).option).toBe(option);
      expect((caught as Error).message).toMatch(message);
      expect(server.requests.length).toBe(before);
    },
  );

  it.each([
    [{ projection: { skip: -1 } }, "projection.skip", /0 or more/],
    [{ projection: { limit: 1000 } }, "projection.limit", /from 1 to 500/],
    [{ projection: { offset: 3 } as never }, "projection.offset", /use fields, sort, skip or limit/],
    [{ query: null as never }, "query", /plain object/],
  ])("list(%j) rejects %s before sending", async (options, option, message) => {
    const before = server.requests.length;
    const error = await client.materials.list(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).option).toBe(option);
    expect((error as Error).message).toMatch(message);
    expect(server.requests.length).toBe(before);
  });

  it("rejects collection names that are not a plain path segment", () => {
    expect(() => client.collection("../login")).toThrow(ValidationError);
    expect(() => client.collection("materials?x=1")).toThrow(/letters, digits/);
  });

  it("rejects an empty id in get()", async () => {
    await expect(client.materials.get("")).rejects.toThrow(ValidationError);
  });
});
