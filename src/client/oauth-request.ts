// One OAuth request (a form POST answered with JSON, RFC 6749 section 4), as the device flow
// sends them: outside the versioned API, so not through the client's Transport, but through the
// same proxies from the environment. Secrets given never reach a message.
import type { Dispatcher } from "undici";
import { AbortError, ConnectionError, DeviceLoginError, ResponseValidationError, TimeoutError } from "../errors";
import { loadUndici } from "./transport/dispatcher";
import { proxyEnvironmentFor } from "./transport/proxy";
import { redact } from "./transport/redact";

/** An OAuth endpoint's answer: its status and JSON object body (undefined when not one). */
export interface Answer {
  status: number;
  body: Record<string, unknown> | undefined;
  endpoint: string;
}

/** One form POST, answered with JSON; secrets in `secrets` never reach a message. */
export async function postForm(
  url: string,
  form: Record<string, string>,
  o: { signal?: AbortSignal; timeout?: number },
  dispatcher: Dispatcher | undefined,
  secrets: readonly string[],
): Promise<Answer> {
  const endpoint = `POST ${new URL(url).pathname}`;
  const timeout = o.timeout ?? 30_000;
  const timer = AbortSignal.timeout(timeout);
  const signal = o.signal ? AbortSignal.any([o.signal, timer]) : timer;
  try {
    const res = await loadUndici().request(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(form).toString(),
      signal,
      ...(dispatcher ? { dispatcher } : {}),
    });
    const text = await res.body.text();
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
        body = parsed as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, body, endpoint };
  } catch (error) {
    if (o.signal?.aborted)
      throw new AbortError(`The device sign-in was aborted (${endpoint}).`, endpoint, { cause: o.signal.reason });
    if (timer.aborted)
      throw new TimeoutError(
        `${endpoint} did not answer within ${timeout} ms; check the platform's address and try again.`,
        endpoint,
        timeout,
      );
    const reason = redact(error instanceof Error ? error.message : String(error), secrets);
    throw new ConnectionError(
      `Cannot reach ${endpoint} (${reason}); check that the platform's address is right and it is running.`,
      endpoint,
    );
  }
}

export function oauthFailure(answer: Answer, what: string): DeviceLoginError | ResponseValidationError {
  const reason = typeof answer.body?.error === "string" ? answer.body.error : undefined;
  if (reason === undefined) {
    return new ResponseValidationError(
      `${answer.endpoint} answered ${answer.status} without an OAuth answer; check that the address is the platform's (it serves /oidc).`,
      {
        endpoint: answer.endpoint,
        status: answer.status,
        issues: [{ code: "custom", path: [], message: "Not an OAuth response" }],
      },
    );
  }
  // The platform's own description, cut short; it never holds a token (the codes are ours to keep).
  const said =
    typeof answer.body?.error_description === "string" ? answer.body.error_description.slice(0, 300) : undefined;
  const advice: Record<string, string> = {
    access_denied: "The sign-in was denied at the verification page.",
    expired_token: "Nobody approved the code in time; sign in again.",
    invalid_grant: "The code or refresh token is used up, unknown or expired; sign in again.",
    invalid_client: "The platform does not know this client id.",
  };
  return new DeviceLoginError(
    `${what} failed: ${answer.endpoint} answered ${answer.status} "${reason}"${said ? ` ("${said}")` : ""}. ${advice[reason] ?? "Sign in again."}`,
    { status: answer.status, endpoint: answer.endpoint, serverMessage: said, oauthError: reason },
  );
}

/**
 * Runs `work` with a proxy agent from the environment for requests to `root`, or with none
 * (undici's default) when no proxy is set or `root` is this machine, which is reached directly
 * whatever the variables say, as the client's own requests are.
 */
export function withDispatcher<T>(root: string, work: (dispatcher: Dispatcher | undefined) => Promise<T>): Promise<T> {
  const proxy = proxyEnvironmentFor(root);
  const dispatcher = proxy
    ? new (loadUndici().EnvHttpProxyAgent)({
        httpProxy: proxy.httpProxy ?? "",
        httpsProxy: proxy.httpsProxy ?? "",
        noProxy: proxy.noProxy ?? "",
      })
    : undefined;
  return work(dispatcher).finally(() => dispatcher?.close());
}
