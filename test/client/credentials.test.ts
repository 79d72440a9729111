import * as path from "node:path";
import * as os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docFiles } from "../support/docs";
import { at, capturedAll } from "../support/checked";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
import { join } from "node:path";
import { Client, CredentialsFileError, ValidationError } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import {
  credentialsPath,
  deleteProfile,
  listProfiles,
  readProfile,
  saveProfile,
} from "../../src/client/config/profile";
import { resolvePlatform } from "../../src/client/config/platform-source";
import { startFaultServer, type FaultServer } from "../support/fault-server";
import { runCli } from "../cli-export/run-cli";
import { internalsOf } from "../../src/client/client-internals";

// Issue 16: the platform's own variable names, Bearer tokens, and a login saved once
// (`matframe login`) in a file only its owner can read.

let dir: string;
const envWith = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  MATFRAME_CREDENTIALS_FILE: join(dir, "credentials.json"),
  ...extra,
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "matframe-credentials-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the credentials file", () => {
  it("is created readable by its owner only, holds no password, and keeps several profiles", () => {
    const env = envWith({ MATFRAME_CREDENTIALS_FILE: join(dir, "nested", "deeper", "credentials.json") });
    saveProfile(
      "default",
      { baseUrl: "http://127.0.0.1:4000/api/2018-10-01", accountId: "acct", authToken: "tok-1", username: "ada" },
      env,
    );
    saveProfile(
      "work",
      { baseUrl: "https://platform.example.org/api/2018-10-01", accountId: "acct2", authToken: "tok-2" },
      env,
    );
    const file = credentialsPath(env);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "nested", "deeper")).mode & 0o777).toBe(0o700);
    expect(readProfile("work", env)).toMatchObject({ accountId: "acct2", authToken: "tok-2" });
    expect(listProfiles(env).map((p) => p.name)).toEqual(["default", "work"]);
    expect(JSON.stringify(listProfiles(env))).not.toContain("tok-");
    expect(deleteProfile("work", env)?.authToken).toBe("tok-2");
    expect(readProfile("work", env)).toBeUndefined();
    expect(deleteProfile("default", env)).toBeDefined();
    expect(existsSync(file)).toBe(false);
  });

  it("is refused when others can read it, saying how to fix it", () => {
    const env = envWith({ MATFRAME_CREDENTIALS_FILE: join(dir, "open.json") });
    saveProfile("default", { baseUrl: "http://x/api/2018-10-01", accountId: "a", authToken: "t" }, env);
    chmodSync(credentialsPath(env), 0o644);
    expect(() => readProfile("default", env)).toThrow(CredentialsFileError);
    expect(() => readProfile("default", env)).toThrow(
      /can be read by other users \(mode 644\); matframe will not use it\. Run `chmod 600 /,
    );
  });

  it("refuses a profile name that is not a plain name", () => {
    expect(() => readProfile("../etc/passwd", envWith())).toThrow(/A profile name is 1 to 64 letters/);
  });
});

describe("Client.fromEnv: the platform client's names, Bearer tokens and the saved profile", () => {
  let server: FaultServer;
  beforeAll(async () => {
    server = await startFaultServer({ records: 3 });
  });
  afterAll(async () => {
    await server?.close();
  });

  const lastHeaders = () => at(server.requests, -1, "a request").headers;

  it("sends OIDC_ACCESS_TOKEN as Authorization: Bearer, without the X- pair", async () => {
    const client = await Client.fromEnv({}, { MATFRAME_BASE_URL: server.origin, OIDC_ACCESS_TOKEN: server.authToken });
    expect(await client.materials.list()).toHaveLength(3);
    expect(lastHeaders().authorization).toBe(`Bearer ${server.authToken}`);
    expect(lastHeaders()["x-auth-token"]).toBeUndefined();
    expect(client.accountId).toBeUndefined();
    expect(internalsOf(client).identity).toMatch(/^bearer:[0-9a-f]{16}$/);
    expect(internalsOf(client).identity).not.toContain(server.authToken.slice(0, 8));
    await client.close();
  });

  it("reads API_HOST, API_PORT, API_SECURE, ACCOUNT_ID and AUTH_TOKEN as the platform's own client does", async () => {
    const port = new URL(server.origin).port;
    const client = await Client.fromEnv(
      {},
      {
        API_HOST: "127.0.0.1",
        API_PORT: port,
        API_SECURE: "false",
        ACCOUNT_ID: server.accountId,
        AUTH_TOKEN: server.authToken,
      },
    );
    expect(client.baseUrl).toBe(`http://127.0.0.1:${port}/api/2018-10-01`);
    expect(await client.materials.list()).toHaveLength(3);
    expect(lastHeaders()["x-account-id"]).toBe(server.accountId);
    await client.close();
  });

  it("prefers MATFRAME_* over the platform client's names", async () => {
    const client = await Client.fromEnv(
      {},
      {
        MATFRAME_BASE_URL: server.origin,
        MATFRAME_ACCOUNT_ID: server.accountId,
        MATFRAME_AUTH_TOKEN: server.authToken,
        OIDC_ACCESS_TOKEN: "not-this-one",
      },
    );
    await client.materials.list();
    expect(lastHeaders().authorization).toBeUndefined();
    await client.close();
  });

  it("uses the saved profile when nothing is set, and says so when the address has another one", async () => {
    const env = envWith({ MATFRAME_CREDENTIALS_FILE: join(dir, "profile.json") });
    saveProfile("default", { baseUrl: server.baseUrl, accountId: server.accountId, authToken: server.authToken }, env);
    const client = await Client.fromEnv({}, env);
    expect(client.baseUrl).toBe(server.baseUrl);
    expect(await client.materials.list()).toHaveLength(3);
    await client.close();
    const elsewhere = await Client.fromEnv(
      {},
      { ...env, MATFRAME_BASE_URL: "http://127.0.0.1:9/api/2018-10-01" },
    ).catch((e: unknown) => e);
    expect(elsewhere).toBeInstanceOf(ValidationError);
    expect((elsewhere as Error).message).toContain(`the saved profile "default" is for ${server.baseUrl}`);
    expect((elsewhere as Error).message).toContain("matframe login --base-url http://127.0.0.1:9/api/2018-10-01");
    expect(() => Client.fromProfile("absent", {}, env)).toThrow(/No saved login named "absent"/);
  });

  it("a half setting is refused, saying what is missing, and a saved login does not fill it in", async () => {
    const env = envWith({ MATFRAME_CREDENTIALS_FILE: join(dir, "half.json") });
    saveProfile("default", { baseUrl: server.baseUrl, accountId: server.accountId, authToken: server.authToken }, env);
    const tokenOnly = await Client.fromEnv({}, { ...env, OIDC_ACCESS_TOKEN: server.authToken }).catch(
      (e: unknown) => e,
    );
    expect(tokenOnly).toBeInstanceOf(ValidationError);
    expect((tokenOnly as Error).message).toMatch(
      /^OIDC_ACCESS_TOKEN is set, but nothing names the platform to send it to: set baseUrl, MATFRAME_BASE_URL, or API_HOST/,
    );
    expect((tokenOnly as Error).message).not.toContain(server.authToken.slice(0, 6));
    const hostOnly = await Client.fromEnv({}, { API_HOST: "platform.example.org" }).catch((e: unknown) => e);
    expect((hostOnly as Error).message).toMatch(
      /^API_HOST names the platform https:\/\/platform\.example\.org\/api\/2018-10-01, but no credentials for it are set/,
    );
    const named = await Client.fromEnv({}, { ...env, MATFRAME_PROFILE: "absent" }).catch((e: unknown) => e);
    expect((named as Error).message).toMatch(
      /MATFRAME_PROFILE names a saved login "absent", but .* has none of that name/,
    );
  });

  it("resolves the platform client's defaults as it does: port 443, https, and a port without a host is refused", () => {
    const resolved = resolvePlatform({}, { API_HOST: "platform.example.org", OIDC_ACCESS_TOKEN: "t0ken-value" });
    expect(resolved).toMatchObject({
      kind: "platform",
      baseUrl: "https://platform.example.org/api/2018-10-01",
      addressFrom: "API_HOST",
      credentialsFrom: "OIDC_ACCESS_TOKEN",
    });
    expect(
      resolvePlatform({}, { API_HOST: "::1", API_PORT: "4000", API_SECURE: "no", ACCOUNT_ID: "a", AUTH_TOKEN: "t" }),
    ).toMatchObject({ baseUrl: "http://[::1]:4000/api/2018-10-01" });
    expect(() => resolvePlatform({}, { API_HOST: "https://platform.example.org" })).toThrow(
      /API_HOST must be a host name .*MATFRAME_BASE_URL/,
    );
    expect(() => resolvePlatform({}, { API_PORT: "4000" })).toThrow(/API_PORT is set, but API_HOST is not/);
    // "host:port", a habit of other tools: the port goes in API_PORT.
    expect(() =>
      resolvePlatform({}, { API_HOST: "127.0.0.1:4711", API_SECURE: "false", ACCOUNT_ID: "a", AUTH_TOKEN: "t" }),
    ).toThrow(
      /^API_HOST must be a host name without a port; got "127\.0\.0\.1:4711": set API_HOST=127\.0\.0\.1 and API_PORT=4711\.$/,
    );
    // Nothing set, and no saved login: the user's own credentials file must not count here.
    const noProfile = { MATFRAME_CREDENTIALS_FILE: path.join(os.tmpdir(), "matframe-no-such-dir", "credentials.json") };
    expect(resolvePlatform({}, noProfile)).toEqual({ kind: "none" });
  });

  it("credentials the caller gives win over every variable; a half of theirs may be completed by its MATFRAME_* variable", () => {
    const env = {
      MATFRAME_ACCOUNT_ID: "env-account",
      MATFRAME_AUTH_TOKEN: "env-token",
      MATFRAME_PASSWORD: "env-password",
      OIDC_ACCESS_TOKEN: "oidc",
    };
    expect(resolvePlatform({ baseUrl: "http://127.0.0.1:9", username: "ada", password: "typed" }, env)).toMatchObject({
      credentials: { kind: "login", username: "ada", password: "typed" },
      credentialsFrom: "username + password",
    });
    expect(resolvePlatform({ baseUrl: "http://127.0.0.1:9", username: "ada" }, env)).toMatchObject({
      credentials: { kind: "login", password: "env-password" },
      credentialsFrom: "username + MATFRAME_PASSWORD",
    });
    expect(resolvePlatform({ baseUrl: "http://127.0.0.1:9", accessToken: "mine" }, env)).toMatchObject({
      credentials: { kind: "bearer", accessToken: "mine" },
      credentialsFrom: "accessToken",
    });
    expect(resolvePlatform({ baseUrl: "http://127.0.0.1:9" }, env)).toMatchObject({
      credentials: { kind: "token", accountId: "env-account" },
      credentialsFrom: "MATFRAME_ACCOUNT_ID + MATFRAME_AUTH_TOKEN",
    });
  });

  it("a profile the caller names wins over the environment's credentials, and must match a given address", () => {
    const env = envWith({ MATFRAME_CREDENTIALS_FILE: join(dir, "named.json"), OIDC_ACCESS_TOKEN: "other-token" });
    saveProfile("lab", { baseUrl: server.baseUrl, accountId: server.accountId, authToken: server.authToken }, env);
    expect(resolvePlatform({ profile: "lab" }, env)).toMatchObject({
      kind: "platform",
      baseUrl: server.baseUrl,
      credentialsFrom: "profile lab",
      credentials: { kind: "token" },
    });
    expect(() => resolvePlatform({ profile: "lab", baseUrl: "http://127.0.0.1:9" }, env)).toThrow(
      /is not the platform of the saved login "lab"/,
    );
  });

  it("refuses an access token together with an auth token", () => {
    expect(() => new Client({ baseUrl: server.origin, accessToken: "a", authToken: "b", accountId: "c" })).toThrow(
      /not both/,
    );
  });
});

describe("matframe login and logout", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startServer({ port: 0, users: ["alice:correct-horse-9"] });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("logs in once, saves no password, exports with --profile, and logout revokes the token", async () => {
    const file = join(dir, "cli.json");
    const env = { MATFRAME_CREDENTIALS_FILE: file };
    const login = await runCli(
      ["login", "--base-url", server.baseUrl, "--username", "alice", "--password-stdin", "--profile", "lab"],
      { env, stdin: "correct-horse-9\n" },
    );
    expect(login.stderr).toMatch(
      new RegExp(
        `^Logged in to 127\\.0\\.0\\.1:\\d+ as alice; saved as profile "lab" in ${file.replace(/[.]/g, "\\.")}\\.\\n$`,
      ),
    );
    expect(login.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("correct-horse");
    const token = (JSON.parse(text) as { profiles: { lab: { authToken: string } } }).profiles.lab.authToken;

    const exported = await runCli(
      ["export", "--profile", "lab", "--columns", "formula", "--max-items", "3", "--output", "-", "--quiet"],
      { env },
    );
    expect(exported.code).toBe(0);
    expect(exported.stdout.split("\n")[0]).toBe("_id,formula");
    expect(exported.stdout.trim().split("\n")).toHaveLength(4);

    const logout = await runCli(["logout", "--profile", "lab"], { env });
    expect(logout.code).toBe(0);
    expect(logout.stderr).toMatch(
      /^Logged out of 127\.0\.0\.1:\d+: removed profile "lab" from .* and revoked its token\.\n$/,
    );
    expect(existsSync(file)).toBe(false);
    const revoked = await new Client({
      baseUrl: server.baseUrl,
      accountId: JSON.parse(text).profiles.lab.accountId,
      authToken: token,
    }).materials
      .list()
      .catch((e: unknown) => e);
    expect((revoked as Error).name).toBe("AuthenticationError");
  });

  it("a wrong password saves nothing and exits 2; --password is refused", async () => {
    const file = join(dir, "wrong.json");
    const wrong = await runCli(["login", "--base-url", server.baseUrl, "--username", "alice", "--password-stdin"], {
      env: { MATFRAME_CREDENTIALS_FILE: file },
      stdin: "nope\n",
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).not.toContain("nope");
    expect(existsSync(file)).toBe(false);
    const flag = await runCli(["login", "--base-url", server.baseUrl, "--username", "alice", "--password", "x"], {
      env: { MATFRAME_CREDENTIALS_FILE: file },
    });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toMatch(/--password is not accepted/);
  });

  it("a name with terminal controls is shown escaped; a credentials folder others can write is refused before any login is sent", async () => {
    // The local platform refuses to create such an account; a platform may still hold one.
    const name = "ev\u001b[31mil\u202e";
    const platform = await startFaultServer({ username: name });
    try {
      const file = join(dir, "escaped.json");
      const login = await runCli(["login", "--base-url", platform.baseUrl, "--username", name, "--password-stdin"], {
        env: { MATFRAME_CREDENTIALS_FILE: file },
        stdin: `${platform.password}\n`,
      });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain("as ev\\u001b[31mil\\u202e; saved");
      expect(login.stderr).not.toMatch(/[\u001b\u202e]/);

      const open = join(dir, "open-folder");
      mkdirSync(open, { mode: 0o700 });
      chmodSync(open, 0o777);
      const logins = () => platform.requests.filter((r) => r.method === "POST" && r.path.endsWith("/login")).length;
      const before = logins();
      const refused = await runCli(["login", "--base-url", platform.baseUrl, "--username", name, "--password-stdin"], {
        env: { MATFRAME_CREDENTIALS_FILE: join(open, "c.json") },
        stdin: `${platform.password}\n`,
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/can be written by other users \(mode 777\).*chmod 700/);
      expect(logins()).toBe(before);
      expect(before).toBe(1);
    } finally {
      await platform.close();
    }
  });

  it("the README's login lines work as written (against a local platform on a free port)", async () => {
    const readme = docFiles()
      .map((file) => readFileSync(join(__dirname, "../..", file), "utf8"))
      .join("\n");
    const lines = capturedAll(/```sh\n([\s\S]*?)```/g, readme)
      .flatMap((block) => block.split("\n"))
      .filter((l) => /npx matframe login /.test(l));
    expect(lines.length).toBeGreaterThan(0);
    const demo = await startServer({ port: 0 });
    try {
      for (const line of lines) {
        const file = join(dir, `readme-${lines.indexOf(line)}.json`);
        const command = line
          .replace(/http:\/\/127\.0\.0\.1:4100/, new URL(demo.baseUrl).origin)
          .replace("npx matframe", `"${process.execPath}" "${join(__dirname, "../../dist/cli/main.js")}"`);
        // Asynchronously: the platform answers from this process.
        const done = await execFileAsync("sh", ["-c", command], {
          env: { ...process.env, MATFRAME_CREDENTIALS_FILE: file },
          encoding: "utf8",
        });
        expect(done.stderr).toMatch(/Logged in to .* as demo; saved as profile "default"/);
        const client = Client.fromProfile("default", {}, { MATFRAME_CREDENTIALS_FILE: file });
        expect((await client.materials.list({ projection: { limit: 2 } })).length).toBe(2);
        await client.close();
      }
    } finally {
      await demo.close();
    }
  });

  it("logout removes a profile from a file others can read (the fix the refusal suggests); export --profile names a missing profile", async () => {
    const file = join(dir, "open-cli.json");
    const env = { MATFRAME_CREDENTIALS_FILE: file };
    saveProfile("default", { baseUrl: server.baseUrl, accountId: "a", authToken: "not-a-real-token" }, env);
    chmodSync(file, 0o644);
    const exported = await runCli(["export", "--profile", "default", "--output", "-"], { env });
    expect(exported.stderr).toMatch(/can be read by other users/);
    const logout = await runCli(["logout"], { env });
    expect(logout.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    const missing = await runCli(["export", "--profile", "nosuch", "--output", "-"], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No saved login named "nosuch" in .*; run `matframe login --profile nosuch` first/);
  });

  it("logout without a saved login says so", async () => {
    const none = await runCli(["logout"], { env: { MATFRAME_CREDENTIALS_FILE: join(dir, "none.json") } });
    expect(none.code).toBe(0);
    expect(none.stderr).toMatch(/no saved login named "default"/);
  });
});
