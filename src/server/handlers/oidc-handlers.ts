// The platform's sign-in as its notebooks and CLI tools use it: the OIDC device flow
// (RFC 8628) under /oidc, with the verification page and refresh tokens (RFC 6749 section 6).
import type { IncomingMessage } from "node:http";
import { AuthRegistry } from "../auth/auth";
import { DEVICE_CLIENT_ID } from "../auth/device-flow";
import {
  CSRF_COOKIE,
  csrfCookieHeader,
  csrfField,
  csrfMatches,
  newCsrfSecret,
  PAGE_HEADERS,
  readCookie,
  renderDone,
  renderForm,
} from "../auth/verification-page";
import { HttpError, methodNotAllowed, notFound } from "../http/http-errors";
import { parseParams, readBody } from "../http/request-input";
import { formatWait, verifySignIn } from "./auth-handlers";
import type { Reply, ServerState } from "./reply";

const DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";
const ENDPOINTS =
  "POST /oidc/device/auth, POST /oidc/token, POST /oidc/revoke, GET|POST /oidc/device (the verification page)";

/** An OAuth error answer (RFC 6749 section 5.2): `{error, error_description}`, never cached. */
function oauthError(error: string, description: string, status = 400): Reply {
  return { status, body: { error, error_description: description }, headers: { Pragma: "no-cache" } };
}

export function html(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return { status, body: undefined, json: Buffer.from(body), headers: { ...PAGE_HEADERS, ...headers } };
}

/** A form body (`application/x-www-form-urlencoded`), as OAuth requires; a duplicate field is refused. */
export async function readForm(req: IncomingMessage): Promise<Map<string, string> | Reply> {
  const [mediaType = ""] = String(req.headers["content-type"] ?? "").split(";");
  const type = mediaType.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    return oauthError(
      "invalid_request",
      "Send the parameters as a form: Content-Type application/x-www-form-urlencoded.",
    );
  }
  try {
    return parseParams(await readBody(req), "form");
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) return oauthError("invalid_request", error.message);
    throw error;
  }
}

/**
 * The origin this request reached, for the verification URIs: its `Host` when that is a plain
 * host and port, else the address the connection came in on. Plain `http`: `matframe serve`
 * speaks no TLS (behind a TLS proxy the page still works, at the address the proxy answers).
 */
function requestOrigin(req: IncomingMessage): string {
  const host = req.headers.host;
  if (typeof host === "string" && /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/.test(host))
    return `http://${host}`;
  const local = req.socket.localAddress ?? "127.0.0.1";
  return `http://${local.includes(":") ? `[${local}]` : local}:${req.socket.localPort}`;
}

/** POST /oidc/device/auth: a new device grant (RFC 8628 section 3.2). */
async function deviceAuthorization(req: IncomingMessage, state: ServerState): Promise<Reply> {
  const form = await readForm(req);
  if (!(form instanceof Map)) return form;
  if (form.get("client_id") !== DEVICE_CLIENT_ID) {
    return oauthError("invalid_client", `Unknown client_id; the device flow's client is "${DEVICE_CLIENT_ID}".`, 401);
  }
  const { flow } = state.oidc;
  const { deviceCode, userCode } = flow.start(req.socket.remoteAddress ?? "unknown");
  const verificationUri = `${requestOrigin(req)}/oidc/device`;
  return {
    status: 200,
    body: {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${userCode}`,
      expires_in: flow.expiresInSeconds,
      interval: flow.intervalSeconds,
    },
  };
}

/**
 * The token answer: a Bearer access token (a session, as POST /login opens) and its refresh
 * token. A refresh names the session it renews, which ends: a refresh replaces, never adds.
 */
function tokens(state: ServerState, accountId: string, renewedSessionId?: string): Reply {
  const { authToken, sessionId } = state.auth.rotateSession(accountId, renewedSessionId);
  return {
    status: 200,
    body: {
      access_token: authToken,
      token_type: "Bearer",
      expires_in: AuthRegistry.sessionTtlSeconds,
      refresh_token: state.oidc.flow.issueRefreshToken(accountId, sessionId),
      scope: "openid profile email",
    },
    headers: { Pragma: "no-cache" },
  };
}

/** POST /oidc/token: the device code's poll (RFC 8628 section 3.4) or a refresh (RFC 6749 section 6). */
async function token(req: IncomingMessage, state: ServerState): Promise<Reply> {
  const form = await readForm(req);
  if (!(form instanceof Map)) return form;
  if (form.get("client_id") !== DEVICE_CLIENT_ID) {
    return oauthError("invalid_client", `Unknown client_id; the device flow's client is "${DEVICE_CLIENT_ID}".`, 401);
  }
  const grantType = form.get("grant_type");
  if (grantType === DEVICE_GRANT_TYPE) {
    const deviceCode = form.get("device_code");
    if (!deviceCode)
      return oauthError("invalid_request", "device_code is missing: send the one POST /oidc/device/auth returned.");
    const outcome = state.oidc.flow.poll(deviceCode);
    switch (outcome.kind) {
      case "approved":
        return tokens(state, outcome.accountId);
      case "authorization_pending":
        return oauthError("authorization_pending", "The code has not been approved yet; keep polling at the interval.");
      case "slow_down":
        return oauthError(
          "slow_down",
          "Polled sooner than the interval; wait 5 seconds longer between polls from now on.",
        );
      case "access_denied":
        return oauthError("access_denied", "The person at the verification page denied the request.");
      case "expired_token":
        return oauthError("expired_token", "The device code has expired; start again with POST /oidc/device/auth.");
      case "invalid_grant":
        return oauthError(
          "invalid_grant",
          "Unknown or already used device_code; start again with POST /oidc/device/auth.",
        );
    }
  }
  if (grantType === "refresh_token") {
    const refreshToken = form.get("refresh_token");
    if (!refreshToken) return oauthError("invalid_request", "refresh_token is missing.");
    const renewed = state.oidc.flow.redeemRefreshToken(refreshToken);
    if (renewed === undefined) {
      return oauthError(
        "invalid_grant",
        "The refresh token is unknown, used already or expired (a restart of the server ends them); sign in again.",
      );
    }
    return tokens(state, renewed.accountId, renewed.sessionId);
  }
  return oauthError("unsupported_grant_type", `grant_type must be "${DEVICE_GRANT_TYPE}" or "refresh_token".`);
}

/**
 * POST /oidc/revoke (RFC 7009): ends a refresh token, or the session of an access token. Any
 * token, known or not, is answered 200 (section 2.2), so the answer tells nothing about tokens.
 */
async function revoke(req: IncomingMessage, state: ServerState): Promise<Reply> {
  const form = await readForm(req);
  if (!(form instanceof Map)) return form;
  if (form.get("client_id") !== DEVICE_CLIENT_ID) {
    return oauthError("invalid_client", `Unknown client_id; the device flow's client is "${DEVICE_CLIENT_ID}".`, 401);
  }
  const revoked = form.get("token");
  if (!revoked) return oauthError("invalid_request", "token is missing: send the refresh or access token to revoke.");
  // A refresh token's access token goes with it (RFC 7009 section 2.1 allows it): a revoked
  // sign-in leaves nothing behind that still works.
  const refresh = state.oidc.flow.redeemRefreshToken(revoked);
  if (refresh !== undefined) state.auth.endSession(refresh.accountId, refresh.sessionId);
  else state.auth.logout(undefined, revoked);
  return { status: 200, body: {} };
}

/** The verification page's CSRF pair: the browser's cookie (a new one when it has none) and the form field. */
function csrfFor(req: IncomingMessage, state: ServerState): { cookie: string; field: string; setCookie?: string } {
  const existing = readCookie(req.headers.cookie, CSRF_COOKIE);
  const cookie = existing && /^[A-Za-z0-9_-]{32}$/.test(existing) ? existing : newCsrfSecret();
  return {
    cookie,
    field: csrfField(state.oidc.csrfKey, cookie),
    ...(cookie === existing ? {} : { setCookie: csrfCookieHeader(cookie, false) }),
  };
}

function form(
  req: IncomingMessage,
  state: ServerState,
  status: number,
  view: { userCode: string; username?: string; error?: string },
  headers: Record<string, string> = {},
): Reply {
  const csrf = csrfFor(req, state);
  return html(status, renderForm({ ...view, csrf: csrf.field }), {
    ...headers,
    ...(csrf.setCookie ? { "Set-Cookie": csrf.setCookie } : {}),
  });
}

/** Whether a POST came from this server's own page: a cross-site form or script is refused. */
export function sameOrigin(req: IncomingMessage): boolean {
  if (req.headers["sec-fetch-site"] === "cross-site") return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/**
 * POST /oidc/device: the person's answer. Approve and deny both need the person signed in (else
 * anyone who sees or guesses a code could cancel the sign-in it stands for), checked, logged and
 * announced as POST /login checks them; wrong codes are counted per address and answered 429
 * past the limit, before anything about the code is looked at.
 */
async function answer(req: IncomingMessage, state: ServerState): Promise<Reply> {
  const fields = await readForm(req);
  if (!(fields instanceof Map))
    return form(req, state, 400, {
      userCode: "",
      error: "The answer was not sent as a form; load this page again and use its buttons.",
    });
  const userCode = (fields.get("user_code") ?? "").slice(0, 64);
  const address = req.socket.remoteAddress ?? "unknown";
  const wait = state.oidc.codeAttempts.retryAfterSeconds(address);
  if (wait > 0) {
    state.log(`device page refused from ${address}: too many wrong codes, for ${formatWait(wait)} more`);
    return form(
      req,
      state,
      429,
      {
        userCode,
        error: `Too many wrong codes from this address; try again in ${formatWait(wait)}. Check the code your device shows.`,
      },
      { "Retry-After": String(wait) },
    );
  }
  if (
    !sameOrigin(req) ||
    !csrfMatches(state.oidc.csrfKey, readCookie(req.headers.cookie, CSRF_COOKIE), fields.get("csrf"))
  ) {
    return form(req, state, 403, {
      userCode,
      error: "This form expired or came from another site. Check the code and try again.",
    });
  }
  if (!state.oidc.flow.isPending(userCode)) {
    state.oidc.codeAttempts.recordWrong(address);
    return form(req, state, 400, {
      userCode,
      error: "This code is unknown, expired or already answered. Start the sign-in on your device again.",
    });
  }
  const username = fields.get("username") ?? "";
  const password = fields.get("password") ?? "";
  const shownName = username.slice(0, 256);
  const approve = fields.get("action") !== "deny";
  if (username === "" || password === "") {
    return form(req, state, 400, {
      userCode,
      username: shownName,
      error: `Enter your username and password to ${approve ? "approve" : "deny"} this device.`,
    });
  }
  let accountId: string;
  try {
    accountId = await verifySignIn(state, username, password, address);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return form(req, state, error.status, { userCode, username: shownName, error: error.message }, error.headers);
  }
  if (!state.oidc.flow.answer(userCode, approve ? { approve: true, accountId } : { approve: false })) {
    return form(req, state, 400, {
      userCode,
      error: "This code expired or was answered meanwhile. Start the sign-in on your device again.",
    });
  }
  return html(200, renderDone(approve));
}

/** Dispatches `/oidc/...` (the segments after `oidc`). */
export async function routeOidc(
  req: IncomingMessage,
  rest: string[],
  method: string,
  search: string,
  state: ServerState,
): Promise<Reply> {
  const path = `/oidc/${rest.join("/")}`;
  const allow = (...methods: string[]) => {
    if (!methods.includes(method)) throw methodNotAllowed(method, path, methods);
  };
  if (rest.length === 2 && rest[0] === "device" && rest[1] === "auth") {
    allow("POST");
    return deviceAuthorization(req, state);
  }
  if (rest.length === 1 && rest[0] === "token") {
    allow("POST");
    return token(req, state);
  }
  if (rest.length === 1 && rest[0] === "revoke") {
    allow("POST");
    return revoke(req, state);
  }
  if (rest.length === 1 && rest[0] === "device") {
    allow("GET", "POST");
    if (method === "POST") return answer(req, state);
    let userCode = "";
    try {
      userCode = (parseParams(search, "query string").get("user_code") ?? "").slice(0, 64);
    } catch {
      // A malformed link still gets the form, with the code to type in.
    }
    return form(req, state, 200, { userCode });
  }
  throw notFound(`Unknown endpoint ${path.slice(0, 200)}. The sign-in endpoints: ${ENDPOINTS}.`);
}
