import { ApiError } from "./api-error";

/** 401: wrong username/password at login, or an account id / auth token that is wrong, expired or revoked (log in again). */
export class AuthenticationError extends ApiError {
  override readonly code: string = "ERR_AUTHENTICATION";
  override readonly name: string = "AuthenticationError";
}
