import type { ServerHandle } from "./start-server";
import type { StartServerOptions } from "./server-options";

/**
 * Starts the local platform: the Materials Platform API (2018-10-01) with the bundled real
 * materials, on `127.0.0.1:4000` by default (`port: 0` picks a free port), account `demo`/`demo`.
 * The server's modules (and mingo) load on the first call, so `require("matframe")` stays light
 * for clients that never start one.
 *
 * @example
 * const server = await startServer({ port: 0, synthetic: 5000 });
 * const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
 * // ...
 * await server.close();
 */
export async function startServer(options: StartServerOptions = {}): Promise<ServerHandle> {
  const { startServer: start } = await import("./start-server.js");
  return start(options);
}
