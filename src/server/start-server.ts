import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { API_PREFIX } from "../schemas";
import { AuthRegistry } from "./auth/auth";
import { checkRecords, loadBundledData, loadDataset } from "./records/dataset";
import { errorBody, HttpError } from "./http/http-errors";
import {
  chooseCoding,
  COMPRESSED_BUDGET_BYTES,
  CompressedBodies,
  MIN_COMPRESS_BYTES,
  type CompressionMode,
} from "./http/compression";
import { ConnectionGuard } from "./http/connections";
import { LoginThrottle } from "./auth/login-throttle";
import { DeviceFlow } from "./auth/device-flow";
import { CodeAttempts } from "./auth/code-attempts";
import { randomBytes } from "node:crypto";
import type { Reply, ServerState } from "./handlers/reply";
import { MAX_URL_LENGTH } from "./http/request-input";
import { routeRequest } from "./handlers/router";
import { ServerOptionsError } from "../errors";
import { hostToOpenHere } from "../loopback";
import { resolveOptions, type StartServerOptions } from "./server-options";
import { longestStringIn, MaterialStore } from "./records/store";
import { makeSyntheticMaterials } from "./records/synthetic";
import { PUBLIC_OWNER } from "./records/owners";
import { LmdbBackend, MemoryBackend } from "./records/record-backend";
import { SymmetryThread } from "./records/symmetry-thread";
import { WrittenRecords } from "./records/written-records";
import { DEFAULT_COLLECTIONS, ensureAccountDefaults } from "./collections/account-defaults";
import { SERIALIZED_BUDGET_BYTES, SerializedRecords } from "./http/serialized";
import { type RequestWarmUpReport, WarmUp, type WarmUpReport } from "./http/warm-up";
import { RequestWarmUp, warmUpPaths } from "./http/request-warm-up";
import { warmForms } from "./http/warm-forms";
import { loadPlatformCollections } from "./collections/platform-collections";
import { JobRunner } from "./collections/job-runner";
import type { JobEnd } from "./collections/job-ends";
import { escapeForTerminal } from "../terminal-text";
import { describeVisibleMaterials } from "./visible-materials";
import { UrlSigner } from "./http/signed-urls";
import { ClassActivity } from "./teacher/class-activity";
import { TeacherAccess } from "./teacher/teacher-access";
import { hasEngine, MISSING_ENGINE_WARNING } from "./compute/run-job";

/** A running server, as {@link startServer} resolves it. */
export interface ServerHandle {
  /** The versioned base URL clients use, e.g. `http://127.0.0.1:4000/api/2018-10-01`. */
  baseUrl: string;
  /** The port actually listened on (useful with `port: 0`). */
  port: number;
  /** The host listened on. */
  host: string;
  /** How many materials are served (real plus synthetic). */
  materialCount: number;
  /**
   * Lifts a lockout at once: forgets every failed login of `username`, from every address, so it
   * may log in again without waiting (sessions and other accounts are untouched). Returns at how
   * many addresses it was locked out (0: it was not).
   */
  unlock(username: string): number;
  /**
   * The teacher's page, with its key (`http://127.0.0.1:4000/teacher?key=...`), when
   * `teacherPage` is on: for the teacher only. On a wildcard host (`0.0.0.0`, `::`) it names the
   * loopback address (`127.0.0.1`, `[::1]`), which a browser on this machine opens. Whoever opens it sees every account's activity and
   * may unlock them; the key changes at every start.
   */
  teacherUrl?: string;
  /**
   * Ends when the background serialising of `warmFields` does (at once without any): for a caller
   * that wants to measure or wait for a warm server.
   */
  warmUp: Promise<WarmUpReport>;
  /**
   * Resolves once the job with this `_id` has ended: with its final status (`"finished"`,
   * `"error"`, `"terminated"`), or `"deleted"`; at once for a job that already has. For code that
   * holds the server in-process, a test above all: the REST API has no notice when a job ends, so
   * its clients poll, and this is the event to wait on instead. Whatever reads the job through the
   * API after it resolves sees it ended. Rejects with a `ValidationError` when no job has the id,
   * and with a `MatframeError` when the server closes first (a job it leaves running does not end).
   *
   * @example
   * const job = await client.jobs.create(...); // then submitted through the API
   * expect(await server.jobEnded(job._id)).toBe("finished");
   */
  jobEnded(jobId: string): Promise<JobEnd>;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** Requests one connection may have waiting; more is a client that does not read its answers. */
const MAX_PIPELINED = 32;

/** Largest request head (request line plus headers) Node will parse. */
const MAX_HEADER_BYTES = 32 * 1024;

/**
 * How long an idle keep-alive connection stays open. Longer than clients keep theirs (undici: 4 s
 * unless the server's `Keep-Alive: timeout` hint says more; browsers and requests: about 60 s), so
 * the client, not the server, decides when an idle connection ends: a notebook that computes for
 * longer than Node's default 5 s and then writes would otherwise write onto a socket the server has
 * just closed, and a write cannot safely be retried. 65 s is the usual figure for servers behind
 * clients with a 60 s idle timeout.
 *
 * `headersTimeout` (20 s) is not raised with it: since Node 18 it times a request from its first
 * byte and does not count the idle wait between requests, so it still bounds a client that sends
 * its headers slowly without closing idle connections early.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

const JSON_HEADERS = {
  "Content-Type": "application/json; charset=utf-8",
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
};

/**
 * Writes a reply: compressed when the client asks and it is worth it, and for reads of records
 * with their strong ETag (suffixed with the coding negotiated, since each is another representation)
 * and `Cache-Control: private, no-cache`; a 304 reply goes out with its tag and no body. Returns
 * the status sent. `negotiated` is the coding chosen from the request's `Accept-Encoding` and the
 * server's compression mode, `kept` the answer already compressed in it (see
 * `CompressedBodies.keptRead`).
 */
async function send(
  res: ServerResponse,
  reply: Reply,
  mode: CompressionMode,
  negotiated: ReturnType<typeof chooseCoding>,
  compressed: CompressedBodies,
  kept: Buffer | undefined,
): Promise<number> {
  if (reply.status === 304 && reply.etag) {
    res.writeHead(304, {
      ETag: etagHeader(reply.etag, negotiated),
      "Cache-Control": "private, no-cache",
      ...(mode !== "off" ? { Vary: "Accept-Encoding" } : {}),
    });
    res.end();
    return 304;
  }
  const headers: Record<string, string | number> = { ...JSON_HEADERS, ...reply.headers };
  const body = kept ? undefined : (reply.json ?? Buffer.from(JSON.stringify(reply.body)));
  // A kept answer was compressed in the negotiated coding when it was first sent.
  const coding = kept || body!.length >= MIN_COMPRESS_BYTES ? negotiated : undefined;
  if (mode !== "off") headers.Vary = "Accept-Encoding";
  if (reply.etag && reply.status === 200) {
    // Suffixed with the coding negotiated, applied or not (a small body is sent plain): the 304
    // that cannot know the body's size must send the same tag, and one tag still names one body.
    headers.ETag = etagHeader(reply.etag, negotiated);
    headers["Cache-Control"] = "private, no-cache";
  }
  const payload = kept ?? (coding ? await compressed.compress(body!, coding, reply.etag) : body!);
  if (res.destroyed) return reply.status;
  if (coding) headers["Content-Encoding"] = coding;
  headers["Content-Length"] = payload.length;
  res.writeHead(reply.status, headers);
  res.end(payload);
  return reply.status;
}

/** The ETag header for a validator and the coding negotiated (each coding is its own representation). */
function etagHeader(etag: string, coding: string | undefined): string {
  return `"${etag}${coding ? `-${coding}` : ""}"`;
}

function toReply(error: unknown): Reply {
  if (error instanceof HttpError) {
    // 413: the rest of the body is not read, so the connection cannot be reused.
    const headers = error.status === 413 ? { ...error.headers, Connection: "close" } : error.headers;
    return { status: error.status, body: errorBody(error.status, error.message), headers };
  }
  return {
    status: 500,
    body: errorBody(500, "matframe serve hit an internal error; please report it with the request that caused it."),
  };
}

/** Answers requests Node could not parse (oversized heads, garbage) with a JSend body too. */
function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  let status = 400;
  let message = "The request is not valid HTTP.";
  if (error.code === "HPE_HEADER_OVERFLOW") {
    const head = error.rawPacket?.toString("latin1") ?? "";
    const lineEnd = head.indexOf("\r\n");
    const requestLine = lineEnd === -1 ? head : head.slice(0, lineEnd);
    if (lineEnd === -1 || requestLine.length > MAX_URL_LENGTH) {
      status = 414;
      message = `The request URL is longer than ${MAX_URL_LENGTH} characters; shorten the query or use smaller requests.`;
    } else {
      status = 431;
      message = `The request headers are larger than ${MAX_HEADER_BYTES} bytes.`;
    }
  } else if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    status = 408;
    message = "The request took too long to arrive.";
  }
  const body = JSON.stringify(errorBody(status, message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function listen(server: ReturnType<typeof createServer>, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      // What was wrong, and which option to change to what.
      const reasons: Record<string, [reason: string, option: string, hint: string]> = {
        EADDRINUSE: [`port ${port} is already in use`, "port", "0 picks a free one"],
        EADDRNOTAVAIL: [`the address ${host} is not available on this machine`, "host", "127.0.0.1 always is"],
        EACCES: [`no permission to listen on port ${port}`, "port", "above 1023, or 0"],
        ENOTFOUND: [`the host name ${host} cannot be resolved`, "host", "127.0.0.1 always is"],
      };
      const known = reasons[error.code ?? ""];
      reject(
        known
          ? new ServerOptionsError(`Cannot listen on ${host}:${port}: ${known[0]}`, {
              option: known[1],
              remedy: { change: known[1], hint: known[2] },
            })
          : new ServerOptionsError(`Cannot listen on ${host}:${port}: ${error.message}.`, {
              // A name that does not resolve (EAI_AGAIN, EAI_FAIL, ...) is the host's fault, as ENOTFOUND is.
              option: error.code?.startsWith("EAI_") ? "host" : "port",
            }),
      );
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/**
 * Starts the local platform: the Materials Platform API 2018-10-01 (login, logout, materials)
 * served from this machine, by default with the bundled real materials.
 *
 * @example
 * const server = await startServer({ port: 0 });
 * // ... Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" })
 * await server.close();
 */
export async function startServer(options: StartServerOptions = {}): Promise<ServerHandle> {
  const resolved = resolveOptions(options);
  const log = (line: string) => {
    try {
      resolved.log?.(line);
    } catch {
      // A failing logger must not take the server down.
    }
  };
  const records = await loadDataset(resolved.data);
  const bases = resolved.data === undefined ? records : await loadBundledData();
  const synthetic = makeSyntheticMaterials(resolved.synthetic, bases);
  const all = synthetic.length === 0 ? records : checkRecords([...records, ...synthetic], (i) => `record ${i + 1}`);
  const store = new MaterialStore(all, {
    scanBudgetMs: resolved.scanBudgetMs,
    // Synthetic records repeat their originals' strings except the name, so walking the
    // originals and the names is enough (and much cheaper than walking 100,000 records).
    longestString: synthetic.reduce(
      (longest, record) => Math.max(longest, String(record.name).length),
      Math.max(longestStringIn(records), bases === records ? 0 : longestStringIn(bases)),
    ),
  });
  const platform = loadPlatformCollections(store, synthetic, resolved.scanBudgetMs);
  const state: ServerState = {
    store,
    collections: platform.collections,
    jobs: undefined as unknown as JobRunner,
    written: new WrittenRecords(
      resolved.store === undefined ? new MemoryBackend() : LmdbBackend.open(resolved.store),
      resolved.scanBudgetMs,
      resolved.quota,
    ),
    publicOwner: PUBLIC_OWNER,
    auth: await AuthRegistry.create(resolved.users, resolved.sessions),
    throttle: new LoginThrottle(resolved.loginThrottle),
    oidc: {
      // Each refresh token goes with one session, so both are bounded alike.
      flow: new DeviceFlow(resolved.deviceFlow, {
        max: resolved.sessions.maxSessions,
        maxPerOwner: resolved.sessions.maxSessionsPerAccount,
      }),
      csrfKey: randomBytes(32),
      codeAttempts: new CodeAttempts(resolved.userCodes),
    },
    log,
    activity: new ClassActivity(),
    teacher: resolved.teacherPage ? new TeacherAccess() : undefined,
    onLockout: (lockout) => {
      state.activity.noteLockout(lockout);
      try {
        resolved.loginThrottle?.onLockout?.(lockout);
      } catch {
        // A failing callback must not turn a failed login into a 500.
      }
    },
    serialized: new SerializedRecords(SERIALIZED_BUDGET_BYTES),
    symmetry: new SymmetryThread(resolved.symmetryBudgetMs),
    fileUrls: new UrlSigner(),
  };
  state.jobs = new JobRunner(state, platform.reference, {
    maxRunning: resolved.maxRunningJobs,
    timeLimitMs: resolved.jobTimeLimitMs,
    referenceRunMs: resolved.jobRunMs,
    startDelayMs: resolved.jobStartDelayMs,
    storeDir: resolved.store,
    log,
  });
  // With --store: a job a stopped server left running ends in error now; one left waiting is
  // queued again once the server has said it is up (below), and both are said then (or before
  // the error, when the server cannot listen: the ended jobs are written either way).
  const { interrupted, stopped, waiting } = await state.jobs.resume();
  const sayResumed = (queued: boolean) => {
    if (interrupted.length > 0)
      log(
        `${interrupted.length === 1 ? "1 job was" : `${interrupted.length} jobs were`} computing when the server stopped: ended in error, "interrupted by a restart" (${interrupted.slice(0, 5).join(", ")}${interrupted.length > 5 ? ", ..." : ""})` +
          (stopped > 0 ? `; ${stopped === 1 ? "1 run" : `${stopped} runs`} left computing stopped` : ""),
      );
    if (waiting.length > 0)
      log(
        `${waiting.length === 1 ? "1 submitted job" : `${waiting.length} submitted jobs`} ${queued ? "queued again" : "left waiting"}`,
      );
  };
  // Every account starts with its default project (and, with accountDefaults, material and
  // workflow), as on the platform; an account of a store written before these existed gets them now.
  const defaults = resolved.accountDefaults ? DEFAULT_COLLECTIONS : (["projects"] as const);
  for (const account of state.auth.accountOwners()) {
    const missed = await ensureAccountDefaults(state, account, defaults);
    if (missed.length > 0)
      log(
        `warning: account ${escapeForTerminal(String(account.slug))} is at its quota; its default ${missed.join(", ")} could not be made`,
      );
  }

  const compressed = new CompressedBodies(COMPRESSED_BUDGET_BYTES);
  // Made once the server listens; until then no request can come.
  let warmUp: WarmUp | undefined;
  const requestWarmUp = new RequestWarmUp();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    requestWarmUp.stop("request");
    warmUp?.requestStarted();
    try {
      await answer(req, res);
    } finally {
      warmUp?.requestEnded();
    }
  };
  const answer = async (req: IncomingMessage, res: ServerResponse, own = false) => {
    const started = performance.now();
    let reply: Reply;
    let kept: Buffer | undefined;
    const negotiated = chooseCoding(req.headers["accept-encoding"], resolved.compression);
    try {
      reply = await routeRequest(req, state);
      if (reply.build) {
        kept = reply.etag && negotiated ? compressed.keptRead(reply.etag, negotiated) : undefined;
        if (!kept) reply = { ...reply, json: await reply.build() };
      }
    } catch (error) {
      reply = toReply(error);
      if (!(error instanceof HttpError)) log(`internal error: ${(error as Error)?.name ?? "unknown"}`);
    }
    if (res.writableEnded || res.destroyed) return;
    const status = await send(res, reply, resolved.compression, negotiated, compressed, kept);
    if (own) return;
    // Only the path: query strings may hold values a user considers private. Node's parser
    // refuses control bytes in a request line today; escaped anyway, as every remote value is.
    const path = escapeForTerminal(pathOf(req.url ?? "").slice(0, 200));
    const who = state.activity.finish(req, path, status);
    log(
      `${req.method} ${path} ${status} ${Math.round(performance.now() - started)}ms${who === undefined ? "" : ` by ${escapeForTerminal(who)}`}`,
    );
  };

  const serverOptions = {
    maxHeaderSize: MAX_HEADER_BYTES,
    requestTimeout: 60_000,
    headersTimeout: 20_000,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // Node's own answer to a request without Host is an empty 400; the handler answers it in JSend.
    requireHostHeader: false,
  };
  const server: Server = createServer(serverOptions, (req, res) => guard.serve(req, res, () => handle(req, res)));
  const guard: ConnectionGuard = new ConnectionGuard(
    server,
    { maxConnections: resolved.maxConnections, sendTimeoutMs: resolved.sendTimeoutMs, maxPipelined: MAX_PIPELINED },
    log,
  );
  server.on("clientError", answerClientError);
  try {
    await listen(server, resolved.host, resolved.port);
  } catch (error) {
    sayResumed(false);
    await state.jobs.close();
    await state.written.close();
    throw error;
  }

  const address = server.address();
  const port = typeof address === "object" && address ? address.port : resolved.port;
  const hostInUrl =
    resolved.host.includes(":") && !resolved.host.startsWith("[") ? `[${resolved.host}]` : resolved.host;
  const baseUrl = `http://${hostInUrl}:${port}${API_PREFIX}`;
  // What each account lists: the served materials and its own (its copy of silicon, and with
  // --store what it wrote before).
  const accounts = state.auth.accountOwners().map((account) => ({
    username: account.slug,
    own: state.written.countOf(account._id, "materials"),
  }));
  log(
    `serving ${all.length} materials (${synthetic.length} synthetic) at ${baseUrl}${describeVisibleMaterials(all.length, accounts)}`,
  );
  for (const warning of resolved.warnings) log(`warning: ${warning}`);
  if (!hasEngine()) log(`warning: ${MISSING_ENGINE_WARNING}`);
  if (resolved.store !== undefined)
    log(`keeping written records in ${resolved.store} (${state.written.size} there now)`);
  sayResumed(true);
  for (const id of waiting) state.jobs.start(id);

  let closing: Promise<void> | undefined;
  const warmRequestPaths = async (): Promise<RequestWarmUpReport | undefined> => {
    const [account] = state.auth.accountOwners();
    if (!account) return undefined;
    const session = state.auth.openSession(account._id, { server: true });
    try {
      const paths = warmUpPaths(state.store, state.collections, resolved.warmFields, resolved.warmResults);
      const headers = { "X-Account-Id": session.accountId, "X-Auth-Token": session.authToken };
      const report = await requestWarmUp.run((req, res) => answer(req, res, true), paths, headers, {
        server: serverOptions,
      });
      const { requests, answered, ms, ended, firstUnanswered: first } = report;
      // A read not answered with 200 warmed less than it meant to: which, and with what, is said.
      const unanswered = first
        ? `; ${requests - answered} not answered with 200, the first GET ${first.path}: ${first.status}`
        : "";
      if (ended !== "closed") log(`ran ${requests} reads of its own in ${Math.round(ms)} ms (${ended}${unanswered})`);
      return report;
    } finally {
      state.auth.endSession(account._id, session.sessionId);
    }
  };
  // Made now, so that it counts every client's request; it starts once the server's own reads end.
  const json = new WarmUp(
    warmForms(state.store, state.collections, resolved.warmFields, resolved.warmResults),
    state.serialized,
    { start: false },
  );
  warmUp = json;
  if (resolved.warmFields.length > 0 || resolved.warmResults)
    json.ended.then(({ records, resultsRecords, workMs, ended }) => {
      const results = resultsRecords > 0 ? ` (${resultsRecords} of them for results tables)` : "";
      if (ended !== "closed")
        log(`kept the JSON of ${records} records${results} in ${Math.round(workMs)} ms of background work (${ended})`);
    });
  const keepJson = () => {
    json.start();
    return json.ended;
  };
  // With warmFields, the server first sends itself its read paths once, then keeps the JSON.
  const warmed =
    resolved.warmFields.length === 0
      ? keepJson()
      : warmRequestPaths()
          .catch((error: unknown) => {
            // The reads only speed up first requests: one that cannot be sent leaves the JSON's warm-up to run.
            log(`warning: the start-up reads stopped: ${(error as Error)?.name ?? "unknown error"}`);
            return undefined;
          })
          .then(async (reads) => ({ ...(await keepJson()), ...(reads ? { reads } : {}) }));

  return {
    baseUrl,
    port,
    host: resolved.host,
    materialCount: all.length,
    // The teacher opens the page on this machine: on a wildcard host, at its loopback address.
    ...(state.teacher
      ? { teacherUrl: `http://${hostToOpenHere(hostInUrl)}:${port}/teacher?key=${state.teacher.key}` }
      : {}),
    unlock(username: string) {
      return state.throttle.unlock(username);
    },
    warmUp: warmed,
    jobEnded(jobId: string) {
      return state.jobs.ends.wait(jobId);
    },
    close() {
      requestWarmUp.stop("closed");
      warmUp?.stop();
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })
        // The jobs' processes end (and their last writes land) before the store closes.
        .then(() => state.jobs.close())
        .then(() => Promise.all([state.written.close(), state.symmetry.close()]).then(() => undefined));
      return closing;
    },
  };
}

/** The part of a request target before any query string. */
function pathOf(url: string): string {
  const [path = ""] = url.split("?", 1);
  return path;
}
