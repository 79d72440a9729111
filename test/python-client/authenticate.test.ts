// The platform's example notebooks sign in with `await authenticate()` (Exabyte-io/api-examples)
// and then read the account through the platform's Python client. Here that code, unmodified,
// signs in to the local platform through the verification page in Chromium.
//
// It needs checkouts of both projects (their code is not part of matframe):
// MATFRAME_API_EXAMPLES_SRC=<Exabyte-io/api-examples> and MATFRAME_PYTHON_CLIENT_SRC=<Exabyte-io/api-client>,
// and a Python 3 with requests and pydantic 2 (MATFRAME_PYTHON, else python3 on PATH, else
// /usr/bin/python3). Without them the test is skipped with the reason.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { answerInBrowser, browserMissing, launchChromium } from "../support/browser";
import { captured } from "../support/checked";
import { login, startTestServer } from "../server/helpers";

const EXAMPLES = process.env.MATFRAME_API_EXAMPLES_SRC;
const CLIENT = process.env.MATFRAME_PYTHON_CLIENT_SRC;

/** The first Python that has what the two projects import. */
function findPython(): string | undefined {
  for (const python of [process.env.MATFRAME_PYTHON, "python3", "/usr/bin/python3"]) {
    if (!python) continue;
    try {
      execFileSync(python, ["-c", "import requests, pydantic; assert int(pydantic.VERSION.split('.')[0]) >= 2"], {
        stdio: "ignore",
      });
      return python;
    } catch {
      // the next one
    }
  }
  return undefined;
}
const PYTHON = findPython();

function missing(): string | undefined {
  if (!EXAMPLES || !existsSync(path.join(EXAMPLES, "src/py/mat3ra/notebooks_utils/auth.py"))) {
    return "MATFRAME_API_EXAMPLES_SRC does not name a checkout of Exabyte-io/api-examples";
  }
  if (!CLIENT || !existsSync(path.join(CLIENT, "src/py/mat3ra/api_client/client.py"))) {
    return "MATFRAME_PYTHON_CLIENT_SRC does not name a checkout of Exabyte-io/api-client";
  }
  if (!PYTHON)
    return "no Python 3 with requests and pydantic 2 (set MATFRAME_PYTHON, or pip install requests pydantic)";
  return browserMissing();
}

const reason = missing();
let server: ServerHandle;

beforeAll(async () => {
  if (reason) return;
  server = await startTestServer({ users: ["grace:lovelace 1843"], deviceFlow: { intervalSeconds: 1 } });
});
afterAll(async () => {
  await server?.close();
});

it("authenticate() completes the device flow through the verification page, and the client reads the account", async (context) => {
  if (reason) {
    console.warn(`\n*** SKIPPED api-examples' authenticate() against the local platform: ${reason}. ***\n`);
    context.skip();
  }
  const port = new URL(server.baseUrl).port;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    API_HOST: "127.0.0.1",
    API_PORT: port,
    API_SECURE: "false",
    MATFRAME_API_EXAMPLES_SRC: EXAMPLES,
    MATFRAME_PYTHON_CLIENT_SRC: CLIENT,
  };
  const child = spawn(PYTHON!, [path.join(__dirname, "authenticate.py")], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const link = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const href = /<a href='([^']+)'/.exec(stdout)?.[1];
      if (href) resolve(href);
    });
    child.on("close", () => reject(new Error(`authenticate() ended without showing a link:\n${stdout}\n${stderr}`)));
  });
  const chromium = await launchChromium();
  try {
    const url = await link;
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/oidc/device\\?user_code=[A-Z]{4}-[A-Z]{4}$`));
    const page = await answerInBrowser(chromium.browser, url, {
      username: "grace",
      password: "lovelace 1843",
      button: "Approve",
    });
    expect(page.text).toContain("Device approved");
  } finally {
    await chromium.close();
  }
  expect(await exited, stderr).toBe(0);
  const result = JSON.parse(captured(/^RESULT (.*)$/m, stdout, "the RESULT line"));
  const session = await login(server, "grace", "lovelace 1843");
  expect(result).toEqual({
    token_set: true,
    refresh_set: true,
    account_id: session["X-Account-Id"],
    account_name: "grace",
    accounts: [{ _id: session["X-Account-Id"], name: "grace", type: "personal", isDefault: true }],
    organization: null,
    materials: 2,
  });
}, 120_000);
