import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { Client } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { resolvePlatform } from "../../src/client/config/platform-source";
import { rawLogin } from "../support/raw-login";
import { runCli } from "./run-cli";

// The CLI finds the platform the way the platform's own Python client does (API_HOST, API_PORT,
// API_SECURE, OIDC_ACCESS_TOKEN, ACCOUNT_ID + AUTH_TOKEN), says which source it used, and never
// falls back to the built-in demo data when a platform is named only in part.

let server: ServerHandle;
let credentials: { accountId: string; authToken: string };
let dir: string;
/** A material only the named server holds: exporting it proves the export did not read the demo platform. */
const MARKER = "Reached through the platform client's variables";

beforeAll(async () => {
  server = await startServer({ port: 0, users: ["ada:lovelace-1843"] });
  credentials = await rawLogin(server.baseUrl, "ada", "lovelace-1843");
  const client = new Client({ baseUrl: server.baseUrl, ...credentials });
  const [si] = await client.materials.list({ query: { formula: "Si" }, projection: { limit: 1 } });
  const { _id: _drop, owner: _owner, ...copy } = si as Record<string, unknown>;
  await client.materials.create({ ...copy, name: MARKER });
  await client.close();
  dir = mkdtempSync(join(tmpdir(), "matframe-platform-source-"));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const official = () => ({ API_HOST: "127.0.0.1", API_PORT: String(new URL(server.baseUrl).port), API_SECURE: "false" });

describe("matframe export with only the platform client's variables", () => {
  it("reads the platform API_HOST names with OIDC_ACCESS_TOKEN, and says so without the token", async () => {
    const result = await runCli(["export", "--columns", "name,formula", "--output", "-"], {
      env: { ...official(), OIDC_ACCESS_TOKEN: credentials.authToken },
    });
    expect(result.code, result.stderr).toBe(0);
    const rows = parse(result.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.name)).toContain(MARKER);
    expect(result.stderr).not.toContain("built-in local platform");
    expect(result.stderr.split("\n")[0]).toBe(
      `Exporting from ${server.baseUrl} (address from API_HOST, API_PORT, API_SECURE; credentials from OIDC_ACCESS_TOKEN).`,
    );
    expect(result.stderr).not.toContain(credentials.authToken.slice(0, 8));
  });

  it("a variable's mistake is told in the variable's name, not a flag's", async () => {
    const result = await runCli(["export", "--output", "-"], { env: { MATFRAME_PROFILE: "absent" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^matframe export: MATFRAME_PROFILE names a saved login "absent"/);
  });

  it("a token the platform refuses: the hint names the variables it came from", async () => {
    for (const [env, names] of [
      [{ OIDC_ACCESS_TOKEN: "n0t-a-valid-t0ken" }, "OIDC_ACCESS_TOKEN"],
      [{ ACCOUNT_ID: credentials.accountId, AUTH_TOKEN: "n0t-a-valid-t0ken" }, "ACCOUNT_ID \\+ AUTH_TOKEN"],
    ] as const) {
      const result = await runCli(["export", "--columns", "name", "--output", "-"], { env: { ...official(), ...env } });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`log in again \\(new values for ${names}, or \`matframe login\`\\)\\.`));
      expect(result.stderr).not.toContain("MATFRAME_*");
      expect(result.stderr).not.toContain("n0t-a-valid-t0ken");
    }
  });

  it("plain HTTP where https is assumed (API_SECURE left out): says to set API_SECURE=false", async () => {
    const { API_SECURE: _secure, ...plain } = official();
    const result = await runCli(["export", "--columns", "name", "--output", "-"], {
      env: { ...plain, OIDC_ACCESS_TOKEN: credentials.authToken },
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(
      /the server answered in plain HTTP, not TLS\. Its address starts with http:\/\/, not https:\/\/ \(.*API_SECURE=false\)/,
    );
    expect(result.stderr).not.toContain(credentials.authToken);
  });

  it("reads ACCOUNT_ID + AUTH_TOKEN the same way", async () => {
    const result = await runCli(["export", "--columns", "name", "--output", "-"], {
      env: { ...official(), ...{ ACCOUNT_ID: credentials.accountId, AUTH_TOKEN: credentials.authToken } },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(MARKER);
    expect(result.stderr).toContain("credentials from ACCOUNT_ID + AUTH_TOKEN");
  });

  it("MATFRAME_BASE_URL names the address and the platform client's token the credentials", async () => {
    const result = await runCli(["export", "--columns", "name", "--output", "-"], {
      env: { MATFRAME_BASE_URL: server.baseUrl, OIDC_ACCESS_TOKEN: credentials.authToken },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(MARKER);
    expect(result.stderr).toContain("(address from MATFRAME_BASE_URL; credentials from OIDC_ACCESS_TOKEN)");
  });
});

describe("matframe login with the platform client's address variables", () => {
  it("logs in to the platform API_HOST names and says where the address came from", async () => {
    const file = join(dir, "login.json");
    const result = await runCli(["login", "--username", "ada", "--password-stdin"], {
      env: { ...official(), MATFRAME_CREDENTIALS_FILE: file },
      stdin: "lovelace-1843\n",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^Logged in to 127\.0\.0\.1:\d+ \(address from API_HOST, API_PORT, API_SECURE\) as ada; saved as profile "default"/,
    );
    const exported = await runCli(["export", "--columns", "name", "--output", "-"], {
      env: { MATFRAME_CREDENTIALS_FILE: file },
    });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(MARKER);
    expect(exported.stderr.split("\n")[0]).toBe(`Exporting from ${server.baseUrl} (the saved login "default").`);
  });
});

describe("matframe export refuses a half setting instead of exporting the demo data", () => {
  const refused = async (env: Record<string, string>, says: RegExp) => {
    const result = await runCli(["export", "--output", join(dir, "out.csv")], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).not.toContain("built-in local platform");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(says);
    for (const secret of [credentials.authToken, credentials.accountId])
      expect(result.stderr).not.toContain(secret.slice(0, 6));
    return result.stderr;
  };

  it("a host without credentials", async () => {
    await refused(
      official(),
      /^matframe export: API_HOST, API_PORT, API_SECURE names the platform http:\/\/127\.0\.0\.1:\d+\/api\/2018-10-01, but no credentials for it are set: set .*OIDC_ACCESS_TOKEN/,
    );
  });

  it("a token without a host", async () => {
    await refused(
      { OIDC_ACCESS_TOKEN: credentials.authToken },
      /OIDC_ACCESS_TOKEN is set, but nothing names the platform to send it to: set --base-url, MATFRAME_BASE_URL, or API_HOST/,
    );
  });

  it("one of a pair", async () => {
    await refused(
      { ...official(), ACCOUNT_ID: credentials.accountId },
      /ACCOUNT_ID is set but AUTH_TOKEN is not: the two go together \(or set OIDC_ACCESS_TOKEN instead\)/,
    );
    await refused(
      { MATFRAME_BASE_URL: server.baseUrl, MATFRAME_AUTH_TOKEN: credentials.authToken },
      /MATFRAME_AUTH_TOKEN is set but MATFRAME_ACCOUNT_ID is not/,
    );
  });

  it("a port without a host, and values the platform client would not take", async () => {
    await refused(
      { API_PORT: "4000", OIDC_ACCESS_TOKEN: credentials.authToken },
      /API_PORT is set, but API_HOST is not/,
    );
    await refused(
      { ...official(), API_SECURE: "maybe", OIDC_ACCESS_TOKEN: credentials.authToken },
      /API_SECURE must be true or false/,
    );
    await refused(
      { ...official(), API_VERSION: "2024-01-01", OIDC_ACCESS_TOKEN: credentials.authToken },
      /matframe speaks the API version 2018-10-01/,
    );
  });
});

/** A server that answers nothing useful and records every header it is sent: "another address". */
async function startRecorder(): Promise<{ baseUrl: string; headers: () => string; close: () => Promise<void> }> {
  const { createServer } = await import("node:http");
  let seen = "";
  const recorder = createServer((req, res) => {
    seen += `${req.method} ${req.url} ${JSON.stringify(req.headers)}\n`;
    res.writeHead(404, { "content-type": "application/json" }).end('{"status":"error","message":"nothing here"}');
  });
  await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
  const { port } = recorder.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    headers: () => seen,
    close: () => new Promise((resolve) => recorder.close(() => resolve())),
  };
}

describe("credentials from the environment go only to the platform named beside them", () => {
  const TOKEN = "t0ken-for-the-real-platform";
  const cases: [string, Record<string, string>, string[], RegExp][] = [
    [
      "API_HOST + OIDC_ACCESS_TOKEN, then --base-url",
      { API_HOST: "platform.example.invalid", OIDC_ACCESS_TOKEN: TOKEN },
      ["--base-url"],
      /OIDC_ACCESS_TOKEN is set for the platform API_HOST names \(https:\/\/platform\.example\.invalid\/api\/2018-10-01\) and was not sent to http:\/\/127\.0\.0\.1:\d+\/api\/2018-10-01, which --base-url names/,
    ],
    [
      "API_HOST + ACCOUNT_ID + AUTH_TOKEN, then --base-url",
      { API_HOST: "platform.example.invalid", ACCOUNT_ID: "acc-1", AUTH_TOKEN: TOKEN },
      ["--base-url"],
      /ACCOUNT_ID, AUTH_TOKEN are set for the platform API_HOST names .* were not sent/,
    ],
    [
      "API_HOST + OIDC_ACCESS_TOKEN, then MATFRAME_BASE_URL",
      { API_HOST: "platform.example.invalid", OIDC_ACCESS_TOKEN: TOKEN },
      ["MATFRAME_BASE_URL"],
      /OIDC_ACCESS_TOKEN is set for the platform API_HOST names .* which MATFRAME_BASE_URL names.*leave out MATFRAME_BASE_URL/,
    ],
    [
      "MATFRAME_BASE_URL + MATFRAME_ACCOUNT_ID + MATFRAME_AUTH_TOKEN, then --base-url",
      {
        MATFRAME_BASE_URL: "https://platform.example.invalid",
        MATFRAME_ACCOUNT_ID: "acc-1",
        MATFRAME_AUTH_TOKEN: TOKEN,
      },
      ["--base-url"],
      /MATFRAME_ACCOUNT_ID, MATFRAME_AUTH_TOKEN are set for the platform MATFRAME_BASE_URL names .*leave out --base-url\.$/m,
    ],
    [
      "MATFRAME_BASE_URL + MATFRAME_PASSWORD, then --base-url --username",
      { MATFRAME_BASE_URL: "https://platform.example.invalid", MATFRAME_PASSWORD: TOKEN },
      ["--base-url", "--username"],
      /MATFRAME_PASSWORD is set for the platform MATFRAME_BASE_URL names .* was not sent/,
    ],
  ];
  for (const [name, env, how, says] of cases) {
    it(`${name}: another address gets none of them, and the message says why`, async () => {
      const other = await startRecorder();
      try {
        const args = ["export", "--columns", "name", "--output", "-"];
        const vars: Record<string, string> = { ...env };
        if (how.includes("--base-url")) args.push("--base-url", other.baseUrl);
        else vars.MATFRAME_BASE_URL = other.baseUrl;
        if (how.includes("--username")) args.push("--username", "ada");
        const result = await runCli(args, { env: vars });
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr).toMatch(says);
        expect(result.stderr).not.toContain(TOKEN);
        // Before, the export ran against `other` with the token in every request.
        expect(other.headers()).not.toContain(TOKEN);
      } finally {
        await other.close();
      }
    });
  }

  it("matframe login --base-url B does not send A's MATFRAME_PASSWORD to B", async () => {
    const other = await startRecorder();
    try {
      const result = await runCli(["login", "--base-url", other.baseUrl, "--username", "ada"], {
        env: { MATFRAME_BASE_URL: "https://platform.example.invalid", MATFRAME_PASSWORD: TOKEN },
      });
      expect(result.code, result.stderr).not.toBe(0);
      expect(result.stderr).toMatch(
        /MATFRAME_PASSWORD is set for the platform MATFRAME_BASE_URL names .* give its own credentials \(type its password at the prompt on a terminal, or pass --password-stdin\)/,
      );
      expect(other.headers()).toBe("");
    } finally {
      await other.close();
    }
  });

  it("the same address named twice (flag and variable) is the same platform: the credentials go", async () => {
    const result = await runCli(["export", "--columns", "name", "--output", "-", "--base-url", server.baseUrl], {
      env: {
        MATFRAME_BASE_URL: new URL(server.baseUrl).origin,
        MATFRAME_ACCOUNT_ID: credentials.accountId,
        MATFRAME_AUTH_TOKEN: credentials.authToken,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(MARKER);
  });

  it("credentials of the other platform's family fill in when this one's are withheld", () => {
    const resolved = resolvePlatform(
      {},
      {
        API_HOST: "platform.example.invalid",
        OIDC_ACCESS_TOKEN: TOKEN,
        MATFRAME_BASE_URL: "http://127.0.0.1:9",
        MATFRAME_ACCOUNT_ID: "a",
        MATFRAME_AUTH_TOKEN: "b",
      },
    );
    expect(resolved).toMatchObject({
      kind: "platform",
      baseUrl: "http://127.0.0.1:9/api/2018-10-01",
      credentialsFrom: "MATFRAME_ACCOUNT_ID + MATFRAME_AUTH_TOKEN",
    });
    // A family that names no address of its own still goes where it is told (as before).
    expect(
      resolvePlatform({ baseUrl: "http://127.0.0.1:9" }, { MATFRAME_ACCOUNT_ID: "a", MATFRAME_AUTH_TOKEN: "b" }),
    ).toMatchObject({ credentialsFrom: "MATFRAME_ACCOUNT_ID + MATFRAME_AUTH_TOKEN" });
  });
});
