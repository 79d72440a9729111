import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/** What went through the proxy. */
export interface ProxyLog {
  /** `CONNECT host:port` tunnels asked for (refused ones included). */
  readonly tunnels: string[];
  /** Absolute-form requests forwarded (`GET http://host/path`). */
  readonly forwarded: string[];
  /** The Proxy-Authorization headers seen. */
  readonly authorizations: (string | undefined)[];
  /** TCP connections clients opened to the proxy: with keep-alive, far fewer than requests. */
  connections(): number;
}

export interface HttpProxy extends ProxyLog {
  readonly url: string;
  close(): Promise<void>;
}

export interface HttpProxyOptions {
  /** "user:password": anything without that Proxy-Authorization gets 407. */
  auth?: string;
  /**
   * Names this proxy resolves itself (a name → an address), as a corporate proxy resolves names
   * the client cannot: a platform at `http://platform.test:PORT` is then reachable only through it.
   */
  hosts?: Record<string, string>;
  /** Answer every CONNECT with this status, as squid's default configuration does for ports but 443 (403). */
  refuseConnect?: number;
  /** Close every CONNECT's connection without a word. */
  closeConnect?: boolean;
}

/**
 * A small real forward proxy on 127.0.0.1 port 0, as a corporate one works: `CONNECT` opens a
 * TCP tunnel, an absolute-form request is forwarded (over keep-alive connections both ways).
 */
export function startHttpProxy(options: HttpProxyOptions = {}): Promise<HttpProxy> {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const expected = options.auth ? `Basic ${Buffer.from(options.auth).toString("base64")}` : undefined;
  const resolve = (host: string): string => options.hosts?.[host] ?? host;
  const allowed = (req: IncomingMessage): boolean => {
    authorizations.push(req.headers["proxy-authorization"]);
    return expected === undefined || req.headers["proxy-authorization"] === expected;
  };
  const server: Server = createServer((req, res) => {
    if (!allowed(req)) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      // Origin-form: not a proxy request.
      res.writeHead(400).end();
      return;
    }
    forwarded.push(`${req.method} ${target.href}`);
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const upstream = httpRequest(
      {
        host: resolve(target.hostname),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    tunnels.push(req.url ?? "");
    if (!allowed(req)) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    if (options.closeConnect) return void client.destroy();
    if (options.refuseConnect)
      return void client.end(`HTTP/1.1 ${options.refuseConnect} Forbidden\r\nContent-Length: 0\r\n\r\n`);
    const [host = "", port] = (req.url ?? "").split(":");
    const upstream = connect({ host: resolve(host), port: Number(port) }, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  server.on("connection", (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return new Promise((done) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      done({
        url: `http://127.0.0.1:${port}`,
        tunnels,
        forwarded,
        authorizations,
        connections: () => connections,
        close: () =>
          new Promise<void>((closed) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => closed());
          }),
      });
    });
  });
}
