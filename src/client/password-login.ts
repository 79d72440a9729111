// The password login of `Client.login`: one request on a pool of its own, whose answer is checked
// before anything is made of it (a login answer may hold a token, so no message quotes it).
import { LoginResult } from "../schemas";
import { ResponseValidationError, ValidationError } from "../errors";
import type { LoginOptions, TransportSettings } from "./config/options";
import { checkSecretString, resolveTransportSettings } from "./config/validate-options";
import { Transport } from "./transport/transport";

/**
 * `POST /login` with a username and password, on a connection of its own: the account id and
 * token the platform answers. `Client.login` makes the client from them.
 */
export async function passwordLogin(
  options: LoginOptions,
  loginSignal?: AbortSignal,
): Promise<{ accountId: string; authToken: string }> {
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
    return { accountId: parsed.data.accountId, authToken: parsed.data.authToken };
  } finally {
    // The login pool is not handed to the client: one extra connection setup is cheaper than shared ownership.
    await transport.close();
  }
}
