import { ApiError } from "./api-error";

/** 409: the request conflicts with the server's current state. */
export class ConflictError extends ApiError {
  override readonly code: string = "ERR_CONFLICT";
  override readonly name: string = "ConflictError";
}
