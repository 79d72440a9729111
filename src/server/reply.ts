import type { IncomingMessage } from "node:http";
import type { AuthRegistry } from "./auth";
import type { LoginThrottle } from "./login-throttle";
import type { MaterialStore } from "./store";

/** What a handler answers; the server serialises it as JSON. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Everything a handler needs besides the request. */
export interface ServerState {
  store: MaterialStore;
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
