import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { login, PREFIX, rawRequest, startTestServer, type Session } from "../server/helpers";
import { call } from "./helpers";

// Each collection declares its verbs, sets and defaults in its record (collection.ts); the router
// answers exactly those. The platform's verbs per collection, written out here as the contract.

const VERBS: Record<string, string> = {
  copy: "POST",
  "set-default": "POST",
  "move-to-set": "POST",
  submit: "POST",
  terminate: "POST",
  purge: "POST",
  files: "GET",
  "presigned-urls": "POST",
  "output-files": "POST",
};
const JOB_VERBS = ["submit", "terminate", "purge", "files", "presigned-urls", "output-files"];
const ANSWERED: Record<string, readonly string[]> = {
  materials: ["copy", "set-default", "move-to-set"],
  workflows: ["copy", "set-default"],
  "bank-workflows": ["copy"],
  jobs: ["copy", "move-to-set", ...JOB_VERBS],
  projects: ["copy", "set-default"],
  properties: [],
  metaproperties: [],
  "bank-materials": ["copy"],
  charges: [],
};

let server: ServerHandle;
let alice: Session;

beforeAll(async () => {
  server = await startTestServer({ users: ["alice:alice-password"] });
  alice = await login(server, "alice", "alice-password");
});
afterAll(() => server?.close());

describe("the collections' records, as the router answers them", () => {
  it("names every collection in the endpoint list, the jobs' own verbs with them", async () => {
    const root = await rawRequest(server, "GET", `${PREFIX}/`, { headers: { ...alice } });
    const endpoints: string = root.body.data.endpoints;
    const others = Object.keys(ANSWERED).filter((name) => name !== "materials");
    expect(endpoints).toContain(`POST <id>/copy of ${others.join(", ")} (jobs also POST <id>/`);
  });

  for (const [collection, answered] of Object.entries(ANSWERED)) {
    it(`${collection}: answers ${answered.join(", ") || "no verb after an id"}, and lists exactly those for any other`, async () => {
      for (const [verb, method] of Object.entries(VERBS)) {
        // (POST materials/<id>/copy is answered by the material handlers, router.ts.)
        const res = await call(server, alice, method, `/${collection}/no-such-id/${verb}`);
        const message = String(res.body?.message ?? res.text);
        if (answered.includes(verb)) {
          expect(message, `${method} ${collection}/<id>/${verb}`).not.toMatch(/^Unknown endpoint/);
        } else {
          expect(res.status, `${method} ${collection}/<id>/${verb}`).toBe(404);
          const listed = answered.map((name) => `${VERBS[name]} <id>/${name}`);
          expect(message).toBe(
            `Unknown endpoint ${PREFIX}/${collection}/no-such-id/${verb}. ${collection} has GET, GET <id>, PUT create, PATCH|DELETE <id>${listed.length ? `, ${listed.join(", ")}` : ""}.`,
          );
        }
      }
      // A verb is looked up among the verbs, not among an object's members.
      expect((await call(server, alice, "POST", `/${collection}/no-such-id/constructor`)).status).toBe(404);
    });
  }
});
