import { ACCOUNT_ID_HEADER, AUTH_TOKEN_HEADER, LoginResult, type MaterialRecord } from "../schemas";
import { Collection, type PlatformRecord } from "./collection";
import { AuthenticationError, ClientClosedError, ResponseValidationError, ValidationError } from "../errors";
import { jsendData } from "./jsend";
import type { ClientOptions, LoginOptions, TransportSettings } from "./options";
import type { ResponseCheck } from "./response-checks";
import { Transport } from "./transport";
import { checkHeaderSecret, checkSecretString, resolveTransportSettings } from "./validate-options";

/** Options of `Client.fromEnv`; anything given here wins over the environment. */
export type FromEnvOptions = Partial<ClientOptions & LoginOptions>;

/** `client.getData(path, options)`. */
export interface GetDataOptions<T> {
  /** Query-string parameters (values are sent as given; JSON-encode them first where the API wants JSON). */
  search?: Record<string, string>;
  /** Aborts this request. */
  signal?: AbortSignal;
  /** Checks the JSend `data`; a failure becomes a `ResponseValidationError`. */
  check?: ResponseCheck<T>;
}

type State = "open" | "logged-out" | "closed";

/**
 * A logged-in connection to the platform API (or to `matframe serve`). Its collections list,
 * iterate, read into DataFrames and export files.
 *
 * @example
 * const client = await Client.login({ baseUrl: "http://127.0.0.1:4000", username: "demo", password: "demo" });
 * for await (const m of client.materials.iterate({ fields: { formula: 1 } })) console.log(m.formula);
 * const df = await client.materials.toDataFrame({ columns: ["formula", "lattice.a"] });
 * await client.logout();
 */
export class Client {
  /** The normalised versioned base, e.g. `http://127.0.0.1:4000/api/2018-10-01`. */
  readonly baseUrl: string;
  /** The account the client acts for (sent as `X-Account-Id`). */
  readonly accountId: string;
  // Private fields: the token stays out of util.inspect, console.log and JSON.stringify.
  readonly #authToken: string;
  readonly #transport: Transport;
  #state: State = "open";

  constructor(options: ClientOptions) {
    if (options === null || typeof options !== "object") {
      throw new ValidationError("options", "new Client(options) needs { baseUrl, accountId, authToken }.");
    }
    checkHeaderSecret("accountId", options.accountId, "it is the X-Account-Id of a login result or of the account preferences.");
    checkHeaderSecret("authToken", options.authToken, "it is the X-Auth-Token of a login result or of the account preferences.");
    const settings = resolveTransportSettings(options);
    this.baseUrl = settings.baseUrl.href;
    this.accountId = options.accountId;
    this.#authToken = options.authToken;
    this.#transport = new Transport(settings);
  }

  /**
   * Logs in with a username and password (`POST /login`, form body) and returns a client of
   * a client. A wrong password throws `AuthenticationError`.
   * @example const client = await Client.login({ baseUrl: "http://127.0.0.1:4000", username: "demo", password: "demo" });
   */
  static login(options: LoginOptions): Promise<Client> {
    return login(options);
  }

  /**
   * A client from the environment: `MATFRAME_BASE_URL`, and either `MATFRAME_ACCOUNT_ID` +
   * `MATFRAME_AUTH_TOKEN` (used as they are) or `MATFRAME_USERNAME` + `MATFRAME_PASSWORD`
   * (which log in). `overrides` win over the environment.
   * @example const client = await Client.fromEnv({ timeout: 60_000 });
   */
  static async fromEnv(overrides: FromEnvOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<Client> {
    const read = (key: keyof FromEnvOptions, variable: string): string | undefined =>
      (overrides[key] as string | undefined) || env[variable] || undefined;
    const baseUrl = read("baseUrl", "MATFRAME_BASE_URL");
    if (!baseUrl) {
      throw new ValidationError("MATFRAME_BASE_URL", `Set MATFRAME_BASE_URL to the platform's address (e.g. "http://127.0.0.1:4000"), or pass baseUrl.`);
    }
    const { username: _u, password: _p, accountId: _a, authToken: _t, ...settings } = overrides;
    const accountId = read("accountId", "MATFRAME_ACCOUNT_ID");
    const authToken = read("authToken", "MATFRAME_AUTH_TOKEN");
    const username = read("username", "MATFRAME_USERNAME");
    const password = read("password", "MATFRAME_PASSWORD");
    if (accountId && authToken) return new Client({ ...settings, baseUrl, accountId, authToken });
    if (username && password) return login({ ...settings, baseUrl, username, password });
    const half = accountId || authToken ? "MATFRAME_ACCOUNT_ID and MATFRAME_AUTH_TOKEN must both be set. " : username || password ? "MATFRAME_USERNAME and MATFRAME_PASSWORD must both be set. " : "";
    throw new ValidationError(
      "credentials",
      `${half}Set MATFRAME_ACCOUNT_ID and MATFRAME_AUTH_TOKEN (from the account preferences), or MATFRAME_USERNAME and MATFRAME_PASSWORD.`,
    );
  }

  /**
   * A collection that supports the list action, e.g. `client.collection("workflows")`. Its
   * records are typed `R` (plain objects with a string `_id` unless you say otherwise).
   * @example const jobs = client.collection<{ _id: string; name: string; status: string }>("jobs");
   */
  collection<R extends PlatformRecord = PlatformRecord>(name: string): Collection<R> {
    return new Collection<R>(this, name);
  }

  /** The `materials` collection, its records typed as the platform's material records. */
  get materials(): Collection<MaterialRecord> {
    return new Collection<MaterialRecord>(this, "materials");
  }

  /**
   * Pages in flight for walks that leave `concurrency` out: 3 on this machine, 6 over a network.
   * @internal
   */
  get defaultConcurrency(): number {
    return this.#transport.defaultConcurrency;
  }

  /**
   * Low level: an authenticated `GET {baseUrl}/{path}` with retries, returning the JSend `data`
   * (checked by `check` when given). `collection()` covers the documented endpoints.
   */
  async getData<T = unknown>(path: string, options: GetDataOptions<T> = {}): Promise<T> {
    this.#assertOpen(path);
    const res = await this.#transport.send({
      method: "GET",
      path,
      search: options.search,
      signal: options.signal,
      headers: { [ACCOUNT_ID_HEADER]: this.accountId, [AUTH_TOKEN_HEADER]: this.#authToken },
      secrets: [this.#authToken],
      cacheScope: this.accountId,
    });
    const data = jsendData(res, [this.#authToken]);
    if (!options.check) return data as T;
    const checked = options.check(data);
    if (checked.ok) return checked.value;
    const first = checked.issues[0];
    const where = first && first.path.length ? ` at ${first.path.map(String).join(".")}` : "";
    throw new ResponseValidationError(
      `${res.endpoint} answered ${res.status} with data of an unexpected shape${where}: ${first?.message ?? "invalid"}.`,
      { endpoint: res.endpoint, status: res.status, issues: checked.issues },
    );
  }

  /**
   * Logs out (`GET /logout`), revoking the token, and closes the connections. The client then
   * refuses further requests. A token the server already refused counts as logged out.
   */
  async logout(options: { signal?: AbortSignal } = {}): Promise<void> {
    try {
      await this.getData("logout", { signal: options.signal });
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
    }
    this.#state = "logged-out";
    await this.#transport.close();
  }

  /** Closes the connections (waiting for requests in flight); the token stays valid. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#state === "open") this.#state = "closed";
    await this.#transport.close();
  }

  #assertOpen(path: string): void {
    if (this.#state === "open") return;
    const what = this.#transport.endpoint("GET", path);
    throw new ClientClosedError(
      this.#state === "logged-out"
        ? `Cannot send ${what}: this client has logged out, which revoked its token. Log in again (Client.login) to make more requests.`
        : `Cannot send ${what}: this client is closed. Create a new client (Client.login or new Client) to make more requests.`,
    );
  }
}

async function login(options: LoginOptions): Promise<Client> {
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
    return new Client({ ...settings, accountId: parsed.data.accountId, authToken: parsed.data.authToken });
  } finally {
    // The login pool is not handed to the client: one extra connection setup is cheaper than shared ownership.
    await transport.close();
  }
}
