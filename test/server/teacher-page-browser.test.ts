// The teacher's page in a real browser (Debian's Chromium): opened from the address serve
// printed, it lists the class, shows a locked-out student, and one click on Unlock lets them in;
// its notice is gone at the page's next reload.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { browserMissing, launchChromium } from "../support/browser";
import { startTestServer } from "./helpers";

const missing = browserMissing();
let server: ServerHandle;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;

// Said when the file is collected: with every test skipped, no hook runs.
if (missing) console.warn(`\n*** SKIPPED the teacher's page browser test: ${missing}. ***\n`);

beforeAll(async () => {
  if (missing) return;
  server = await startTestServer({
    users: ["alice:wonderland-42", "bob:battery staple", "carol:staple horse"],
    teacherPage: true,
    loginThrottle: { maxFailures: 2 },
  });
  chromium = await launchChromium();
}, 60_000);
afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

function login(username: string, password: string): Promise<number> {
  return fetch(`${server.baseUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }),
  }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });
}

it.skipIf(missing !== undefined)(
  "lists the class, shows the locked-out student, and Unlock lets them in with one click",
  async () => {
    expect(await login("bob", "battery staple")).toBe(200);
    expect(await login("alice", "typo-1")).toBe(401);
    expect(await login("alice", "typo-2")).toBe(401);
    expect(await login("alice", "wonderland-42")).toBe(429);
    const page = await chromium!.browser.newPage();
    try {
      const opened = await page.goto(server.teacherUrl!);
      expect(opened?.status()).toBe(200);
      // The key has left the address bar.
      expect(page.url()).toBe(`${new URL(server.baseUrl).origin}/teacher`);
      const text = String(await page.evaluate("document.body.innerText"));
      expect(text).toContain("The class at a glance");
      for (const name of ["alice", "bob", "carol"]) expect(text).toContain(name);
      const rowText = async (name: string) =>
        String(await page.$eval(`tr[data-username="${name}"]`, (row) => row.textContent));
      expect(await rowText("alice")).toMatch(/locked out at 127\.0\.0\.1 for 15 min/);
      expect(await rowText("bob")).toMatch(/signed in/);
      const button = await page.$('::-p-xpath(//tr[@data-username="alice"]//button[normalize-space()="Unlock"])');
      expect(button).not.toBeNull();
      const [after] = await Promise.all([page.waitForNavigation(), button!.click()]);
      expect(after?.status()).toBe(200);
      expect(String(await page.evaluate("document.body.innerText"))).toContain('Unlocked "alice"');
      expect(await rowText("alice")).not.toMatch(/locked out/);
      expect(await login("alice", "wonderland-42")).toBe(200);
      // The page's own reload goes to /teacher: the notice was said once and is gone.
      await page.waitForNavigation({ timeout: 20_000 });
      expect(page.url()).toBe(`${new URL(server.baseUrl).origin}/teacher`);
      expect(String(await page.evaluate("document.body.innerText"))).not.toContain("Unlocked");
    } finally {
      await page.close();
    }
  },
  60_000,
);
