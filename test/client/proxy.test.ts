import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { createServer, type Server, type Socket } from "node:net";
import { AbortError, Client, ConnectionError, ServerError, TimeoutError, ValidationError } from "../../src";
import { startServer, type ServerHandle } from "../../src/server";
import { bypassesProxy } from "../../src/client/transport/proxy";
import { withoutUrlCredentials } from "../../src/client/transport/redact";
import { isLoopbackHost } from "../../src/loopback";
import { startHttpProxy, type HttpProxy } from "../support/http-proxy";
import { rawLogin } from "../support/raw-login";
import { runCli, startCli } from "../cli-export/run-cli";

// Behind a corporate proxy the platform is reached through it: HTTP_PROXY / HTTPS_PROXY /
// NO_PROXY (and lower-case) are honoured unless a dispatcher is given; plain http goes in absolute
// form, https through a tunnel; this machine's own addresses never go through a proxy; and a
// password in a proxy URL never reaches a message. The platform is named `platform.test`, a name
// only the test's proxy resolves: the client can reach it through the proxy and no other way.

let server: ServerHandle;
let credentials: { accountId: string; authToken: string };
let proxy: HttpProxy;
const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"];
const saved = Object.fromEntries(PROXY_VARIABLES.map((name) => [name, process.env[name]]));
const HOSTS = { "platform.test": "127.0.0.1" };

beforeAll(async () => {
  server = await startServer({ port: 0 });
  credentials = await rawLogin(server.baseUrl, "demo", "demo");
  proxy = await startHttpProxy({ hosts: HOSTS });
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

const port = () => new URL(server.baseUrl).port;
/** The platform by a name only the proxy resolves. */
const named = (scheme = "http") => `${scheme}://platform.test:${port()}/api/2018-10-01`;

describe("a proxy from the environment", () => {
  it("HTTP_PROXY: plain http goes through the proxy in absolute form, not through tunnels, over kept connections", async () => {
    process.env.HTTP_PROXY = proxy.url;
    const before = {
      tunnels: proxy.tunnels.length,
      forwarded: proxy.forwarded.length,
      connections: proxy.connections(),
    };
    const client = new Client({ baseUrl: named(), ...credentials, connections: 1 });
    for (let i = 0; i < 4; i++) expect(await client.materials.list({ projection: { limit: 3 } })).toHaveLength(3);
    await client.close();
    // Before, every http request asked for a CONNECT tunnel, which squid refuses for ports but 443.
    expect(proxy.tunnels.length).toBe(before.tunnels);
    const forwarded = proxy.forwarded.slice(before.forwarded);
    expect(forwarded).toHaveLength(4);
    expect(forwarded[0]).toMatch(new RegExp(`^GET http://platform\\.test:${port()}/api/2018-10-01/materials\\?`));
    expect(proxy.connections() - before.connections).toBe(1);
  });

  it("lower-case http_proxy wins, and a login goes through it too", async () => {
    process.env.HTTP_PROXY = "http://127.0.0.1:9";
    process.env.http_proxy = proxy.url;
    const before = proxy.forwarded.length;
    const client = await Client.login({ baseUrl: named(), username: "demo", password: "demo" });
    await client.materials.list({ projection: { limit: 1 } });
    await client.logout();
    expect(proxy.forwarded.slice(before).map((line) => line.split("?")[0])).toEqual([
      `POST ${named()}/login`,
      `GET ${named()}/materials`,
      `GET ${named()}/logout`,
    ]);
  });

  it("a proxy that refuses CONNECT to any port but 443 (squid's default) still carries an http platform", async () => {
    const squid = await startHttpProxy({ hosts: HOSTS, refuseConnect: 403 });
    try {
      process.env.HTTP_PROXY = squid.url;
      const client = new Client({ baseUrl: named(), ...credentials });
      expect(await client.materials.list({ projection: { limit: 2 } })).toHaveLength(2);
      await client.close();
      expect(squid.tunnels).toEqual([]);
    } finally {
      await squid.close();
    }
  });

  it("NO_PROXY naming the host goes around it", async () => {
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = "example.org, platform.test";
    const before = proxy.tunnels.length + proxy.forwarded.length;
    const client = new Client({ baseUrl: named(), ...credentials, maxRetries: 0 });
    // Straight to a name nobody else resolves: it fails, and the proxy never hears of it.
    const error = await client.materials.list({ projection: { limit: 2 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    // Nor does the message: the request went direct, so the proxy is no suspect.
    expect((error as Error).message).not.toMatch(/proxy/i);
    await client.close();
    expect(proxy.tunnels.length + proxy.forwarded.length).toBe(before);
  });

  it("an https:// proxy URL for a proxy that speaks plain HTTP: the proxy's URL is blamed, not the platform's", async () => {
    process.env.HTTPS_PROXY = proxy.url.replace("http://", "https://");
    const client = new Client({ baseUrl: named("https"), ...credentials, maxRetries: 0 });
    const error = await client.materials.list({ projection: { limit: 1 } }).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(
      /the proxy https:\/\/127\.0\.0\.1:\d+\/? \(HTTPS_PROXY\) answered in plain HTTP, not TLS\. Most proxies do: write its URL with http:\/\//,
    );
    // Not the advice to reach the platform over plain http, which would send credentials in clear.
    expect((error as Error).message).not.toMatch(/API_SECURE/);
  });

  it("a 502 through a proxy that cannot reach the platform says it may be the proxy's", async () => {
    process.env.HTTP_PROXY = proxy.url;
    // Nothing listens on port 1 where the proxy sends platform.test: the proxy answers 502 itself.
    const client = new Client({ baseUrl: "http://platform.test:1/api/2018-10-01", ...credentials, maxRetries: 0 });
    const error = await client.materials.list({ projection: { limit: 1 } }).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(ServerError);
    expect((error as Error).message).toMatch(
      /answered 502\..*Through the proxy http:\/\/127\.0\.0\.1:\d+\/? \(HTTP_PROXY\), it may be the proxy's: it answers 502 when it cannot reach the platform\./,
    );
  });

  it("a proxy URL is shown without its credentials however it is written", () => {
    const cases: [string, string][] = [
      ["http://ada:s3cret@proxy.example.org:3128", "http://[credentials removed]@proxy.example.org:3128"],
      [" http://ada:s3cret@127.0.0.1:9", "http://[credentials removed]@127.0.0.1:9"],
      ["http://ada:p@ss@proxy:3128", "http://[credentials removed]@proxy:3128"],
      ["http://ada:s3\tcret@proxy:3128/", "http://[credentials removed]@proxy:3128/"],
      ["HTTP:\\\\ada:s3cret@proxy:3128", "HTTP:\\\\[credentials removed]@proxy:3128"],
      ["http://proxy.example.org:3128", "http://proxy.example.org:3128"],
    ];
    for (const [url, shown] of cases) expect(withoutUrlCredentials(url)).toBe(shown);
    // Each written form is one the URL parser takes, with those credentials.
    for (const [url] of cases.slice(1, 5)) expect(new URL(url).password).not.toBe("");
  });

  it("NO_PROXY is matched as undici's EnvHttpProxyAgent routes", () => {
    const url = (text: string) => new URL(text);
    const cases: [string, string | undefined, boolean][] = [
      ["http://platform.test:4000", undefined, false],
      ["http://platform.test:4000", "*", true],
      ["http://platform.test:4000", "example.org, platform.test", true],
      ["http://api.platform.test", ".platform.test", true],
      ["http://api.platform.test", "*.platform.test", true],
      ["http://PLATFORM.test", "platform.TEST", true],
      ["http://notplatform.test", "platform.test", false],
      ["http://platform.test:4000", "platform.test:4000", true],
      ["http://platform.test:4000", "platform.test:80", false],
      ["http://platform.test:4000", "platform.test:0", true],
      ["http://platform.test", "platform.test:80", true],
      ["https://platform.test", "platform.test:443", true],
      ["http://[::1]:4000", "[::1]", true],
      ["http://192.0.2.2:4799", "192.0.2.2", true],
      ["http://192.0.2.2:4799", "", false],
    ];
    for (const [target, noProxy, bypassed] of cases)
      expect([target, noProxy, bypassesProxy(url(target), noProxy)]).toEqual([target, noProxy, bypassed]);
  });

  it("matframe export reads through HTTP_PROXY", async () => {
    const before = proxy.forwarded.length;
    const result = await runCli(["export", "--columns", "formula", "--output", "-", "--quiet"], {
      env: {
        MATFRAME_BASE_URL: named(),
        ...{ MATFRAME_ACCOUNT_ID: credentials.accountId, MATFRAME_AUTH_TOKEN: credentials.authToken },
        HTTP_PROXY: proxy.url,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(server.materialCount + 1);
    expect(proxy.forwarded.length).toBeGreaterThan(before);
  });
});

describe("this machine's own addresses never go through a proxy", () => {
  it("startServer + Client.login on 127.0.0.1 and localhost with HTTP_PROXY set: the proxy sees nothing", async () => {
    process.env.HTTP_PROXY = proxy.url;
    process.env.HTTPS_PROXY = proxy.url;
    const before = {
      tunnels: proxy.tunnels.length,
      forwarded: proxy.forwarded.length,
      connections: proxy.connections(),
    };
    for (const baseUrl of [server.baseUrl, server.baseUrl.replace("127.0.0.1", "localhost")]) {
      const client = await Client.login({ baseUrl, username: "demo", password: "demo" });
      expect(await client.materials.list({ projection: { limit: 1 } })).toHaveLength(1);
      await client.logout();
    }
    // Before, each request opened a tunnel to 127.0.0.1 through the proxy (and failed where the proxy cannot reach this machine).
    expect({
      tunnels: proxy.tunnels.length,
      forwarded: proxy.forwarded.length,
      connections: proxy.connections(),
    }).toEqual(before);
  });

  it("this machine by any name a URL gives it: a final dot, an IPv4-mapped IPv6 address as URL parsing writes it", () => {
    for (const host of ["localhost.", "LOCALHOST", "a.localhost.", "127.1", "[::1]", "[::ffff:127.0.0.1]"])
      expect([host, isLoopbackHost(new URL(`http://${host}:4000`).hostname)]).toEqual([host, true]);
    expect(new URL("http://[::ffff:127.0.0.1]:4000").hostname).toBe("[::ffff:7f00:1]");
    for (const host of ["localhost.example.org", "[::ffff:a00:1]", "128.0.0.1", "example.org."])
      expect([host, isLoopbackHost(new URL(`http://${host}:4000`).hostname)]).toEqual([host, false]);
  });

  it("a malformed proxy variable does not stop a client of this machine, nor the built-in platform", async () => {
    process.env.HTTP_PROXY = "notaurl";
    process.env.HTTPS_PROXY = "socks5://127.0.0.1:1080";
    const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
    expect(await client.materials.list({ projection: { limit: 1 } })).toHaveLength(1);
    await client.logout();
    // Elsewhere it is still refused before any request, naming the variable.
    expect(() => new Client({ baseUrl: named(), ...credentials })).toThrow(/^HTTP_PROXY "notaurl" is not a URL/);
    const result = await runCli(["export", "--columns", "formula", "--output", "-", "--quiet"], {
      env: { HTTP_PROXY: "notaurl", HTTPS_PROXY: "socks5://127.0.0.1:1080" },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("formula");
  });

  it("matframe export from the built-in platform works with a proxy that cannot reach this machine", async () => {
    const result = await runCli(["export", "--columns", "formula", "--output", "-", "--quiet"], {
      env: { HTTP_PROXY: "http://127.0.0.1:9", HTTPS_PROXY: "http://127.0.0.1:9" },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("formula");
  });
});

describe("a tunnel the proxy will not open fails at once", () => {
  it("refused (403): one attempt, a message that names the proxy and the port rule, not the platform", async () => {
    const squid = await startHttpProxy({ hosts: HOSTS, refuseConnect: 403 });
    try {
      process.env.HTTPS_PROXY = squid.url.replace("http://", "http://ada:s3cret-pr0xy@");
      const error = await Client.login({
        baseUrl: named("https"),
        username: "demo",
        password: "demo",
        maxRetries: 3,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(
        /^POST \/api\/2018-10-01\/login on https:\/\/platform\.test:\d+ failed: the proxy http:\/\/\[credentials removed\]@127\.0\.0\.1:\d+\/? \(HTTPS_PROXY\) refused to open a tunnel to platform\.test:\d+ \(403; many proxies allow tunnels only to port 443\)\./,
      );
      expect((error as Error).message).toContain("NO_PROXY");
      expect(inspect(error, { depth: 10 })).not.toContain("s3cret-pr0xy");
      // Not retried: a proxy's rule does not change in a second.
      expect(squid.tunnels).toHaveLength(1);
    } finally {
      await squid.close();
    }
  });

  it("closed without an answer: fails at once instead of waiting out the timeout", async () => {
    const closing = await startHttpProxy({ hosts: HOSTS, closeConnect: true });
    try {
      process.env.HTTPS_PROXY = closing.url;
      // A timeout far beyond the test's: before, the login waited all of it.
      const error = await Client.login({
        baseUrl: named("https"),
        username: "demo",
        password: "demo",
        timeout: 600_000,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(
        /the proxy http:\/\/127\.0\.0\.1:\d+\/? \(HTTPS_PROXY\) closed the tunnel to platform\.test:\d+ without answering/,
      );
      expect(closing.tunnels).toHaveLength(1);
    } finally {
      await closing.close();
    }
  });
});

describe("a proxy's credentials never show", () => {
  it("a proxy that refuses them: the error names the proxy's answer, not the password", async () => {
    const guarded = await startHttpProxy({ auth: "ada:right-one", hosts: HOSTS });
    try {
      process.env.HTTP_PROXY = guarded.url.replace("http://", "http://ada:wr0ng-pr0xy-pass@");
      const client = new Client({ baseUrl: named(), ...credentials, maxRetries: 0 });
      const error = await client.materials.list().catch((e: unknown) => e);
      await client.close();
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(/407/);
      expect((error as Error).message).toContain("Check the user name and password in HTTP_PROXY (");
      // The header the proxy got carries them; nothing the user sees does.
      expect(guarded.authorizations.at(-1)).toBe(`Basic ${Buffer.from("ada:wr0ng-pr0xy-pass").toString("base64")}`);
      expect(inspect(error, { depth: 10 })).not.toContain("wr0ng-pr0xy-pass");
    } finally {
      await guarded.close();
    }
  });

  it("an unreachable proxy, and a proxy URL that is not one, say so without the password", async () => {
    process.env.HTTP_PROXY = "http://ada:s3cret-pr0xy@127.0.0.1:9";
    const client = new Client({ baseUrl: named(), ...credentials, maxRetries: 0 });
    const error = await client.materials.list().catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(inspect(error, { depth: 10 })).not.toContain("s3cret-pr0xy");
    // The refused connection was the proxy's: said so, by its URL and variable, not as the platform's.
    expect((error as Error).message).toMatch(
      /the proxy http:\/\/\[credentials removed\]@127\.0\.0\.1:9 \(HTTP_PROXY\) could not be reached \(.*ECONNREFUSED.*\); the request did not leave for the platform\. Check that HTTP_PROXY names a proxy that is running/,
    );
    expect((error as Error).message).not.toMatch(/Check that http:\/\/platform\.test/);

    process.env.HTTP_PROXY = "socks://ada:s3cret-pr0xy@proxy.example.org:1080";
    expect(() => new Client({ baseUrl: named(), ...credentials })).toThrow(ValidationError);
    expect(() => new Client({ baseUrl: named(), ...credentials })).toThrow(
      /^HTTP_PROXY must start with http:\/\/ or https:\/\//,
    );
    process.env.HTTP_PROXY = "http://ada:s3cret-pr0xy@[bad";
    const invalid = (() => {
      try {
        new Client({ baseUrl: named(), ...credentials });
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
async function startSilentProxy(): Promise<{
  url: string;
  requests: () => string;
  /** Resolves once a request's head has arrived in full: the client now waits for the answer. */
  requestArrived: Promise<void>;
  close: () => Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let seen = "";
  let arrived!: () => void;
  const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
  const silent: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("data", (chunk) => {
      seen += String(chunk);
      if (seen.includes("\r\n\r\n")) arrived();
    });
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const { port } = silent.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => seen,
    requestArrived,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    },
  };
}

describe("a proxy that never answers", () => {
  // undici waits for a proxy's answer with no limit and looks at a request's signal
  // only once it has a connection: matframe's own timeout and the caller's signal must still end it.
  it("a login times out after `timeout`, and close does not wait for the proxy", async () => {
    const silent = await startSilentProxy();
    try {
      process.env.HTTP_PROXY = silent.url;
      const error = await Client.login({ baseUrl: named(), username: "demo", password: "demo", timeout: 1500 }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as Error).message).toMatch(
        /within 1500 ms.*The server, or the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTP_PROXY\) the request went through, may be overloaded/,
      );
      expect(silent.requests()).toMatch(/^POST http:\/\/platform\.test:\d+\/api\/2018-10-01\/login HTTP\/1\.1/);
    } finally {
      await silent.close();
    }
  });

  it("the caller's signal ends a read that waits for the proxy", async () => {
    const silent = await startSilentProxy();
    try {
      process.env.HTTP_PROXY = silent.url;
      const client = new Client({ baseUrl: named(), ...credentials, timeout: 600_000 });
      const stop = new AbortController();
      const pending = client.materials.list({ signal: stop.signal }).catch((e: unknown) => e);
      await silent.requestArrived;
      stop.abort();
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
        env: {
          MATFRAME_BASE_URL: named(),
          MATFRAME_USERNAME: "demo",
          MATFRAME_PASSWORD: "demo",
          HTTP_PROXY: silent.url,
        },
      });
      // Once the login has reached the proxy, it is waiting for it.
      await expect.poll(() => silent.requests(), { timeout: 20_000 }).toMatch(/POST http:/);
      child.kill("SIGINT");
      // Before, it went on waiting until the login's 30-second timeout.
      const result = await Promise.race([
        done,
        new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 15_000)),
      ]);
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
