import { describe, expect, it } from "vitest";
import { decompress } from "../../../src/client/transport/interceptors/decompress";
import { type AttemptNotes, retry } from "../../../src/client/transport/interceptors/retry";
import { answered, failed, sender, serve } from "./helpers";

const BODY = JSON.stringify({ status: "success", data: [{ _id: "m1" }] });

/** Settings for a test: quick attempts, nothing left behind. */
const settings = (maxRetries = 2, timeoutMs = 10_000) => ({
  maxRetries,
  timeoutMs,
  abandoned: new Set<Promise<unknown>>(),
});

describe("retry", () => {
  it("sends a read again on 503 after the Retry-After asked for, and hands on only the answer that counts", async () => {
    let seen = 0;
    const { origin } = await serve((_req, res) => {
      seen++;
      if (seen < 3) {
        res.writeHead(503, { "content-type": "application/json", "retry-after-ms": "1" });
        return res.end(JSON.stringify({ status: "error", data: { message: "busy" } }));
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(BODY);
    });
    const notes: AttemptNotes = {};
    const answer = answered(await sender(origin, retry(settings()))({ matframe: { attempts: notes } }));
    expect(answer).toMatchObject({ status: 200, text: BODY });
    expect(notes.attempts).toBe(3);
  });

  it("never sends a write twice once it may have arrived, and stops at maxRetries", async () => {
    const { origin, requests } = await serve((_req, res) => {
      res.writeHead(503, { "content-type": "application/json", "retry-after-ms": "1" });
      res.end("{}");
    });
    const send = sender(origin, retry(settings(1)));
    const write: AttemptNotes = {};
    expect(answered(await send({ method: "POST", matframe: { attempts: write } })).status).toBe(503);
    expect(write.attempts).toBe(1);
    const read: AttemptNotes = {};
    expect(answered(await send({ matframe: { attempts: read } })).status).toBe(503);
    expect(read.attempts).toBe(2);
    expect(requests).toHaveLength(3);
  });

  it("gives each attempt its own time limit: a first attempt left unanswered is tried again", async () => {
    let seen = 0;
    const { origin } = await serve((_req, res) => {
      if (++seen === 1) return; // never answered
      res.writeHead(200, { "content-type": "application/json" });
      res.end(BODY);
    });
    const notes: AttemptNotes = {};
    const answer = answered(await sender(origin, retry(settings(2, 300)))({ matframe: { attempts: notes } }));
    expect(answer.text).toBe(BODY);
    expect(notes.attempts).toBe(2);
  });

  it("tries again a body cut off halfway, and reports the last failure, classified, when attempts run out", async () => {
    const { origin } = await serve((req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": BODY.length * 2 });
      res.write(BODY.slice(0, 10));
      // A connection cut in the middle of the body: the server went away.
      setImmediate(() => req.socket.destroy());
    });
    const notes: AttemptNotes = {};
    const error = failed(
      await sender(origin, decompress(1 << 20), retry(settings(2)))({ matframe: { attempts: notes } }),
    );
    expect(error.code).toBe("MATFRAME_ATTEMPTS_FAILED");
    expect((error as unknown as { failure: { kind: string } }).failure.kind).toBe("connection");
    expect(notes.attempts).toBe(3);
  });

  it("a request sent once is not retried, and the caller's abort ends the wait between attempts", async () => {
    const { origin, requests } = await serve((_req, res) => {
      res.writeHead(503, { "content-type": "application/json", "retry-after": "30" });
      res.end("{}");
    });
    const send = sender(origin, retry(settings(3)));
    const once: AttemptNotes = { once: true };
    expect(answered(await send({ matframe: { attempts: once } })).status).toBe(503);
    expect(once.attempts).toBe(1);
    const caller = new AbortController();
    const notes: AttemptNotes = { signal: caller.signal };
    const waiting = send({ matframe: { attempts: notes } }, caller.signal);
    // Abort once the first answer has come and the 30 s wait has begun.
    await expect.poll(() => requests.length).toBe(2);
    caller.abort(new Error("stop"));
    const error = failed(await waiting);
    expect(String(error.message)).toMatch(/stop|aborted/);
    expect(notes.attempts).toBe(1);
  });
});
