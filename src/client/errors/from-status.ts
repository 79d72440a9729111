import { ApiError, type ApiErrorDetails } from "./api-error";
import { AuthenticationError } from "./authentication-error";
import { BadRequestError } from "./bad-request-error";
import { ConflictError } from "./conflict-error";
import { NotFoundError } from "./not-found-error";
import { PermissionDeniedError } from "./permission-denied-error";
import { RateLimitError } from "./rate-limit-error";
import { ServerError } from "./server-error";
import { UnprocessableEntityError } from "./unprocessable-entity-error";

/** What the transport knows when a request ends in an HTTP error status. */
export interface StatusErrorContext extends ApiErrorDetails {
  /** True for the login request, whose 401 means a wrong username or password. */
  login?: boolean;
  /** How many attempts were made (1 when the request was not retried). */
  attempts: number;
  /** From `Retry-After`, when the server sent it. */
  retryAfterMs?: number;
}

/** Maps an HTTP error status to the error class a caller can act on (after openai-node's status map). */
export function errorFromStatus(ctx: StatusErrorContext): ApiError {
  const { status, endpoint } = ctx;
  const said = ctx.serverMessage ? `: "${ctx.serverMessage}"` : "";
  const head = `${endpoint} answered ${status}${said}.`;
  const tries = ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : "";
  const details: ApiErrorDetails = {
    status,
    endpoint,
    serverMessage: ctx.serverMessage,
    headers: ctx.headers,
  };
  switch (true) {
    case status === 401 && ctx.login:
      return new AuthenticationError(
        `Login failed: ${head} Check the username/password and try again.`,
        details,
      );
    case status === 401:
      return new AuthenticationError(
        `Not authenticated: ${head} The account id or auth token is wrong, expired or revoked ` +
          `(logging out revokes it): log in again.`,
        details,
      );
    case status === 400:
      return new BadRequestError(`Bad request: ${head} Fix the query, projection or options and try again.`, details);
    case status === 403:
      return new PermissionDeniedError(
        `Permission denied: ${head} This account may not do this; check the account id or ask for access.`,
        details,
      );
    case status === 404:
      return new NotFoundError(`Not found: ${head} Check the collection name, the record id and the baseUrl.`, details);
    case status === 409:
      return new ConflictError(`Conflict: ${head} Reload the current state and try again.`, details);
    case status === 422:
      return new UnprocessableEntityError(`Unprocessable: ${head} Fix the request content and try again.`, details);
    case status === 429: {
      const wait = ctx.retryAfterMs !== undefined ? ` The server asked to wait ${formatWait(ctx.retryAfterMs)}.` : "";
      return new RateLimitError(
        `Rate limited${tries}: ${head}${wait} Wait, then retry; or lower \`concurrency\`.`,
        { ...details, retryAfterMs: ctx.retryAfterMs },
      );
    }
    case status >= 500:
      return new ServerError(
        `Server error${tries}: ${head} Try again later; if it persists, tell the platform's operators.`,
        details,
      );
    default:
      return new ApiError(`Unexpected answer${tries}: ${head}`, details);
  }
}

function formatWait(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
