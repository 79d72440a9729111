// The verification page in a real browser (Debian's Chromium): a person opens the link the
// device shows, types their name and password into the labelled fields and clicks Approve; the
// device's polling then gets a token that reads materials. A wrong password gets no token.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client, deviceLogin, type DevicePrompt } from "../../src";
import type { ServerHandle } from "../../src/server";
import { answerInBrowser, browserMissing, launchChromium } from "../support/browser";
import { poll, rootOf, startGrant } from "../support/device-page";
import { startTestServer } from "./helpers";

const missing = browserMissing();
let server: ServerHandle;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;

// Said when the file is collected: with every test skipped, no hook runs.
if (missing) console.warn(`\n*** SKIPPED the verification page's browser tests: ${missing}. ***\n`);

beforeAll(async () => {
  if (missing) return;
  server = await startTestServer({ users: ["erin:s3cret pass"], deviceFlow: { intervalSeconds: 0 } });
  chromium = await launchChromium();
}, 60_000);
afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

it.skipIf(missing !== undefined)(
  "approving in the browser signs the polling device in",
  async () => {
    let shown: Promise<{ status: number; text: string }> | undefined;
    const tokens = await deviceLogin({
      baseUrl: server.baseUrl,
      onCode: (prompt: DevicePrompt) => {
        shown = answerInBrowser(chromium!.browser, prompt.verificationUriComplete!, {
          username: "erin",
          password: "s3cret pass",
          button: "Approve",
        });
      },
    });
    const page = await shown!;
    expect(page.status).toBe(200);
    expect(page.text).toContain("Device approved");
    const client = new Client({ baseUrl: server.baseUrl, accessToken: tokens.accessToken });
    try {
      const materials = await client.materials.list({ projection: { limit: 3 } });
      expect(materials.length).toBe(3);
    } finally {
      await client.close();
    }
  },
  60_000,
);

it.skipIf(missing !== undefined)(
  "a wrong password in the browser gives no token",
  async () => {
    const root = rootOf(server.baseUrl);
    const grant = await startGrant(root);
    const page = await answerInBrowser(chromium!.browser, grant.verification_uri_complete, {
      username: "erin",
      password: "not it",
      button: "Approve",
    });
    expect(page.status).toBe(401);
    expect(page.text).toContain("Wrong username or password.");
    const answer = await poll(root, grant.device_code);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("authorization_pending");
  },
  60_000,
);
