import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { AuthRegistry } from "../auth/auth";
import type { DeviceFlow } from "../auth/device-flow";
import type { CodeAttempts } from "../auth/code-attempts";
import type { ClassActivity } from "../teacher/class-activity";
import type { TeacherAccess } from "../teacher/teacher-access";
import type { Lockout, LoginThrottle } from "../auth/login-throttle";
import type { Owner } from "../records/owners";
import type { RecordProjection, SerializedRecords } from "../http/serialized";
import type { MaterialStore } from "../records/store";
import type { WrittenRecords } from "../records/written-records";
import type { SymmetryThread } from "../records/symmetry-thread";
import type { Collection } from "../collections/collection";
import type { JobRunner } from "../collections/job-runner";
import type { UrlSigner } from "../http/signed-urls";

/** What a handler answers; the server serialises it as JSON. */
export interface Reply {
  status: number;
  body: unknown;
  /**
   * The body already serialised (as JSON.stringify would write `body`), when a handler has it;
   * also an HTML page's bytes, with its own `Content-Type` in `headers`.
   */
  json?: Buffer;
  /**
   * Makes `json` when no compressed answer kept for `etag` serves the request (see
   * `CompressedBodies.keptRead`): a read of records leaves its scan and serialisation to this.
   */
  build?: () => Promise<Buffer>;
  headers?: Record<string, string>;
  /**
   * A read of records: its strong validator (without the coding suffix), sent as the ETag with
   * `Cache-Control: private, no-cache`. With status 304 the reply has no body: the request's
   * `If-None-Match` named this validator.
   */
  etag?: string;
}

/** Everything a handler needs besides the request. */
export interface ServerState {
  /** The served materials (bundled, --data, synthetic): read-only, owned by `publicOwner`. */
  store: MaterialStore;
  /** Records accounts wrote through the API (in memory, or kept in LMDB with --store). */
  written: WrittenRecords;
  publicOwner: Readonly<Owner>;
  auth: AuthRegistry;
  throttle: LoginThrottle;
  /**
   * The OIDC device flow's grants and refresh tokens, the key that signs its page's CSRF fields,
   * and the wrong user codes typed there per address.
   */
  oidc: { flow: DeviceFlow; csrfKey: Buffer; codeAttempts: CodeAttempts };
  /** Writes a line to the server's log (never a password or token). */
  log(line: string): void;
  /** Requests, writes and lockouts per account, for the teacher's page and the request log. */
  activity: ClassActivity;
  /** Who may open the teacher's page; undefined when the server has none. */
  teacher?: TeacherAccess;
  /** Told when a username gets locked out at an address. */
  onLockout(lockout: Lockout): void;
  /** Space groups of written structures, found off the event loop within a time budget. */
  symmetry: SymmetryThread;
  /** Whole records' JSON, kept for answers that send records whole. */
  serialized: SerializedRecords;
  /** Every collection by path segment (materials, workflows, jobs, ...), with its public records. */
  collections: ReadonlyMap<string, Collection>;
  /** Runs submitted jobs through the queue to finished or error, with their results and files. */
  jobs: JobRunner;
  /** Signs the URLs of job files (a key made afresh on every start). */
  fileUrls: UrlSigner;
}

/** One request, split once into what handlers use. */
export interface RequestInfo {
  req: IncomingMessage;
  method: string;
  /** The path after the version prefix, e.g. `/materials`. */
  route: string;
  params: Map<string, string>;
}

export function success(data: unknown): Reply {
  return { status: 200, body: { status: "success", data } };
}

/**
 * The validator of a read: a hash of what decides its answer, namely the request (path and
 * query string), the account, and the version of that account's records (which changes with
 * every write of theirs and every start of the server; the served materials never change while
 * it runs). Computed before any record is looked at, so that a revalidation costs no scan and a
 * write during a read leaves that read's tag obsolete, never pointing at newer data.
 */
export function readValidator(info: RequestInfo, state: ServerState, accountId: string): string {
  return createHash("sha256")
    .update(`${state.written.versionFor(accountId)}\n${accountId}\n${info.req.url ?? ""}`)
    .digest("base64url")
    .slice(0, 32);
}

/** Whether `If-None-Match` names this validator (in any coding's tag, or `*`). */
export function matchesValidator(info: RequestInfo, etag: string): boolean {
  const header = info.req.headers["if-none-match"];
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some(
    (tag) =>
      tag
        .trim()
        .replace(/^W\//, "")
        .replace(/^"|"$/g, "")
        .replace(/-(gzip|br)$/, "") === etag,
  );
}

/** The answer to a read whose `If-None-Match` matched: 304, no body. */
export function notModified(etag: string): Reply {
  return { status: 304, body: undefined, etag };
}

/** A successful read of records, which clients may keep and revalidate by `etag`. */
export function successValidated(data: unknown, etag: string): Reply {
  return { status: 200, body: { status: "success", data }, etag };
}

/** A successful read of records, whole or projected, sent from their kept JSON. */
export function successRecords(
  records: readonly Record<string, unknown>[],
  state: ServerState,
  etag: string,
  projection?: RecordProjection,
): Reply {
  return { status: 200, body: undefined, json: state.serialized.successBody(records, projection), etag };
}
