import { createHash } from "node:crypto";
import {
  ACCOUNT_ID_HEADER,
  AUTH_TOKEN_HEADER,
  type MaterialRecord,
  type ProjectRecord,
  type PropertyRecord,
  type WorkflowRecord,
} from "../schemas";
import { Collection } from "./collection";
import { JobsCollection, MaterialsCollection, WorkflowsCollection } from "./collections";
import type { PlatformRecord } from "./platform-record";
import type { Connection, GetDataOptions } from "./connection";
import { AuthenticationError, ClientClosedError, ResponseValidationError, ValidationError } from "../errors";
import { jsendData } from "./transport/jsend";
import type { ClientOptions, LoginOptions, TransportSettings } from "./config/options";
import { Transport } from "./transport/transport";
import { checkHeaderSecret, resolveTransportSettings } from "./config/validate-options";
import { resolvePlatform, type PlatformCredentials, type ResolvedPlatform } from "./config/platform-source";
import { credentialsPath, DEFAULT_PROFILE, readProfile, saveProfile } from "./config/profile";
import { refreshDeviceTokens, savedDeviceTokens } from "./device-login";
import { passwordLogin } from "./password-login";
import { attachInternals, type ClientInternals, type ReadOptions, type WriteDataOptions } from "./client-internals";

/** Options of `Client.fromEnv`; anything given here wins over the environment. */
export type FromEnvOptions = Partial<ClientOptions & LoginOptions>;

export type { GetDataOptions } from "./connection";

type State = "open" | "logged-out" | "closed";

// The transport of a password login, handed to the one `new Client` that `login` makes next (the
// constructor runs synchronously, so no other construction can take it): the client takes the
// login's connections over without a constructor overload in its public declarations.
let loginTransport: Transport | undefined;

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
export class Client implements Connection {
  /** The normalised versioned base, e.g. `http://127.0.0.1:4000/api/2018-10-01`. */
  readonly baseUrl: string;
  /** The account the client acts for (sent as `X-Account-Id`); undefined with a Bearer `accessToken` that came without one. */
  readonly accountId: string | undefined;
  // Private fields: the token stays out of util.inspect, console.log and JSON.stringify.
  readonly #authToken: string;
  readonly #bearer: boolean;
  readonly #transport: Transport;
  #state: State = "open";

  constructor(options: ClientOptions) {
    const transport = loginTransport;
    loginTransport = undefined;
    if (options === null || typeof options !== "object") {
      throw new ValidationError(
        "options",
        "new Client(options) needs { baseUrl, accountId, authToken } or { baseUrl, accessToken }.",
      );
    }
    if (options.accessToken !== undefined) {
      if (options.authToken !== undefined) {
        throw new ValidationError(
          "accessToken",
          "Give accessToken (sent as Authorization: Bearer) or accountId with authToken, not both.",
        );
      }
      checkHeaderSecret(
        "accessToken",
        options.accessToken,
        "it is an OIDC access token (OIDC_ACCESS_TOKEN), or a token from a login.",
      );
      if (options.accountId !== undefined)
        checkHeaderSecret("accountId", options.accountId, "it is the account the access token belongs to.");
    } else {
      checkHeaderSecret(
        "accountId",
        options.accountId,
        "it is the X-Account-Id of a login result or of the account preferences.",
      );
      checkHeaderSecret(
        "authToken",
        options.authToken,
        "it is the X-Auth-Token of a login result or of the account preferences.",
      );
    }
    const settings = resolveTransportSettings(options);
    this.baseUrl = settings.baseUrl.href;
    this.accountId = options.accountId;
    this.#bearer = options.accessToken !== undefined;
    this.#authToken = (options.accessToken ?? options.authToken)!;
    this.#transport = transport ?? new Transport(settings);
    attachInternals(this, this.#internals());
  }

  /** The authentication headers: the Bearer token, or the id/token pair. */
  #authHeaders(): Record<string, string> {
    return this.#bearer
      ? { authorization: `Bearer ${this.#authToken}` }
      : { [ACCOUNT_ID_HEADER]: this.accountId!, [AUTH_TOKEN_HEADER]: this.#authToken };
  }

  /** Who this client reads as (see `ClientInternals.identity`). */
  #identity(): string {
    return this.accountId ?? `bearer:${createHash("sha256").update(this.#authToken).digest("hex").slice(0, 16)}`;
  }

  /**
   * Logs in with a username and password (`POST /login`, form body); a wrong one throws `AuthenticationError`.
   * @example const client = await Client.login({ baseUrl: "http://127.0.0.1:4000", username: "demo", password: "demo" });
   */
  static login(options: LoginOptions): Promise<Client> {
    return login(options);
  }

  /**
   * A client from the environment, resolved as the CLI does (`overrides` win over all of it):
   * 1. the address: `baseUrl`, else `MATFRAME_BASE_URL`, else the platform's Python client's
   *    `API_HOST` (with `API_PORT`, default 443, `API_SECURE`, default true, and `API_VERSION`);
   * 2. the credentials: `accountId` + `authToken` or `accessToken` or `username` + `password`,
   *    each over its `MATFRAME_*` variable (`MATFRAME_ACCOUNT_ID` + `MATFRAME_AUTH_TOKEN` are used
   *    as they are, `MATFRAME_USERNAME` + `MATFRAME_PASSWORD` log in), then the Python client's
   *    `OIDC_ACCESS_TOKEN` (a Bearer token, with `ACCOUNT_ID` when set) or `ACCOUNT_ID` +
   *    `AUTH_TOKEN`;
   * 3. else the login `matframe login` saved (`profile`, else `MATFRAME_PROFILE`, else
   *    `"default"`) for that address, or for its own when nothing names one.
   * A half setting (an address without credentials, a token without an address, one of a pair)
   * throws a `ValidationError` saying what is missing.
   * @example const client = await Client.fromEnv({ timeout: 60_000 });
   */
  static async fromEnv(
    overrides: FromEnvOptions & { profile?: string } = {},
    env: NodeJS.ProcessEnv = process.env,
  ): Promise<Client> {
    const { username, password, accountId, authToken, accessToken, profile, baseUrl, ...settings } = overrides;
    const resolved = resolvePlatform({ baseUrl, username, password, accountId, authToken, accessToken, profile }, env);
    if (resolved.kind === "none") {
      throw new ValidationError(
        "MATFRAME_BASE_URL",
        `Set MATFRAME_BASE_URL to the platform's address (e.g. "http://127.0.0.1:4000") with its credentials, or API_HOST as the platform's Python client reads it, or pass baseUrl, or run \`matframe login\` once to save a login.`,
      );
    }
    return connectClient(resolved, settings);
  }

  /**
   * A client from a login saved by `matframe login` (`profile`, default `"default"`).
   * @throws ValidationError when there is no such profile; CredentialsFileError when the file is
   *   readable by others or not matframe's.
   * @example const client = Client.fromProfile("work");
   */
  static fromProfile(
    profile: string = DEFAULT_PROFILE,
    settings: Omit<TransportSettings, "baseUrl"> = {},
    env: NodeJS.ProcessEnv = process.env,
  ): Client {
    const saved = readProfile(profile, env);
    if (!saved)
      throw new ValidationError(
        "profile",
        `No saved login named "${profile}" in ${credentialsPath(env)}; run \`matframe login --profile ${profile}\` first.`,
      );
    if (saved.tokenType === "bearer")
      return new Client({
        ...settings,
        baseUrl: saved.baseUrl,
        accountId: saved.accountId,
        accessToken: saved.authToken,
      });
    return new Client({ ...settings, baseUrl: saved.baseUrl, accountId: saved.accountId, authToken: saved.authToken });
  }

  /**
   * A collection that supports the list action, e.g. `client.collection("workflows")`. Its
   * records are typed `R` (plain objects with a string `_id` unless you say otherwise).
   * @example const jobs = client.collection<{ _id: string; name: string; status: string }>("jobs");
   */
  collection<R extends PlatformRecord = PlatformRecord>(name: string): Collection<R> {
    return new Collection<R>(this, name);
  }

  /** The `materials` collection, its records typed as the platform's material records, with sets (`createSet`, `moveToSet`). */
  get materials(): MaterialsCollection {
    return new MaterialsCollection(this, "materials");
  }

  /** The public reference materials (`bank-materials`), read-only; `materials` lists the bundled ones and your own. */
  get bankMaterials(): Collection<MaterialRecord> {
    return new Collection<MaterialRecord>(this, "bank-materials");
  }

  /** The `workflows` collection (subworkflows with their application and model); `copyFromBank` copies a bank workflow. */
  get workflows(): WorkflowsCollection {
    return new WorkflowsCollection(this, "workflows");
  }

  /** The platform's standard workflows (`bank-workflows`), read-only; copy one into your account to change it. */
  get bankWorkflows(): Collection<WorkflowRecord> {
    return new Collection<WorkflowRecord>(this, "bank-workflows");
  }

  /** The `jobs` collection (each embeds its workflow, names its `_material`): `create`, `submit`, `waitFor`, `terminate`, `files`. */
  get jobs(): JobsCollection {
    return new JobsCollection(this, "jobs");
  }

  /** The `projects` collection (each account has a default project). */
  get projects(): Collection<ProjectRecord> {
    return new Collection<ProjectRecord>(this, "projects");
  }

  /** The `properties` collection: results, each naming its job and unit in `source.info`. */
  get properties(): Collection<PropertyRecord> {
    return new Collection<PropertyRecord>(this, "properties");
  }

  /** What matframe's own rooms use of this client (see `client-internals.ts`); made once, in the constructor. */
  #internals(): ClientInternals {
    const transport = this.#transport;
    return {
      identity: this.#identity(),
      get defaultConcurrency() {
        return transport.defaultConcurrency;
      },
      get keepsReads() {
        return transport.keepsReads;
      },
      read: (path, options) => this.#read(path, options),
      writeData: (method, path, options) => this.#writeData(method, path, options),
      measureLink: (signal) =>
        this.#state === "open" ? transport.measureLink({ method: "GET", path: "", signal }) : Promise.resolve(),
      keptBytes: (path, search) => transport.keptBytes({ path, search, cacheScope: this.#identity() }),
      revalidate: (path, search, etag, signal) => {
        this.#assertOpen(path);
        return transport.revalidate(
          { method: "GET", path, search, signal, headers: this.#authHeaders(), cacheScope: this.#identity() },
          etag,
        );
      },
      savedCredentials: () => {
        if (this.#bearer || this.accountId === undefined)
          throw new ValidationError("accessToken", "A client with an OIDC access token has no account token to save.");
        return { baseUrl: this.baseUrl, accountId: this.accountId, authToken: this.#authToken };
      },
    };
  }

  /**
   * Low level: an authenticated `GET {baseUrl}/{path}` with retries, returning the JSend `data`
   * (checked by `check` when given). `collection()` covers the documented endpoints.
   */
  getData<T = unknown>(path: string, options: GetDataOptions<T> = {}): Promise<T> {
    return this.#read(path, options);
  }

  async #read<T>(path: string, options: ReadOptions<T>): Promise<T> {
    this.#assertOpen(path);
    const res = await this.#transport.send({
      method: "GET",
      path,
      search: options.search,
      signal: options.signal,
      headers: this.#authHeaders(),
      secrets: [this.#authToken],
      cacheScope: this.#identity(),
      onReceived: options.onReceived,
    });
    const data = jsendData(res, [this.#authToken]);
    const etag = res.headers.etag;
    options.onValidator?.(typeof etag === "string" && etag !== "" ? etag : undefined);
    if (!options.check) return data as T;
    const checked = options.check(data);
    if (checked.ok) return checked.value;
    const first = checked.issues[0];
    const where = first?.path.length ? ` at ${first.path.map(String).join(".")}` : "";
    throw new ResponseValidationError(
      `${res.endpoint} answered ${res.status} with data of an unexpected shape${where}: ${first?.message ?? "invalid"}.`,
      { endpoint: res.endpoint, status: res.status, issues: checked.issues },
    );
  }

  async #writeData(
    method: "PUT" | "PATCH" | "POST" | "DELETE",
    path: string,
    options: WriteDataOptions = {},
  ): Promise<unknown> {
    this.#assertOpen(path, method);
    const res = await this.#transport.send({
      method,
      path,
      search: options.search,
      signal: options.signal,
      headers: {
        ...this.#authHeaders(),
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      secrets: [this.#authToken],
    });
    return jsendData(res, [this.#authToken]);
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

  #assertOpen(path: string, method = "GET"): void {
    if (this.#state === "open") return;
    const what = this.#transport.endpoint(method, path);
    throw new ClientClosedError(
      this.#state === "logged-out"
        ? `Cannot send ${what}: this client has logged out, which revoked its token. Log in again (Client.login) to make more requests.`
        : `Cannot send ${what}: this client is closed. Create a new client (Client.login or new Client) to make more requests.`,
    );
  }
}

/**
 * A client for a platform `resolvePlatform` chose: its credentials used as they are, or a login
 * (which `loginSignal` aborts, without becoming the client's own signal). `Client.fromEnv` and the
 * CLI connect through it; no entry exports it.
 */
export function connectClient(
  resolved: Extract<ResolvedPlatform, { kind: "platform" }>,
  settings: Omit<TransportSettings, "baseUrl"> = {},
  loginSignal?: AbortSignal,
): Promise<Client> {
  const { baseUrl, credentials } = resolved;
  switch (credentials.kind) {
    case "login":
      return login(
        { ...settings, baseUrl, username: credentials.username, password: credentials.password },
        loginSignal,
      );
    case "bearer":
      if (credentials.refresh && expiresSoon(credentials.refresh.expiresAt))
        return refreshedClient(baseUrl, credentials, settings, loginSignal);
      return Promise.resolve(
        new Client({
          ...settings,
          baseUrl,
          accessToken: credentials.accessToken,
          ...(credentials.accountId ? { accountId: credentials.accountId } : {}),
        }),
      );
    case "token":
      return Promise.resolve(
        new Client({ ...settings, baseUrl, accountId: credentials.accountId, authToken: credentials.authToken }),
      );
  }
}

/** Whether a saved access token has expired or will within a minute (undefined: the platform did not say). */
function expiresSoon(expiresAt: string | undefined): boolean {
  return expiresAt !== undefined && Date.parse(expiresAt) - Date.now() < 60_000;
}

/** A client with a refreshed access token of a saved device sign-in, which is saved again (the old refresh token is used up). */
async function refreshedClient(
  baseUrl: string,
  credentials: Extract<PlatformCredentials, { kind: "bearer" }>,
  settings: Omit<TransportSettings, "baseUrl">,
  signal: AbortSignal | undefined,
): Promise<Client> {
  const { profile, credentialsFile, refreshToken } = credentials.refresh!;
  const tokens = await refreshDeviceTokens({ baseUrl, refreshToken, ...(signal ? { signal } : {}) });
  const env = { MATFRAME_CREDENTIALS_FILE: credentialsFile };
  const saved = readProfile(profile, env);
  saveProfile(profile, { ...saved!, ...savedDeviceTokens(tokens) }, env);
  return new Client({
    ...settings,
    baseUrl,
    accessToken: tokens.accessToken,
    ...(credentials.accountId ? { accountId: credentials.accountId } : {}),
  });
}

async function login(options: LoginOptions, loginSignal?: AbortSignal): Promise<Client> {
  const { accountId, authToken, transport } = await passwordLogin(options, loginSignal);
  const { username: _username, password: _password, ...settings } = options;
  try {
    loginTransport = transport;
    return new Client({ ...settings, accountId, authToken }); // the login's settings are the client's
  } catch (error) {
    await transport.close();
    throw error;
  }
}

// A collection names only the `Connection` it uses, so that it need not import this file; its
// public `client` is typed here, beside the class that makes collections.
declare module "./collection" {
  interface Collection<R extends PlatformRecord = PlatformRecord> {
    /** The client this collection reads and writes through. */
    readonly client: Client;
  }
}
