import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** How much one client connection may hold, and how many there may be. */
export interface ConnectionLimits {
  /**
   * Open connections at most; at the cap, the oldest idle one (kept alive after an answer) is
   * closed for a new one, and when none is idle the new one is answered 503 with Retry-After.
   */
  maxConnections: number;
  /** A response that the client does not read within this many ms closes its connection. */
  sendTimeoutMs: number;
  /** Requests one connection may have waiting (pipelined) before it is closed. */
  maxPipelined: number;
}

interface Connection {
  /** Requests received and not yet answered in full (the one being answered included). */
  pending: number;
  /**
   * Requests answered in full. A connection is idle (and may be closed for a newcomer) only once
   * it has had an answer and waits for nothing: a new one whose first request is still on its way
   * is not idle, and closing it would drop that request with no answer.
   */
  answered: number;
  /** When it was accepted (ms, monotonic). */
  since: number;
  /** Resolves when the connection's last queued answer has been flushed to the socket. */
  tail: Promise<void>;
}

/**
 * Bounds what the server holds for its clients. Node answers pipelined requests in order but
 * calls the handler for each as soon as it is parsed, so a client that sends many requests and
 * never reads would make the server build and queue every answer (0.5 MiB a
 * page, until the heap is gone). Here each connection builds one answer at a time, the next only
 * after the previous one has been flushed to the socket; an answer not flushed within the send
 * timeout closes the connection; a connection with too many requests waiting is closed; and the
 * number of connections is capped, closing idle ones first.
 */
export class ConnectionGuard {
  readonly #limits: ConnectionLimits;
  readonly #open = new Map<Socket, Connection>();
  readonly #log: (line: string) => void;
  /** Connections refused since the last line that said so, and whether a summary is due. */
  #refused = 0;
  #summaryTimer: NodeJS.Timeout | undefined;

  constructor(server: Server, limits: ConnectionLimits, log: (line: string) => void) {
    this.#limits = limits;
    this.#log = log;
    server.on("connection", (socket: Socket) => this.#admit(socket));
    // A summary due after the server stopped would land in a log that has moved on.
    server.on("close", () => clearTimeout(this.#summaryTimer));
  }

  /** Connections open now. */
  get size(): number {
    return this.#open.size;
  }

  /** Runs `answer` for this request after the connection's earlier answers have been flushed. */
  serve(req: IncomingMessage, res: ServerResponse, answer: () => Promise<void>): void {
    const socket = req.socket;
    const connection = this.#open.get(socket);
    if (!connection) {
      // Not admitted (closed at the cap, or already gone): nothing to answer on.
      res.destroy();
      return;
    }
    connection.pending += 1;
    if (connection.pending > this.#limits.maxPipelined) {
      this.#log(`closing a connection with more than ${this.#limits.maxPipelined} requests waiting`);
      socket.destroy();
      return;
    }
    connection.tail = connection.tail.then(async () => {
      try {
        if (!socket.destroyed) {
          await answer();
          await this.#flushed(res, socket);
        }
      } finally {
        connection.pending -= 1;
        connection.answered += 1;
      }
    });
  }

  #admit(socket: Socket): void {
    if (this.#open.size >= this.#limits.maxConnections && !this.#closeIdle()) {
      // Every connection is busy: refuse this one, saying when to come back.
      refuse(socket, this.#limits.maxConnections);
      this.#tellRefused(socket.remoteAddress);
      return;
    }
    this.#open.set(socket, { pending: 0, answered: 0, since: performance.now(), tail: Promise.resolve() });
    socket.once("close", () => this.#open.delete(socket));
  }

  /**
   * Says in the log that connections are refused, so the operator sees why clients fail: the
   * first at once, then one line for those of each following interval (a busy class would
   * otherwise fill the log with one line per connection).
   */
  #tellRefused(address: string | undefined): void {
    if (this.#summaryTimer) {
      this.#refused += 1;
      return;
    }
    const cap = this.#limits.maxConnections;
    this.#log(
      `refused a connection${address ? ` from ${address}` : ""}: ${busy(cap)}; it is told to retry in 1 s (a higher connection limit lets more clients in at once)`,
    );
    this.#summaryTimer = setTimeout(() => {
      this.#summaryTimer = undefined;
      const refused = this.#refused;
      this.#refused = 0;
      if (refused > 0)
        this.#log(
          `refused ${refused} more ${refused === 1 ? "connection" : "connections"} in ${REFUSAL_LOG_INTERVAL_MS / 1000} s: ${busy(cap)}`,
        );
    }, REFUSAL_LOG_INTERVAL_MS);
    this.#summaryTimer.unref();
  }

  /**
   * Closes the oldest idle connection; false when there is none. Idle: nothing in progress, and
   * either answered before (kept alive) or silent for longer than a client takes to send its
   * first request (a socket opened and left, which must not hold a place for ever).
   */
  #closeIdle(): boolean {
    const silentSince = performance.now() - FIRST_REQUEST_GRACE_MS;
    for (const [socket, connection] of this.#open) {
      if (connection.pending === 0 && (connection.answered > 0 || connection.since < silentSince)) {
        this.#open.delete(socket);
        socket.destroy();
        return true;
      }
    }
    return false;
  }

  /** Resolves when `res` has been handed to the socket in full; a reader too slow loses its connection. */
  #flushed(res: ServerResponse, socket: Socket): Promise<void> {
    if (res.writableFinished || socket.destroyed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#log(`closing a connection that did not read its answer within ${this.#limits.sendTimeoutMs} ms`);
        socket.destroy();
      }, this.#limits.sendTimeoutMs);
      timer.unref();
      const done = (): void => {
        clearTimeout(timer);
        res.off("finish", done);
        res.off("close", done);
        resolve();
      };
      res.once("finish", done);
      res.once("close", done);
    });
  }
}

/**
 * How long a new connection may take to send its first request before it counts as idle: a
 * client sends it as soon as it is connected, so a second is generous even on a slow link.
 */
const FIRST_REQUEST_GRACE_MS = 1_000;

/** "the only connection allowed is busy", "all 8 connections allowed are busy". */
function busy(cap: number): string {
  return cap === 1 ? "the only connection allowed is busy" : `all ${cap} connections allowed are busy`;
}

/** At most one log line about refused connections in this many ms (after the first). */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

function refuse(socket: Socket, cap: number): void {
  const body = JSON.stringify({
    status: "error",
    message: `The server has ${cap} ${cap === 1 ? "connection" : "connections"} open, its limit; retry in a few seconds, or close connections you do not use.`,
    code: 503,
  });
  socket.on("error", () => undefined);
  socket.end(
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A peer that never reads must not keep the refused socket (and its fd) open.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
