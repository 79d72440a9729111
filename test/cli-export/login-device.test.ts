// `matframe login --device`: prints the page and code, waits for the approval, saves the tokens
// in the profile (used as Bearer by export), stops cleanly on Ctrl-C, and logout revokes them.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { startTestServer } from "../server/helpers";
import { answerPage, postForm, rootOf } from "../support/device-page";
import { runCli, startCli } from "./run-cli";

let server: ServerHandle;
let dir: string;
beforeAll(async () => {
  server = await startTestServer({ users: ["frank:hunter2 hunter2"], deviceFlow: { intervalSeconds: 0 } });
  dir = mkdtempSync(join(tmpdir(), "matframe-login-device-"));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves with the first match of `pattern` in what the child writes to stderr. */
function waitForStderr(child: ReturnType<typeof startCli>["child"], pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = "";
    child.stderr!.on("data", (chunk: string) => {
      text += chunk;
      const match = pattern.exec(text);
      if (match) resolve(match);
    });
    child.on("close", () => reject(new Error(`exited before printing ${pattern}: ${text}`)));
  });
}

it("signs in through the browser page, saves a Bearer profile export uses, and logout revokes it", async () => {
  const file = join(dir, "credentials.json");
  const env = { MATFRAME_CREDENTIALS_FILE: file };
  const run = startCli(["login", "--device", "--base-url", server.baseUrl, "--profile", "lab"], { env });
  // Both groups take part in every match; the default only types the URL, which is checked next.
  const [, url = "", code] = await waitForStderr(
    run.child,
    /open (http:\/\/\S+) in a browser and approve the code ([A-Z]{4}-[A-Z]{4})/,
  );
  expect(url).toBe(`${rootOf(server.baseUrl)}/oidc/device?user_code=${code}`);
  expect((await answerPage(url, { username: "frank", password: "hunter2 hunter2", action: "approve" })).status).toBe(
    200,
  );
  const done = await run.done;
  expect(done.code).toBe(0);
  expect(done.stderr).toMatch(
    new RegExp(
      `Signed in to 127\\.0\\.0\\.1:\\d+ as frank; saved as profile "lab" in ${file.replace(/[.]/g, "\\.")}\\.\\n$`,
    ),
  );
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const saved = JSON.parse(readFileSync(file, "utf8")).profiles.lab;
  expect(saved).toMatchObject({ tokenType: "bearer", username: "frank" });
  expect(done.stderr).not.toContain(saved.authToken);
  expect(done.stderr).not.toContain(saved.refreshToken);

  const exported = await runCli(
    ["export", "--profile", "lab", "--columns", "formula", "--max-items", "2", "--output", "-", "--quiet"],
    { env },
  );
  expect(exported.code).toBe(0);
  expect(exported.stdout.trim().split("\n")).toHaveLength(3);

  const logout = await runCli(["logout", "--profile", "lab"], { env });
  expect(logout.stderr).toMatch(/revoked its token/);
  expect(existsSync(file)).toBe(false);
  const refresh = await postForm(rootOf(server.baseUrl), "/oidc/token", {
    grant_type: "refresh_token",
    refresh_token: saved.refreshToken,
    client_id: "cli-device-client",
  });
  expect(refresh.body.error).toBe("invalid_grant");
});

it("stops waiting on Ctrl-C (SIGINT) with exit code 130 and saves nothing", async () => {
  const file = join(dir, "interrupted.json");
  const run = startCli(["login", "--device", "--base-url", server.baseUrl], {
    env: { MATFRAME_CREDENTIALS_FILE: file },
  });
  await waitForStderr(run.child, /approve the code/);
  run.child.kill("SIGINT");
  const done = await run.done;
  expect(done.code).toBe(130);
  expect(done.stderr).toMatch(/stopped waiting for the sign-in; nothing was saved/);
  expect(existsSync(file)).toBe(false);
});

it("refuses --username and --password-stdin with --device", async () => {
  const both = await runCli(["login", "--device", "--base-url", server.baseUrl, "--username", "frank"], {
    env: { MATFRAME_CREDENTIALS_FILE: join(dir, "x.json") },
  });
  expect(both.code).toBe(1);
  expect(both.stderr).toMatch(/--device signs in in a browser: leave out --username and --password-stdin/);
});
