import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { Client } from "../../src";
import { startServer, type ServerHandle, type StartServerOptions } from "../../src/server";

/** What {@link usePlatform} provides once the suite's `beforeAll` has run. */
export interface Platform {
  readonly server: ServerHandle;
  readonly client: Client;
  /** A scratch directory, removed after the suite. */
  readonly dir: string;
}

/**
 * Starts the local platform for the calling suite (on port 0), logs the demo account in and
 * makes a scratch directory; logs out, stops and removes them after it.
 */
export function usePlatform(prefix: string, options: StartServerOptions = {}): Platform {
  let server: ServerHandle | undefined;
  let client: Client | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    server = await startServer({ port: 0, ...options });
    client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await client?.logout();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get server() {
      return server!;
    },
    get client() {
      return client!;
    },
    get dir() {
      return dir!;
    },
  };
}
