// Signing in through the platform's OIDC device flow (RFC 8628), as its notebooks do: ask for a
// code, show the person where to approve it, poll the token endpoint at the interval given, and
// refresh the access token later with the refresh token (RFC 6749 section 6).
import {
  AbortError,
  ConnectionError,
  DeviceLoginError,
  ResponseValidationError,
  TimeoutError,
  ValidationError,
} from "../errors";
import { normaliseBaseUrl } from "./config/validate-options";
import { loadUndici } from "./transport/dispatcher";
import { oauthFailure, postForm, withDispatcher, type Answer } from "./oauth-request";
import { redact } from "./transport/redact";
import { sleep } from "./transport/retry";

/** The platform's device-flow client (`CLIENT_ID` of its Python client). */
export const DEVICE_CLIENT_ID = "cli-device-client";
/** The scopes the platform's notebooks ask for. */
export const DEVICE_SCOPE = "openid profile email";
const DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";
/** RFC 8628 section 3.5: each `slow_down` adds five seconds to the interval, for good. */
const SLOW_DOWN_SECONDS = 5;

/** The platform's root (a reverse proxy's path prefix kept), for paths outside the versioned API. */
export function platformRoot(baseUrl: string): string {
  const url = normaliseBaseUrl(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/api\/[^/]+\/?$/, "")}`;
}

/** What the person has to do, as `onCode` receives it. */
export interface DevicePrompt {
  /** The page where the person signs in and types the code. */
  readonly verificationUri: string;
  /** The same page with the code filled in (open it in a browser), when the platform gives one. */
  readonly verificationUriComplete?: string;
  /** The code to compare with (or type into) the page, e.g. `BCDF-GHJK`. */
  readonly userCode: string;
  /** Seconds until the code expires. */
  readonly expiresInSeconds: number;
}

/** The tokens a device sign-in or a refresh returns. Never print them. */
export interface DeviceTokens {
  /** Sent as `Authorization: Bearer`. */
  readonly accessToken: string;
  /** Exchanged for a new access token by {@link refreshDeviceTokens}; replaced at each use. */
  readonly refreshToken?: string;
  /** When the access token stops working, when the platform said (`expires_in`). */
  readonly expiresAt?: Date;
}

/** Options of {@link deviceLogin} and {@link refreshDeviceTokens}. */
export interface DeviceRequestOptions {
  /** The platform's address, in any form `new Client` accepts (`https://host`, `.../api/2018-10-01`). */
  baseUrl: string;
  /** Stops the sign-in (waiting or in a request) with an `AbortError`. */
  signal?: AbortSignal;
  /**
   * Milliseconds one request may take.
   * @default 30000
   */
  timeout?: number;
  /** @default "cli-device-client" */
  clientId?: string;
}

/** Options of {@link deviceLogin}. */
export interface DeviceLoginOptions extends DeviceRequestOptions {
  /** Shows the person the page and the code (called once, before polling starts). */
  onCode: (prompt: DevicePrompt) => void;
  /** Told each wait before a poll, in seconds (the interval, lengthened by each `slow_down`). */
  onWait?: (seconds: number) => void;
  /** @default "openid profile email" */
  scope?: string;
}

function tokensFrom(answer: Answer): DeviceTokens {
  const body = answer.body ?? {};
  if (typeof body.access_token !== "string" || body.access_token === "") {
    throw new ResponseValidationError(`${answer.endpoint} answered 200 without an access_token.`, {
      endpoint: answer.endpoint,
      status: answer.status,
      issues: [{ code: "custom", path: ["access_token"], message: "Missing" }],
    });
  }
  const expiresIn = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : undefined;
  return {
    accessToken: body.access_token,
    ...(typeof body.refresh_token === "string" && body.refresh_token !== ""
      ? { refreshToken: body.refresh_token }
      : {}),
    ...(expiresIn !== undefined ? { expiresAt: new Date(Date.now() + expiresIn * 1000) } : {}),
  };
}

function checkCommon(options: DeviceRequestOptions): void {
  if (options === null || typeof options !== "object") throw new ValidationError("options", "Pass { baseUrl, ... }.");
  if (options.timeout !== undefined && !(typeof options.timeout === "number" && options.timeout > 0)) {
    throw new ValidationError("timeout", "timeout is a number of milliseconds above 0.");
  }
}

/**
 * Signs in through the platform's OIDC device flow: asks `/oidc/device/auth` for a code, hands
 * the page and code to `onCode`, then polls `/oidc/token` at the interval the platform gives
 * (longer after each `slow_down`) until the person approves or denies it there, or it expires.
 * @throws DeviceLoginError when denied (`oauthError` `"access_denied"`) or expired (`"expired_token"`);
 *   AbortError when `signal` aborts; ConnectionError, TimeoutError as requests do.
 * @example
 * const tokens = await deviceLogin({
 *   baseUrl: "http://127.0.0.1:4000",
 *   onCode: ({ verificationUriComplete, verificationUri, userCode }) =>
 *     console.log(`Open ${verificationUriComplete ?? verificationUri} and approve ${userCode}`),
 * });
 * const client = new Client({ baseUrl: "http://127.0.0.1:4000", accessToken: tokens.accessToken });
 */
export async function deviceLogin(options: DeviceLoginOptions): Promise<DeviceTokens> {
  checkCommon(options);
  if (typeof options.onCode !== "function")
    throw new ValidationError("onCode", "onCode(prompt) is required: it shows the person the page and the code.");
  const root = platformRoot(options.baseUrl);
  const clientId = options.clientId ?? DEVICE_CLIENT_ID;
  return withDispatcher(root, async (dispatcher) => {
    const started = await postForm(
      `${root}/oidc/device/auth`,
      { client_id: clientId, scope: options.scope ?? DEVICE_SCOPE },
      options,
      dispatcher,
      [],
    );
    if (started.status !== 200) throw oauthFailure(started, "Starting the device sign-in");
    const body = started.body ?? {};
    const deviceCode = body.device_code;
    if (
      typeof deviceCode !== "string" ||
      typeof body.user_code !== "string" ||
      typeof body.verification_uri !== "string"
    ) {
      throw new ResponseValidationError(
        `${started.endpoint} answered without device_code, user_code and verification_uri.`,
        {
          endpoint: started.endpoint,
          status: started.status,
          issues: [{ code: "custom", path: [], message: "Not a device authorization response" }],
        },
      );
    }
    const expiresIn = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 600;
    const deadline = Date.now() + expiresIn * 1000;
    let interval = typeof body.interval === "number" && body.interval >= 0 ? body.interval : 5;
    options.onCode({
      verificationUri: body.verification_uri,
      ...(typeof body.verification_uri_complete === "string"
        ? { verificationUriComplete: body.verification_uri_complete }
        : {}),
      userCode: body.user_code,
      expiresInSeconds: expiresIn,
    });
    const form = { grant_type: DEVICE_GRANT_TYPE, device_code: deviceCode, client_id: clientId };
    for (;;) {
      options.onWait?.(interval);
      try {
        await sleep(interval * 1000, options.signal);
      } catch (reason) {
        throw new AbortError("The device sign-in was aborted while waiting for approval.", undefined, {
          cause: reason,
        });
      }
      const answer = await postForm(`${root}/oidc/token`, form, options, dispatcher, [deviceCode]);
      if (answer.status === 200) return tokensFrom(answer);
      const reason = answer.body?.error;
      if (reason === "slow_down") interval += SLOW_DOWN_SECONDS;
      else if (reason !== "authorization_pending") throw oauthFailure(answer, "The device sign-in");
      if (Date.now() >= deadline) {
        throw new DeviceLoginError(
          `The device sign-in expired: nobody approved code ${body.user_code} within ${expiresIn} s. Sign in again.`,
          {
            status: answer.status,
            endpoint: answer.endpoint,
            oauthError: "expired_token",
          },
        );
      }
    }
  });
}

/**
 * A new access token (and refresh token: the old one is used up) for a refresh token from
 * {@link deviceLogin}.
 * @throws DeviceLoginError with `oauthError` `"invalid_grant"` when the refresh token is used up,
 *   unknown or expired: sign in again.
 */
export async function refreshDeviceTokens(
  options: DeviceRequestOptions & { refreshToken: string },
): Promise<DeviceTokens> {
  checkCommon(options);
  if (typeof options.refreshToken !== "string" || options.refreshToken === "")
    throw new ValidationError("refreshToken", "refreshToken is the refresh token a device sign-in returned.");
  const root = platformRoot(options.baseUrl);
  return withDispatcher(root, async (dispatcher) => {
    const form = {
      grant_type: "refresh_token",
      refresh_token: options.refreshToken,
      client_id: options.clientId ?? DEVICE_CLIENT_ID,
    };
    const answer = await postForm(`${root}/oidc/token`, form, options, dispatcher, [options.refreshToken]);
    if (answer.status !== 200) throw oauthFailure(answer, "Refreshing the access token");
    return tokensFrom(answer);
  });
}

/** The signed-in user and their default account, as the platform's user service (`/api/v1/users/me`) says. */
export interface SignedInUser {
  readonly username?: string;
  /** The account records are read and written as (`user.entity.defaultAccountId`). */
  readonly accountId: string;
}

/**
 * Who an access token signs in as: `GET /api/v1/users/me`, which the platform's Python client
 * reads for `APIClient.my_account`.
 */
export async function signedInUser(options: DeviceRequestOptions & { accessToken: string }): Promise<SignedInUser> {
  checkCommon(options);
  const url = `${platformRoot(options.baseUrl)}/api/v1/users/me`;
  const endpoint = `GET ${new URL(url).pathname}`;
  const timeout = options.timeout ?? 30_000;
  const timer = AbortSignal.timeout(timeout);
  return withDispatcher(url, async (dispatcher) => {
    let status: number;
    let text: string;
    try {
      const res = await loadUndici().request(url, {
        headers: { authorization: `Bearer ${options.accessToken}`, accept: "application/json" },
        signal: options.signal ? AbortSignal.any([options.signal, timer]) : timer,
        ...(dispatcher ? { dispatcher } : {}),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (error) {
      if (options.signal?.aborted)
        throw new AbortError(`The request was aborted (${endpoint}).`, endpoint, { cause: options.signal.reason });
      if (timer.aborted) throw new TimeoutError(`${endpoint} did not answer within ${timeout} ms.`, endpoint, timeout);
      throw new ConnectionError(
        `Cannot reach ${endpoint} (${redact(error instanceof Error ? error.message : String(error), [options.accessToken])}).`,
        endpoint,
      );
    }
    let data: { user?: { entity?: { username?: unknown; defaultAccountId?: unknown } } } | undefined;
    try {
      data = (JSON.parse(text) as { data?: typeof data }).data;
    } catch {
      data = undefined;
    }
    const accountId = data?.user?.entity?.defaultAccountId;
    if (status !== 200 || typeof accountId !== "string") {
      throw new ResponseValidationError(
        `${endpoint} answered ${status} without the user's defaultAccountId; the token may not be valid there.`,
        {
          endpoint,
          status,
          issues: [{ code: "custom", path: ["data", "user", "entity", "defaultAccountId"], message: "Missing" }],
        },
      );
    }
    const username = data?.user?.entity?.username;
    return { accountId, ...(typeof username === "string" ? { username } : {}) };
  });
}

/** A device sign-in's tokens as a saved profile keeps them (`authToken` is the access token). */
export function savedDeviceTokens(tokens: DeviceTokens): {
  authToken: string;
  tokenType: "bearer";
  refreshToken: string | undefined;
  expiresAt: string | undefined;
} {
  return {
    authToken: tokens.accessToken,
    tokenType: "bearer",
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt?.toISOString(),
  };
}

/**
 * Revokes a refresh token (or an access token) at the platform (`/oidc/revoke`, RFC 7009), as
 * `matframe logout` does for a device sign-in.
 */
export async function revokeDeviceToken(options: DeviceRequestOptions & { token: string }): Promise<void> {
  checkCommon(options);
  if (typeof options.token !== "string" || options.token === "")
    throw new ValidationError("token", "token is the refresh or access token to revoke.");
  const root = platformRoot(options.baseUrl);
  await withDispatcher(root, async (dispatcher) => {
    const answer = await postForm(
      `${root}/oidc/revoke`,
      { token: options.token, client_id: options.clientId ?? DEVICE_CLIENT_ID },
      options,
      dispatcher,
      [options.token],
    );
    if (answer.status !== 200) throw oauthFailure(answer, "Revoking the token");
  });
}
