import { ApiError } from "./api-error";

/** 403: the credentials are valid but may not do this. */
export class PermissionDeniedError extends ApiError {
  override readonly code: string = "ERR_PERMISSION_DENIED";
  override readonly name: string = "PermissionDeniedError";
}
