import { ApiError } from "./api-error";

/** 422: the request was well-formed but the server could not act on it. */
export class UnprocessableEntityError extends ApiError {
  override readonly code: string = "ERR_UNPROCESSABLE_ENTITY";
  override readonly name: string = "UnprocessableEntityError";
}
