import type { IncomingMessage } from "node:http";
import type { AuthRegistry } from "./auth";
import type { LoginThrottle } from "./login-throttle";
import type { Owner } from "./owners";
import type { MaterialStore } from "./store";
import type { WrittenRecords } from "./written-records";

/** What a handler answers; the server serialises it as JSON. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A read of records: sent with a strong ETag and `Cache-Control: private, no-cache`, and answered 304 to a matching `If-None-Match`. */
  validated?: boolean;
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

/** A successful read of records, which clients may keep and revalidate. */
export function successValidated(data: unknown): Reply {
  return { status: 200, body: { status: "success", data }, validated: true };
}
