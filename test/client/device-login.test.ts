// Signing in through the device flow from code: against the real local platform (approved over
// HTTP as a browser sends the form) and against a misbehaving server for slow_down.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AbortError,
  Client,
  DeviceLoginError,
  deviceLogin,
  readProfile,
  refreshDeviceTokens,
  saveProfile,
  signedInUser,
  type DevicePrompt,
} from "../../src";
import type { ServerHandle } from "../../src/server";
import { startTestServer } from "../server/helpers";
import { answerPage } from "../support/device-page";
import { at } from "../support/checked";

let server: ServerHandle;
let dir: string;
beforeAll(async () => {
  server = await startTestServer({ users: ["dana:open sesame"], deviceFlow: { intervalSeconds: 0 } });
  dir = mkdtempSync(join(tmpdir(), "matframe-device-"));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Signs in, with the person's answer sent from `onCode` as a browser would. */
function signIn(action: "approve" | "deny", password = "open sesame") {
  const prompts: DevicePrompt[] = [];
  const answered: Promise<unknown>[] = [];
  const tokens = deviceLogin({
    baseUrl: server.baseUrl,
    onCode: (prompt) => {
      prompts.push(prompt);
      answered.push(answerPage(prompt.verificationUriComplete!, { username: "dana", password, action }));
    },
  });
  return { tokens, prompts, answered };
}

describe("deviceLogin", () => {
  it("shows the page and code, polls until approved, and the token reads materials", async () => {
    const { tokens, prompts } = signIn("approve");
    const got = await tokens;
    expect(prompts).toHaveLength(1);
    const prompt = at(prompts, 0, "the sign-in prompt");
    expect(prompt.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(prompt.verificationUri).toBe(`${new URL(server.baseUrl).origin}/oidc/device`);
    expect(got.refreshToken).toBeTruthy();
    expect(got.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    const client = new Client({ baseUrl: server.baseUrl, accessToken: got.accessToken });
    try {
      const page = await client.materials.list({ projection: { limit: 2 } });
      expect(page.length).toBe(2);
    } finally {
      await client.close();
    }
    const me = await signedInUser({ baseUrl: server.baseUrl, accessToken: got.accessToken });
    expect(me.username).toBe("dana");
  });

  it("throws DeviceLoginError access_denied when denied", async () => {
    const { tokens } = signIn("deny");
    const error = await tokens.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeviceLoginError);
    expect((error as DeviceLoginError).oauthError).toBe("access_denied");
    expect((error as DeviceLoginError).code).toBe("ERR_DEVICE_LOGIN");
  });

  it("stops with AbortError when the signal aborts while it waits, and no secret is in the message", async () => {
    const stop = new AbortController();
    const waiting = deviceLogin({
      baseUrl: server.baseUrl,
      signal: stop.signal,
      onCode: () => stop.abort(new Error("Ctrl-C")),
    });
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as Error).message).toBe("The device sign-in was aborted while waiting for approval.");
  });

  it("refreshes with the refresh token; a used one is refused with invalid_grant", async () => {
    const first = await signIn("approve").tokens;
    const second = await refreshDeviceTokens({ baseUrl: server.baseUrl, refreshToken: first.refreshToken! });
    expect(second.accessToken).not.toBe(first.accessToken);
    const error = await refreshDeviceTokens({ baseUrl: server.baseUrl, refreshToken: first.refreshToken! }).catch(
      (e: unknown) => e,
    );
    expect((error as DeviceLoginError).oauthError).toBe("invalid_grant");
    expect((error as Error).message).not.toContain(first.refreshToken!);
  });

  it("Client.fromEnv refreshes a saved device sign-in whose access token has expired, and saves the new one", async () => {
    const tokens = await signIn("approve").tokens;
    const me = await signedInUser({ baseUrl: server.baseUrl, accessToken: tokens.accessToken });
    const env = { MATFRAME_CREDENTIALS_FILE: join(dir, "credentials.json") };
    saveProfile(
      "default",
      {
        baseUrl: server.baseUrl,
        accountId: me.accountId,
        authToken: "expired-token-xxxxxxxx",
        tokenType: "bearer",
        refreshToken: tokens.refreshToken,
        expiresAt: new Date(Date.now() - 1000).toISOString(),
      },
      env,
    );
    const client = await Client.fromEnv({}, env);
    try {
      expect((await client.materials.list({ projection: { limit: 1 } })).length).toBe(1);
    } finally {
      await client.close();
    }
    const saved = readProfile("default", env)!;
    expect(saved.authToken).not.toBe("expired-token-xxxxxxxx");
    expect(saved.refreshToken).not.toBe(tokens.refreshToken);
    expect(Date.parse(saved.expiresAt!)).toBeGreaterThan(Date.now());
    expect(readFileSync(env.MATFRAME_CREDENTIALS_FILE, "utf8")).not.toContain(tokens.refreshToken!);
  });
});

describe("slow_down", () => {
  let fault: Server;
  let faultUrl: string;
  beforeAll(async () => {
    // A platform that answers every poll with slow_down.
    fault = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/oidc/device/auth") {
        res.end(
          JSON.stringify({
            device_code: "d".repeat(43),
            user_code: "BCDF-GHJK",
            verification_uri: "http://x/oidc/device",
            expires_in: 600,
            interval: 0,
          }),
        );
      } else {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: "slow_down" }));
      }
    });
    await new Promise<void>((resolve) => fault.listen(0, "127.0.0.1", resolve));
    faultUrl = `http://127.0.0.1:${(fault.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => fault.close(() => resolve())));

  it("waits five seconds longer after each slow_down (RFC 8628 section 3.5)", async () => {
    const stop = new AbortController();
    const waits: number[] = [];
    const error = await deviceLogin({
      baseUrl: faultUrl,
      signal: stop.signal,
      onCode: () => {},
      onWait: (seconds) => {
        waits.push(seconds);
        if (seconds > 0) stop.abort(new Error("seen"));
      },
    }).catch((e: unknown) => e);
    expect(waits).toEqual([0, 5]);
    expect(error).toBeInstanceOf(AbortError);
  });
});

describe("the client guide's device sign-in example", () => {
  it("runs as written: prints the page and code, and reads materials once approved there", async () => {
    const dist = join(__dirname, "../../dist/index.js");
    if (!existsSync(dist)) throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
    const guide = readFileSync(join(__dirname, "../../docs/client.md"), "utf8");
    const block = /```js\n(\/\/ device-login\.js\n[\s\S]*?)```/.exec(guide)?.[1];
    if (!block) throw new Error("docs/client.md has no ```js block starting with // device-login.js");
    const file = join(dir, "device-login.js");
    writeFileSync(file, block.replace('require("matframe")', `require(${JSON.stringify(dist)})`));
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, MATFRAME_BASE_URL: server.baseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        const page = /^Open (\S+) and approve the code [A-Z]{4}-[A-Z]{4}$/m.exec(stdout)?.[1];
        if (page !== undefined) resolve(page);
      });
      child.on("close", () => reject(new Error(`the example ended without a code: ${stdout}${stderr}`)));
    });
    expect((await answerPage(url, { username: "dana", password: "open sesame", action: "approve" })).status).toBe(200);
    expect(await exited, stderr).toBe(0);
    expect(stdout).toMatch(/^Signed in; read 3 materials\.$/m);
  });
});
