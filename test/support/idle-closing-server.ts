import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

// A platform stand-in that closes a keep-alive connection after `idleMs` without a request, and
// says nothing of it beforehand: like nginx (no `Keep-Alive: timeout=` hint by default), so the
// client cannot know when its idle connections go. Node's own `keepAliveTimeout` is not used,
// because the hint Node sends (timeout in whole seconds) makes undici drop any connection below 3 s.

export interface IdleClosingServer {
  readonly baseUrl: string;
  /** Each request received, as "METHOD path", in order: a write applied twice would show twice. */
  readonly received: string[];
  /** Idle connections this server closed. */
  idleClosed(): number;
  /** Resolves once the server has closed one more idle connection than `after` (an event, not a sleep). */
  nextIdleClose(after: number): Promise<void>;
  close(): Promise<void>;
}

export async function startIdleClosingServer(options: { idleMs: number }): Promise<IdleClosingServer> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  let closedIdle = 0;
  const waiting: { after: number; resolve: () => void }[] = [];
  const timers = new Map<Socket, NodeJS.Timeout>();
  const armIdle = (socket: Socket): void => {
    clearTimeout(timers.get(socket));
    timers.set(
      socket,
      setTimeout(() => {
        closedIdle++;
        socket.end();
        for (const w of waiting.splice(0)) (closedIdle > w.after ? w.resolve : () => waiting.push(w))();
      }, options.idleMs),
    );
  };
  const server: Server = createServer((req, res) => {
    clearTimeout(timers.get(req.socket));
    received.push(`${req.method} ${req.url}`);
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const record = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      const data = req.method === "GET" ? [] : { ...record, _id: `id${received.length}` };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "success", data }));
      res.on("finish", () => armIdle(req.socket));
    });
  });
  // Node's own idle timer off: this server's is the one above, without a hint.
  server.keepAliveTimeout = 0;
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      clearTimeout(timers.get(socket));
      timers.delete(socket);
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/2018-10-01`,
    received,
    idleClosed: () => closedIdle,
    nextIdleClose: (after) =>
      new Promise<void>((resolve) => (closedIdle > after ? resolve() : waiting.push({ after, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
