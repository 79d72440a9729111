import { describe, expect, it } from "vitest";
import { linkTiming } from "../../../src/client/transport/interceptors/link-timing";
import { LinkEstimate } from "../../../src/client/transport/link-estimate";
import { answered, sender, serve } from "./helpers";

/** A server that answers at once, as this machine's own does: the link is near. */
async function quick() {
  return serve((req, res) => {
    res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "application/json" });
    res.end("{}");
  });
}

describe("linkTiming", () => {
  it("asks for compression until an answer says the link is near, then for identity", async () => {
    const { origin, requests } = await quick();
    const estimate = new LinkEstimate("far");
    const send = sender(origin, linkTiming(estimate, undefined));
    expect(estimate.kind).toBeUndefined();
    // A loaded machine may take more than 20 ms for one answer: the shortest time decides.
    for (let i = 0; i < 20 && estimate.kind !== "near"; i++) answered(await send());
    expect(estimate.kind).toBe("near");
    answered(await send());
    expect(requests[0]!.headers["accept-encoding"]).toBe("br, gzip, deflate");
    expect(requests.at(-1)!.headers["accept-encoding"]).toBe("identity");
  });

  it("times error answers too, never a login's, and a header the request gives wins", async () => {
    const { origin, requests } = await quick();
    const estimate = new LinkEstimate("far");
    const send = sender(origin, linkTiming(estimate, undefined));
    answered(await send({ method: "POST", matframe: { login: true } }));
    expect(estimate.kind).toBeUndefined();
    for (let i = 0; i < 20 && estimate.kind === undefined; i++) answered(await send({ path: "/missing" }));
    expect(estimate.kind).toBeDefined();
    answered(await send({ headers: { "accept-encoding": "gzip" } }));
    expect(requests.at(-1)!.headers["accept-encoding"]).toBe("gzip");
  });

  it("follows the client's compression setting over the link's", async () => {
    const { origin, requests } = await quick();
    for (const [compression, expected] of [
      [true, "br, gzip, deflate"],
      [false, "identity"],
    ] as const) {
      const estimate = new LinkEstimate("near");
      estimate.observe(0);
      answered(await sender(origin, linkTiming(estimate, compression))());
      expect(requests.at(-1)!.headers["accept-encoding"]).toBe(expected);
    }
  });
});
