import { ACCOUNT_ID_HEADER, AUTH_TOKEN_HEADER } from "../../schemas";
import { HttpError, tooManyRequests, unauthorized } from "../http/http-errors";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { success } from "./reply";
import { LoginQueueFull } from "../auth/auth";
import { deterministicId } from "../records/ids";
import type { Caller } from "../records/owners";
import { parseLoginBody, readBody } from "../http/request-input";
import { quoteForTerminal } from "../../terminal-text";

/** Longest username or password looked at; longer ones cannot match an account. */
const MAX_CREDENTIAL_LENGTH = 1024;

/** POST /login: form or JSON body; 401 on a wrong password, 429 when throttled. */
export async function handleLogin({ req }: RequestInfo, state: ServerState): Promise<Reply> {
  const body = await readBody(req);
  const { username, password } = parseLoginBody(body, req.headers["content-type"]);
  const accountId = await verifySignIn(state, username, password, req.socket.remoteAddress ?? "unknown");
  const credentials = state.auth.openSession(accountId);
  state.activity.noteCaller(req, accountId, username);
  return success({ [ACCOUNT_ID_HEADER]: credentials.accountId, [AUTH_TOKEN_HEADER]: credentials.authToken });
}

/**
 * Checks a username and password from `address` against the login throttle: the account id when
 * right; else throws 401 (wrong, logged with the name, and the lockout announced when this
 * failure causes one), 429 (locked out, logged) or 503 (too many hashes waiting). POST /login and
 * the device flow's verification page both sign in through it, so both are logged, throttled and
 * announced alike.
 */
export async function verifySignIn(
  state: ServerState,
  username: string,
  password: string,
  address: string,
): Promise<string> {
  // Checked one at a time per username and address: guesses sent in parallel would otherwise
  // all pass the throttle before the first failure is recorded.
  return state.throttle.serialize(username, address, async () => {
    const wait = state.throttle.retryAfterSeconds(username, address);
    if (wait > 0) {
      state.log(`login refused for ${logName(username)} from ${address}: locked out for ${formatWait(wait)} more`);
      throw tooManyRequests(
        `Too many failed logins for this user from this address; try again in ${formatWait(wait)}.`,
        wait,
      );
    }
    const found =
      username !== "" && username.length <= MAX_CREDENTIAL_LENGTH && password.length <= MAX_CREDENTIAL_LENGTH
        ? await state.auth.checkPassword(username, password, address)
        : undefined;
    if (found instanceof LoginQueueFull) {
      // Not a failed attempt: the password was never checked.
      throw new HttpError(503, `The server is busy checking other logins; try again in ${found.retryAfterSeconds} s.`, {
        "Retry-After": String(found.retryAfterSeconds),
      });
    }
    if (found === undefined) {
      const locked = state.throttle.recordFailure(username, address);
      state.log(
        `login failed for ${logName(username)} from ${address}${locked ? `: locked out after ${state.throttle.limit} failures` : ""}`,
      );
      if (locked) {
        const retryAfterSeconds = state.throttle.retryAfterSeconds(username, address);
        state.onLockout({ username, address, failures: state.throttle.limit, retryAfterSeconds });
      }
      throw unauthorized("Wrong username or password.");
    }
    state.throttle.recordSuccess(username, address);
    return found;
  });
}

/**
 * A username as a log line shows it: quoted, every control character escaped (a name with a line
 * break or an escape sequence must not forge a line or drive the terminal) and cut to 64
 * characters. Only the name: the password is never logged.
 */
export function logName(username: string): string {
  return quoteForTerminal(username);
}

/** "40 s", or "15 minutes" for a classroom lockout : "898 s" tells nobody much. */
export function formatWait(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** What a request authenticates with: the id/token pair, or a Bearer token (`accountId` undefined). */
interface PresentedCredentials {
  accountId: string | undefined;
  authToken: string;
}

/**
 * Reads `Authorization: Bearer <token>` (a token POST /login issued; the platform's own client
 * sends it without the X- headers) or else the X-Account-Id / X-Auth-Token pair.
 */
function readCredentials({ req }: RequestInfo): PresentedCredentials {
  const authorization = req.headers.authorization;
  if (typeof authorization === "string" && authorization !== "") {
    const [, token] = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization) ?? [];
    if (token === undefined) {
      throw unauthorized(
        `The Authorization header must be "Bearer <token>" with a token from POST /login, or leave it out and send the ${ACCOUNT_ID_HEADER} and ${AUTH_TOKEN_HEADER} headers.`,
      );
    }
    return { accountId: undefined, authToken: token };
  }
  const accountId = req.headers[ACCOUNT_ID_HEADER.toLowerCase()];
  const authToken = req.headers[AUTH_TOKEN_HEADER.toLowerCase()];
  if (typeof accountId !== "string" || typeof authToken !== "string" || accountId === "" || authToken === "") {
    throw unauthorized(
      `Authentication required: send the ${ACCOUNT_ID_HEADER} and ${AUTH_TOKEN_HEADER} headers that POST /login returns, or its token as Authorization: Bearer <token>.`,
    );
  }
  return { accountId, authToken };
}

function invalidCredentials(bearer: boolean): HttpError {
  return unauthorized(
    bearer
      ? "The Bearer token is not valid (unknown, expired or logged out); log in again with POST /login and send its token."
      : `The ${ACCOUNT_ID_HEADER}/${AUTH_TOKEN_HEADER} pair is not valid (unknown, expired or logged out); log in again with POST /login.`,
  );
}

/** The caller's account; throws 401 unless the request carries a live id/token pair or Bearer token. */
export function requireSession(info: RequestInfo, state: ServerState): Caller {
  const { accountId, authToken } = readCredentials(info);
  const account = state.auth.accountFor(accountId, authToken);
  if (!account) throw invalidCredentials(accountId === undefined);
  state.activity.noteCaller(info.req, account._id, account.slug);
  return account;
}

/** GET or POST /logout: ends the session; the pair (or Bearer token) gets 401 from then on. */
export async function handleLogout(info: RequestInfo, state: ServerState): Promise<Reply> {
  const { accountId, authToken } = readCredentials(info);
  if (!state.auth.logout(accountId, authToken)) throw invalidCredentials(accountId === undefined);
  return success({ message: "You are successfully logged out" });
}

/**
 * GET /api/v1/users/me: the signed-in user and their accounts, in the user service's shape the
 * platform's Python client reads (`APIClient.my_account` takes `user.entity.defaultAccountId`;
 * `list_accounts()` and `my_organization` read `accounts[].entity` and `isDefault`). Each local
 * user has one personal account and belongs to no organization.
 */
export function handleUsersMe(info: RequestInfo, state: ServerState): Reply {
  const account = requireSession(info, state);
  const username = state.auth.usernameOf(account._id) ?? account.slug;
  return success({
    user: { entity: { _id: deterministicId(`user:${username}`), username, defaultAccountId: account._id } },
    accounts: [{ entity: { _id: account._id, name: username, slug: account.slug, type: "personal" }, isDefault: true }],
  });
}
