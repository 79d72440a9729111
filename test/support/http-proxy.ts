import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/** What went through the proxy. */
export interface ProxyLog {
  /** `CONNECT host:port` tunnels opened (undici's ProxyAgent tunnels even plain http). */
  readonly tunnels: string[];
  /** Absolute-form requests forwarded (`GET http://host/path`). */
  readonly forwarded: string[];
  /** The Proxy-Authorization headers seen. */
  readonly authorizations: (string | undefined)[];
}

export interface HttpProxy extends ProxyLog {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A small real forward proxy on 127.0.0.1 port 0, as a corporate one works: `CONNECT` opens a
 * TCP tunnel, an absolute-form request is forwarded. With `auth` ("user:password"), anything
 * without that Proxy-Authorization gets 407.
 */
export function startHttpProxy(options: { auth?: string } = {}): Promise<HttpProxy> {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  const expected = options.auth ? `Basic ${Buffer.from(options.auth).toString("base64")}` : undefined;
  const allowed = (req: IncomingMessage): boolean => {
    authorizations.push(req.headers["proxy-authorization"]);
    return expected === undefined || req.headers["proxy-authorization"] === expected;
  };
  const server: Server = createServer((req, res) => {
    if (!allowed(req)) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(req.url ?? "");
    forwarded.push(`${req.method} ${target.href}`);
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    if (!allowed(req)) {
      client.end("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    tunnels.push(req.url ?? "");
    const [host, port] = (req.url ?? "").split(":");
    const upstream = connect({ host, port: Number(port) }, () => {
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
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        tunnels,
        forwarded,
        authorizations,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
