"use strict";
// A simulated internet link between the bench clients and `matframe serve` (issue 12): a TCP
// proxy with a one-way delay each way and a bandwidth cap shared by every connection in each
// direction, the way one home or office line is shared. Kernel link emulation (tc netem) is not
// available here, and shaping the loopback device would slow everything else on the machine.
//
// Model: a chunk read from one side waits for the shared line to be free, takes
// `bytes * 8 / bandwidth` to go through it, then arrives `rtt / 2` later. TCP's own slow start
// and loss are not modelled: the figures are a lower bound on what a real line costs.
//
// Run on its own: node bench/lib/link-proxy.js --target 127.0.0.1:4000 [--rtt 40] [--mbit 50]
// prints "LINK <port>" once listening.

const net = require("node:net");
const { parseArgs } = require("node:util");

/** One direction of the line: a clock of when it is next free, shared by every connection. */
class Line {
  constructor(bitsPerSecond, oneWayMs) {
    this.bytesPerMs = bitsPerSecond / 8 / 1000;
    this.oneWayMs = oneWayMs;
    this.freeAt = 0;
    this.bytes = 0;
  }

  /** When a chunk of `length` bytes sent now arrives at the far end (performance.now() ms). */
  arrival(length) {
    const now = performance.now();
    const start = Math.max(now, this.freeAt);
    this.freeAt = start + length / this.bytesPerMs;
    this.bytes += length;
    return this.freeAt + this.oneWayMs;
  }
}

/** Forwards `from` to `to` through `line`, keeping the order of chunks. */
function carry(from, to, line) {
  let last = Promise.resolve();
  from.on("data", (chunk) => {
    const at = line.arrival(chunk.length);
    const previous = last;
    last = new Promise((resolve) => {
      const wait = Math.max(0, at - performance.now());
      setTimeout(
        () =>
          previous.then(() => {
            if (!to.destroyed) to.write(chunk);
            resolve();
          }),
        wait,
      );
    });
  });
  from.on("end", () => last.then(() => to.end()));
  from.on("error", () => to.destroy());
  from.on("close", () => last.then(() => to.destroy()));
}

/**
 * Starts the proxy in this process: `{ port, close(), bytes() }`. `target` is `host:port`;
 * `rttMs` the round trip; `mbit` the bandwidth each way, in Mbit/s.
 */
function startLinkProxy({ target, rttMs = 40, mbit = 50 }) {
  const [host, port] = target.split(":");
  const down = new Line(mbit * 1e6, rttMs / 2);
  const up = new Line(mbit * 1e6, rttMs / 2);
  const sockets = new Set();
  const server = net.createServer((client) => {
    client.setNoDelay(true);
    const upstream = net.connect({ host, port: Number(port) });
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    for (const s of [client, upstream]) s.on("close", () => sockets.delete(s));
    carry(client, upstream, up);
    carry(upstream, client, down);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: server.address().port,
        bytes: () => ({ down: down.bytes, up: up.bytes }),
        close: () =>
          new Promise((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      target: { type: "string" },
      rtt: { type: "string", default: "40" },
      mbit: { type: "string", default: "50" },
    },
  });
  if (!values.target) {
    process.stderr.write("usage: node bench/lib/link-proxy.js --target HOST:PORT [--rtt MS] [--mbit MBIT]\n");
    process.exit(2);
  }
  startLinkProxy({ target: values.target, rttMs: Number(values.rtt), mbit: Number(values.mbit) }).then((proxy) => {
    process.stdout.write(`LINK ${proxy.port}\n`);
    process.on("SIGTERM", () => proxy.close().then(() => process.exit(0)));
  });
}

module.exports = { startLinkProxy, Line };
