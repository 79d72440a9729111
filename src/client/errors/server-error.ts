import { ApiError } from "./api-error";

/** 5xx: the server failed; retried requests still failed. */
export class ServerError extends ApiError {
  override readonly code: string = "ERR_SERVER";
  override readonly name: string = "ServerError";
}
