import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { createServer, type Server, type Socket } from "node:net";
import { AbortError, Client, ConnectionError, TimeoutError, ValidationError, startServer, type ServerHandle } from "../../src";
import { startHttpProxy, type HttpProxy } from "../support/http-proxy";
import { rawLogin } from "../support/raw-login";
import { runCli, startCli } from "../cli-export/run-cli";

// Behind a corporate proxy the platform is reached through it: HTTP_PROXY / HTTPS_PROXY /
// NO_PROXY (and lower-case) are honoured through undici's EnvHttpProxyAgent unless a dispatcher
// is given, and a password in a proxy URL never reaches a message.

let server: ServerHandle;
let credentials: { accountId: string; authToken: string };
let proxy: HttpProxy;
const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"];
const saved = Object.fromEntries(PROXY_VARIABLES.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  server = await startServer({ port: 0 });
  credentials = await rawLogin(server.baseUrl, "demo", "demo");
  proxy = await startHttpProxy();
});
afterAll(async () => {
  await proxy?.close();
  await server?.close();
});
afterEach(() => {
  // The client reads the variables when it is made; this file's process is its own (forks).
  for (const name of PROXY_VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const host = () => new URL(server.baseUrl).host;

describe("a proxy from the environment", () => {
  it("HTTP_PROXY: the requests go through the proxy", async () => {
    process.env.HTTP_PROXY = proxy.url;
    const before = proxy.tunnels.length;
    const client = new Client({ baseUrl: server.baseUrl, ...credentials });
    expect(await client.materials.list({ projection: { limit: 3 } })).toHaveLength(3);
    await client.close();
    expect(proxy.tunnels.slice(before)).toContain(host());
  });

  it("lower-case http_proxy wins, and a login goes through it too", async () => {
    process.env.HTTP_PROXY = "http://127.0.0.1:9";
    process.env.http_proxy = proxy.url;
    const before = proxy.tunnels.length;
    const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
    await client.materials.list({ projection: { limit: 1 } });
    await client.logout();
    expect(proxy.tunnels.length).toBeGreaterThan(before);
  });

  it("NO_PROXY naming the host goes around it", async () => {
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = "example.org, 127.0.0.1";
    const before = proxy.tunnels.length + proxy.forwarded.length;
    const client = new Client({ baseUrl: server.baseUrl, ...credentials });
    expect(await client.materials.list({ projection: { limit: 2 } })).toHaveLength(2);
    await client.close();
    expect(proxy.tunnels.length + proxy.forwarded.length).toBe(before);
  });

  it("matframe export reads through HTTP_PROXY", async () => {
    const before = proxy.tunnels.length;
    const result = await runCli(["export", "--columns", "formula", "--output", "-", "--quiet"], {
      env: { MATFRAME_BASE_URL: server.baseUrl, ...{ MATFRAME_ACCOUNT_ID: credentials.accountId, MATFRAME_AUTH_TOKEN: credentials.authToken }, HTTP_PROXY: proxy.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(server.materialCount + 1);
    expect(proxy.tunnels.slice(before)).toContain(host());
  });
});

describe("a proxy's credentials never show", () => {
  it("a proxy that refuses them: the error names the proxy's answer, not the password", async () => {
    const guarded = await startHttpProxy({ auth: "ada:right-one" });
    try {
      process.env.HTTP_PROXY = guarded.url.replace("http://", "http://ada:wr0ng-pr0xy-pass@");
      const client = new Client({ baseUrl: server.baseUrl, ...credentials, maxRetries: 0 });
      const error = await client.materials.list().catch((e: unknown) => e);
      await client.close();
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(/407/);
      expect((error as Error).message).toContain("HTTPS_PROXY/HTTP_PROXY");
      // The header the proxy got carries them; nothing the user sees does.
      expect(guarded.authorizations.at(-1)).toBe(`Basic ${Buffer.from("ada:wr0ng-pr0xy-pass").toString("base64")}`);
      expect(inspect(error, { depth: 10 })).not.toContain("wr0ng-pr0xy-pass");
    } finally {
      await guarded.close();
    }
  });

  it("an unreachable proxy, and a proxy URL that is not one, say so without the password", async () => {
    process.env.HTTP_PROXY = "http://ada:s3cret-pr0xy@127.0.0.1:9";
    const client = new Client({ baseUrl: server.baseUrl, ...credentials, maxRetries: 0 });
    const error = await client.materials.list().catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(inspect(error, { depth: 10 })).not.toContain("s3cret-pr0xy");

    process.env.HTTP_PROXY = "socks://ada:s3cret-pr0xy@proxy.example.org:1080";
    expect(() => new Client({ baseUrl: server.baseUrl, ...credentials })).toThrow(ValidationError);
    expect(() => new Client({ baseUrl: server.baseUrl, ...credentials })).toThrow(/^HTTP_PROXY must start with http:\/\/ or https:\/\//);
    process.env.HTTP_PROXY = "http://ada:s3cret-pr0xy@[bad";
    const invalid = (() => {
      try {
        new Client({ baseUrl: server.baseUrl, ...credentials });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(invalid?.message).toMatch(/^HTTP_PROXY "http:\/\/\[credentials removed\]@\[bad" is not a URL/);
    expect(inspect(invalid)).not.toContain("s3cret-pr0xy");
  });

  it("a dispatcher given is used as it is, proxy variables or not", async () => {
    process.env.HTTP_PROXY = "http://127.0.0.1:9";
    const { Agent } = await import("undici");
    const agent = new Agent();
    const client = new Client({ baseUrl: server.baseUrl, ...credentials, dispatcher: agent });
    expect(await client.materials.list({ projection: { limit: 1 } })).toHaveLength(1);
    await client.close();
    await agent.close();
  });
});

/** A proxy that accepts connections, reads what it is sent, and never answers (a hung corporate proxy). */
async function startSilentProxy(): Promise<{ url: string; requests: () => string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let seen = "";
  const silent: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("data", (chunk) => (seen += String(chunk)));
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const { port } = silent.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => seen,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    },
  };
}

describe("a proxy that never answers", () => {
  // undici waits for a proxy's answer to CONNECT with no limit and looks at a request's signal
  // only once it has a connection: matframe's own timeout and the caller's signal must still end it.
  it("a login times out after `timeout`, and close does not wait for the proxy", async () => {
    const silent = await startSilentProxy();
    try {
      process.env.HTTP_PROXY = silent.url;
      const error = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo", timeout: 1500 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as Error).message).toMatch(/within 1500 ms/);
      expect(silent.requests()).toMatch(/^CONNECT 127\.0\.0\.1:\d+ HTTP\/1\.1/);
    } finally {
      await silent.close();
    }
  });

  it("the caller's signal ends a read that waits for the proxy", async () => {
    const silent = await startSilentProxy();
    try {
      process.env.HTTP_PROXY = silent.url;
      const client = new Client({ baseUrl: server.baseUrl, ...credentials, timeout: 600_000 });
      const stop = new AbortController();
      const pending = client.materials.list({ signal: stop.signal }).catch((e: unknown) => e);
      setTimeout(() => stop.abort(), 300);
      expect(await pending).toBeInstanceOf(AbortError);
      await client.close();
    } finally {
      await silent.close();
    }
  });

  it("matframe export: Ctrl-C during the login stops it at once, and leaves no file", { timeout: 60_000 }, async () => {
    const silent = await startSilentProxy();
    try {
      const cwd = mkdtempSync(join(tmpdir(), "matframe-silent-proxy-"));
      const { child, done } = startCli(["export", "--output", "never.csv"], {
        cwd,
        env: { MATFRAME_BASE_URL: server.baseUrl, MATFRAME_USERNAME: "demo", MATFRAME_PASSWORD: "demo", HTTP_PROXY: silent.url },
      });
      // Once the CONNECT has reached the proxy, the login is waiting for it.
      await expect.poll(() => silent.requests(), { timeout: 20_000 }).toMatch(/CONNECT/);
      child.kill("SIGINT");
      // Before, it went on waiting until the login's 30-second timeout.
      const result = await Promise.race([done, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 15_000))]);
      if (result === "still running") child.kill("SIGKILL");
      expect(result).not.toBe("still running");
      const { code, stderr } = result as Awaited<typeof done>;
      expect(code, stderr).toBe(130);
      expect(stderr).toMatch(/interrupted by SIGINT; never\.csv was not written/);
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      await silent.close();
    }
  });
});
