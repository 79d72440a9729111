// One interceptor at a time, on a real undici Pool to a real server on 127.0.0.1 port 0: what the
// interceptor tests share. Answers are read with the transport's own `exchange`, so each test
// checks the interceptor as the transport uses it.
import { createServer, type IncomingMessage, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { afterEach } from "vitest";
import { type Exchange, exchange } from "../../../src/client/transport/exchange";
import type { DispatchOptions, Interceptor } from "../../../src/client/transport/interceptors/forward";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

export interface Served {
  origin: string;
  /** The requests the server received, in order. */
  requests: IncomingMessage[];
}

/** A server on 127.0.0.1 port 0, closed after the test. */
export async function serve(listener: RequestListener): Promise<Served> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** A sender through `interceptors` (innermost first, as `compose` takes them) to `origin`. */
export function sender(
  origin: string,
  ...interceptors: Interceptor[]
): (options?: Partial<DispatchOptions>, signal?: AbortSignal) => Promise<Exchange> {
  const pool = new Pool(origin, { connections: 2 });
  closers.push(() => pool.destroy());
  const composed = pool.compose(interceptors as never);
  const dispatch = composed.dispatch.bind(composed);
  return (options: Partial<DispatchOptions> = {}, signal = new AbortController().signal): Promise<Exchange> =>
    exchange(
      dispatch,
      { origin, path: "/", method: "GET", headers: {}, ...options } as DispatchOptions,
      signal,
      new Set(),
    );
}

/** The answer's text, or a failure of the test saying what came instead. */
export function answered(outcome: Exchange): { status: number; headers: Record<string, unknown>; text: string } {
  if ("error" in outcome) throw new Error(`expected an answer, got ${String(outcome.error)}`);
  return outcome as never;
}

/** The error an exchange ended with, or a failure of the test. */
export function failed(outcome: Exchange): Error & { code?: string; bytes?: number; coding?: string } {
  if (!("error" in outcome)) throw new Error(`expected an error, got ${outcome.status}`);
  return outcome.error as never;
}
