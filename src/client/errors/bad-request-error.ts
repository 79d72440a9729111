import { ApiError } from "./api-error";

/** 400: the server rejected the request (usually the query or projection); `serverMessage` says why. */
export class BadRequestError extends ApiError {
  override readonly code: string = "ERR_BAD_REQUEST";
  override readonly name: string = "BadRequestError";
}
