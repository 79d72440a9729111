// The password login of `Client.login`: one request, whose answer is checked before anything is
// made of it (a login answer may hold a token, so no message quotes it).
import { LoginResult } from "../schemas";
import { ResponseValidationError, ValidationError } from "../errors";
import type { LoginOptions, TransportSettings } from "./config/options";
import { checkSecretString, resolveTransportSettings } from "./config/validate-options";
import { settleIdleConnections } from "./transport/retry";
import { Transport } from "./transport/transport";

/**
 * `POST /login` with a username and password: the account id and token the platform answers,
 * and the transport that carried the login, whose warm connection `Client.login` hands to the
 * client (a new one would cost the client's first request a TCP, and TLS, handshake, and closing
 * this one a round trip). On failure the transport is closed here.
 */
export async function passwordLogin(
  options: LoginOptions,
  loginSignal?: AbortSignal,
): Promise<{ accountId: string; authToken: string; transport: Transport }> {
  if (options === null || typeof options !== "object") {
    throw new ValidationError("options", "login(options) needs { baseUrl, username, password }.");
  }
  checkSecretString("username", options.username, "pass the platform account's username.");
  checkSecretString("password", options.password, "pass the platform account's password.");
  const { username, password, ...settings } = options;
  const transport = new Transport(resolveTransportSettings(settings as TransportSettings));
  try {
    const res = await transport.send({
      method: "POST",
      path: "login",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username, password }).toString(),
      login: true,
      secrets: [password],
      signal: loginSignal,
    });
    const parsed = LoginResult.safeParse(res.body);
    if (!parsed.success) {
      // The message never quotes the body: it may hold a token.
      throw new ResponseValidationError(
        `${res.endpoint} answered ${res.status} without a login result: expected {"X-Account-Id","X-Auth-Token"} ` +
          `or {accountId, authToken}, bare or inside JSend data. Check that baseUrl points at the platform API.`,
        { endpoint: res.endpoint, status: res.status, issues: parsed.error.issues },
      );
    }
    // undici frees the connection a turn of the event loop after its answer was read: a request
    // sent at once would open a second one.
    await settleIdleConnections();
    return { accountId: parsed.data.accountId, authToken: parsed.data.authToken, transport };
  } catch (error) {
    await transport.close();
    throw error;
  }
}
