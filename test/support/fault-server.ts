import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Query } from "mingo";
import { at } from "./checked";

// A small, deliberately misbehaving stand-in for the platform, for fault tests: it serves a
// materials collection with skip/limit and `_id > cursor` paging, and on command answers
// badly (status codes, dropped connections, stalls, broken bodies, revoked tokens).

/** How a request should go wrong; undefined means answer normally. */
export type Fault =
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: string }
  | { kind: "drop-mid-body" }
  | { kind: "reset-before-headers" }
  | { kind: "stall" }
  | { kind: "non-json" }
  | { kind: "truncated-json" }
  | { kind: "wrong-shape"; body: unknown }
  | { kind: "duplicate-first"; id: string }
  | { kind: "delay"; ms: number }
  /** Answers normally once `until` settles: the test decides when (no timer). */
  | { kind: "hold"; until: Promise<unknown> }
  /** A 200 whose chunked JSON body never ends. */
  | { kind: "endless" }
  /** Any status, headers and raw body, as given. */
  | { kind: "raw"; status: number; headers: Record<string, string>; body: string };

/** Shape of the login answer: what the platform sends, what its docs show, and the camelCase spelling. */
export type LoginShape = "jsend" | "bare" | "camel" | "jsend-camel";

export interface LoggedRequest {
  method: string;
  path: string;
  query?: unknown;
  projection?: { skip?: number; limit?: number; sort?: Record<string, number>; fields?: Record<string, number> };
  headers: IncomingMessage["headers"];
  body: string;
  /** The client's port: requests from one port came over one connection. */
  remotePort: number | undefined;
}

export interface FaultServerOptions {
  /** Materials served, with ids `m000000`, `m000001`, ... (sorted by `_id` = created order). */
  records?: number;
  loginShape?: LoginShape;
  /** Called for every request with its 1-based number among requests to the same route kind. */
  fault?: (request: LoggedRequest, n: { all: number; list: number }) => Fault | undefined;
  /**
   * Evaluate every query with mingo (and `sort: {_id: -1}`), as the platform does; by default only
   * the keyset cursor is read and other conditions are ignored.
   */
  evaluateQueries?: boolean;
  /** Sends at most this many records per list page, whatever limit was asked (a capping server). */
  pageCap?: number;
  /**
   * The account's name, e.g. one holding terminal controls, which the platform may hold though
   * the local one refuses to create it. @default "ada"
   */
  username?: string;
}

export interface FaultServer {
  baseUrl: string;
  origin: string;
  username: string;
  password: string;
  accountId: string;
  authToken: string;
  records: Array<{ _id: string; name: string; formula: string; n: number }>;
  requests: LoggedRequest[];
  /** Most list requests (pages) the server was answering at one moment. */
  readonly maxInFlight: number;
  /** Revokes the token, as a logout elsewhere would. */
  revoke(): void;
  close(): Promise<void>;
}

const PREFIX = "/api/2018-10-01";
const FORMULAS = ["Si", "GaAs", "NaCl", "Fe2O3"];

export async function startFaultServer(options: FaultServerOptions = {}): Promise<FaultServer> {
  const records = Array.from({ length: options.records ?? 0 }, (_, n) => ({
    _id: `m${String(n).padStart(6, "0")}`,
    name: `Material ${n}`,
    formula: at(FORMULAS, n % FORMULAS.length),
    n,
  }));
  const state = {
    username: options.username ?? "ada",
    password: "correct-horse-battery",
    accountId: `acct-${randomBytes(4).toString("hex")}`,
    authToken: randomBytes(32).toString("hex"),
    revoked: false,
  };
  const requests: LoggedRequest[] = [];
  const counts = { all: 0, list: 0 };
  const load = { inFlight: 0, max: 0 };

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? "/", "http://x");
    const logged: LoggedRequest = {
      method: req.method ?? "",
      path: url.pathname,
      headers: req.headers,
      body,
      remotePort: req.socket.remotePort,
    };
    const q = url.searchParams.get("query");
    const p = url.searchParams.get("projection");
    if (q !== null) logged.query = safeJson(q);
    if (p !== null) logged.projection = safeJson(p) as LoggedRequest["projection"];
    requests.push(logged);
    counts.all += 1;
    const isList = url.pathname === `${PREFIX}/materials`;
    if (isList) counts.list += 1;
    const fault = options.fault?.(logged, { ...counts });
    // Pages only: a loopback client's first walk is preceded by a request that times the link.
    if (isList) {
      load.inFlight += 1;
      load.max = Math.max(load.max, load.inFlight);
      res.on("close", () => (load.inFlight -= 1));
    }
    if (fault?.kind === "delay") await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (fault?.kind === "hold") await fault.until.catch(() => undefined);
    if (fault && fault.kind !== "duplicate-first" && fault.kind !== "delay" && fault.kind !== "hold")
      return misbehave(res, fault);
    route(logged, res, fault);
  });

  function route(r: LoggedRequest, res: ServerResponse, fault: Fault | undefined): void {
    if (r.method === "POST" && r.path === `${PREFIX}/login`) {
      const form = new URLSearchParams(r.body);
      if (form.get("username") !== state.username || form.get("password") !== state.password) {
        send(res, 401, { status: "error", message: "Invalid username or password", code: 401 });
        return;
      }
      state.revoked = false;
      send(res, 200, loginBody(options.loginShape ?? "jsend", state.accountId, state.authToken));
      return;
    }
    const authorised =
      (r.headers["x-account-id"] === state.accountId && r.headers["x-auth-token"] === state.authToken) ||
      r.headers.authorization === `Bearer ${state.authToken}`;
    if (!authorised || state.revoked) {
      send(res, 401, { status: "error", message: "Authentication required", code: 401 });
      return;
    }
    if (r.path === `${PREFIX}/logout`) {
      state.revoked = true;
      send(res, 200, { status: "success", data: { message: "Logged out" } });
      return;
    }
    if (r.path === `${PREFIX}/materials`) {
      const { skip = 0, limit = 50 } = r.projection ?? {};
      const after = cursorOf(r.query);
      const size = Math.min(limit, options.pageCap ?? limit);
      // Queries beyond the keyset cursor (a partition's _id range, a filter) go through mingo;
      // records are kept in _id order, and `sort: {_id: -1}` walks them backwards.
      // One compiled query a request, not one a record.
      const query = options.evaluateQueries && !isCursorOnly(r.query) ? new Query(r.query as object) : undefined;
      const matches = query
        ? records.filter((m) => query.test(m))
        : records.filter((m) => after === undefined || m._id > after);
      const ordered = options.evaluateQueries && r.projection?.sort?._id === -1 ? [...matches].reverse() : matches;
      let page = ordered.slice(skip, skip + size);
      if (fault?.kind === "duplicate-first") page = [records.find((m) => m._id === fault.id)!, ...page.slice(1)];
      send(res, 200, { status: "success", data: page });
      return;
    }
    const one = r.path.startsWith(`${PREFIX}/materials/`)
      ? records.find((m) => `${PREFIX}/materials/${m._id}` === r.path)
      : undefined;
    if (one) {
      send(res, 200, { status: "success", data: one });
      return;
    }
    send(res, 404, { status: "error", message: `No route ${r.path}`, code: 404 });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}${PREFIX}`,
    origin,
    username: state.username,
    password: state.password,
    accountId: state.accountId,
    get authToken() {
      return state.authToken;
    },
    records,
    requests,
    get maxInFlight() {
      return load.max;
    },
    revoke: () => {
      state.revoked = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function misbehave(res: ServerResponse, fault: Exclude<Fault, { kind: "duplicate-first" | "delay" | "hold" }>): void {
  switch (fault.kind) {
    case "status":
      res.writeHead(fault.status, { "content-type": "application/json", ...fault.headers });
      res.end(
        fault.body ?? JSON.stringify({ status: "error", message: `Injected ${fault.status}`, code: fault.status }),
      );
      return;
    case "drop-mid-body": {
      // Promise a long body, send part of it, then cut the connection.
      const text = JSON.stringify({ status: "success", data: [{ _id: "x", name: "half" }] });
      res.writeHead(200, { "content-type": "application/json", "content-length": String(text.length * 4) });
      res.write(text.slice(0, 20), () => res.socket?.destroy());
      return;
    }
    case "reset-before-headers":
      res.socket?.destroy();
      return;
    case "stall":
      return; // never answers; close() cuts it
    case "non-json":
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>502 Bad Gateway</body></html>");
      return;
    case "truncated-json": {
      // Complete as HTTP (right Content-Length), broken as JSON.
      const text = JSON.stringify({ status: "success", data: [{ _id: "m000000" }] }).slice(0, 25);
      res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) });
      res.end(text);
      return;
    }
    case "wrong-shape":
      send(res, 200, fault.body);
      return;
    case "endless": {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"status":"success","data":[');
      const chunk = `${JSON.stringify({ _id: "x", name: "y".repeat(1000) })},`.repeat(64);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", pump);
      };
      res.on("close", () => res.off("drain", pump));
      pump();
      return;
    }
    case "raw":
      res.writeHead(fault.status, fault.headers);
      res.end(fault.body);
      return;
  }
}

function loginBody(shape: LoginShape, accountId: string, authToken: string): unknown {
  const header = { "X-Account-Id": accountId, "X-Auth-Token": authToken };
  const camel = { accountId, authToken };
  switch (shape) {
    case "jsend":
      return { status: "success", data: header };
    case "bare":
      return header;
    case "camel":
      return camel;
    case "jsend-camel":
      return { status: "success", data: camel };
  }
}

/** Whether a query is empty or only a keyset cursor, the forms this server reads without mingo. */
function isCursorOnly(query: unknown): boolean {
  if (query === undefined || query === null) return true;
  const keys = Object.keys(query as object);
  if (keys.length === 0) return true;
  const q = query as { _id?: Record<string, unknown>; $and?: unknown[] };
  if (keys.length === 1 && keys[0] === "_id") return Object.keys(q._id ?? {}).join() === "$gt";
  // A resumed keyset walk ands its saved cursor with the walk's own.
  if (keys.length === 1 && keys[0] === "$and") return Array.isArray(q.$and) && q.$and.every(isCursorOnly);
  return false;
}

/**
 * `_id > cursor` from `{_id: {$gt}}` or `{$and: [..., {_id: {$gt}}]}`, the forms keyset paging
 * sends (nested when a resumed walk ands two cursors: the larger one counts).
 */
function cursorOf(query: unknown): string | undefined {
  const q = query as { _id?: { $gt?: string }; $and?: unknown[] } | undefined;
  const bounds = [q?._id?.$gt, ...(Array.isArray(q?.$and) ? q!.$and.map(cursorOf) : [])].filter(
    (b): b is string => b !== undefined,
  );
  // The greatest cursor by string order (ids compare as strings; Math.max would give NaN).
  return bounds.sort().at(-1);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
