// The connections a client opens: one keep-alive pool to the platform, or, with a proxy variable
// set, undici's EnvHttpProxyAgent, which routes by HTTPS_PROXY/HTTP_PROXY/NO_PROXY. Plain http
// goes to a forward proxy in absolute form (`GET http://host/path`, as curl and Python's requests
// send it: proxies such as squid allow CONNECT only to port 443); only https is tunnelled, one
// tunnel per connection. Loopback addresses (the built-in platform, `startServer`) never go
// through a proxy: a proxy elsewhere cannot reach this machine's 127.0.0.1.
import type { Dispatcher } from "undici";
import { bypassesProxy, type ProxyEnvironment } from "./proxy";
import { TUNNEL_CLOSED_CODE } from "./failure";
import { withoutUrlCredentials } from "./redact";
import { isLoopbackHost } from "../../loopback";

/**
 * How long the client keeps an idle connection (undici `keepAliveTimeout`): below the 5 s of
 * Node's servers (and `matframe serve`), so that the client, not the server, closes an idle
 * connection, and a request never goes out on one the server is closing. A server that says
 * less (`Keep-Alive: timeout=N`) is believed, less undici's 2 s margin.
 */
export const KEEP_ALIVE_MS = 4_000;

/**
 * undici, loaded on first use through its public entry, so that `require("matframe")` stays light
 * for programs that never send a request. A client without a proxy needs only its Pool: see
 * {@link loadPool}.
 */
export function loadUndici(): typeof import("undici") {
  return require("undici") as typeof import("undici");
}

type PoolClass = typeof import("undici").Pool;

/** Where undici 7 keeps its Pool: the file its root entry re-exports. */
const POOL_MODULE = "undici/lib/dispatcher/pool.js";

/**
 * undici's Pool, loaded on a client's first request from its own module. undici's root entry
 * also loads fetch, WebSocket, EventSource, the cache stores and the mock agent, which a client
 * never uses: in a fresh process the root takes 70-100 ms to load and the pool 20-30 ms (this
 * project's 2-core bench machine), and a cold read over a far link waits for it before its
 * login leaves. undici has no lean public entry, so this is the one place matframe reads one of
 * its files (it has no `exports` map, so the file is reachable); test/client/undici-loading.test.ts
 * checks that it is the Pool the root exports, and should a later undici move it, the root
 * entry's Pool is used instead.
 */
export function loadPool(): PoolClass {
  try {
    const pool = require(POOL_MODULE) as unknown;
    if (typeof pool === "function" && typeof (pool.prototype as { compose?: unknown }).compose === "function")
      return pool as PoolClass;
  } catch {
    // Not there in this undici: its root entry has it.
  }
  return loadUndici().Pool;
}

/**
 * The client's own connections to `origin`, and the proxy they go through (without credentials)
 * with the variable that named it, if any: none when NO_PROXY sends `origin` around it.
 */
export function ownDispatcher(
  origin: string,
  connections: number,
  proxy: ProxyEnvironment | undefined,
): { dispatcher: Dispatcher; proxied: boolean; proxy?: string; proxyVariable?: string } {
  const url = new URL(origin);
  if (!proxy || isLoopbackHost(url.hostname)) {
    const Pool = loadPool();
    return { dispatcher: new Pool(origin, { connections, keepAliveTimeout: KEEP_ALIVE_MS }), proxied: false };
  }
  const undici = loadUndici();
  const pool = (o: string | URL, options: object): Dispatcher =>
    new undici.Pool(o, { connections, keepAliveTimeout: KEEP_ALIVE_MS, ...options });
  const dispatcher = new undici.EnvHttpProxyAgent({
    connections,
    keepAliveTimeout: KEEP_ALIVE_MS,
    // The variables are passed explicitly (an unset one as ""), so the agent never reads a different environment.
    httpProxy: proxy.httpProxy ?? "",
    httpsProxy: proxy.httpsProxy ?? "",
    noProxy: proxy.noProxy ?? "",
    proxyTunnel: false,
    factory: pool,
    clientFactory: (o: string | URL, options: object) => tunnelOpener(pool(o, options)),
  } as ConstructorParameters<typeof undici.EnvHttpProxyAgent>[0]);
  // As EnvHttpProxyAgent picks: https through HTTPS_PROXY, else HTTP_PROXY; http through HTTP_PROXY.
  const https = url.protocol === "https:";
  const through = https ? (proxy.httpsProxy ?? proxy.httpProxy) : proxy.httpProxy;
  const variable = https ? (proxy.names.https ?? proxy.names.http) : proxy.names.http;
  if (!through || bypassesProxy(url, proxy.noProxy)) return { dispatcher, proxied: true };
  return {
    dispatcher,
    proxied: true,
    proxy: withoutUrlCredentials(through),
    ...(variable ? { proxyVariable: variable } : {}),
  };
}

/**
 * The pool to the proxy through which ProxyAgent asks for tunnels (`CONNECT`). A proxy that
 * closes the connection without answering CONNECT gives undici a "socket" error, which it
 * counts as recoverable and answers by asking again, without end: the request waited for its
 * whole timeout. Here that error becomes one undici gives up on at once, and says what happened.
 */
function tunnelOpener(pool: Dispatcher): Dispatcher {
  const connect = pool.connect.bind(pool) as (options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
  const tunnel = (
    options: Dispatcher.ConnectOptions,
    callback?: (error: Error | null, data: Dispatcher.ConnectData | null) => void,
  ) => {
    const opened = connect(options).catch((error: unknown) => {
      const code = String((error as { code?: unknown } | null)?.code);
      if (code !== "UND_ERR_SOCKET" && code !== "ECONNRESET" && code !== "EPIPE") throw error;
      throw Object.assign(
        new Error(`the proxy closed the connection without answering CONNECT ${String(options.path)}`, {
          cause: error,
        }),
        { code: TUNNEL_CLOSED_CODE },
      );
    });
    if (!callback) return opened;
    opened.then(
      (data) => callback(null, data),
      (error: Error) => callback(error, null),
    );
  };
  Object.defineProperty(pool, "connect", { value: tunnel, configurable: true, writable: true });
  return pool;
}
