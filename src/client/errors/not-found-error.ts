import { ApiError } from "./api-error";

/** 404: no such collection, record or endpoint. */
export class NotFoundError extends ApiError {
  override readonly code: string = "ERR_NOT_FOUND";
  override readonly name: string = "NotFoundError";
}
