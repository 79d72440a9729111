// GETs of absolute OPTIMADE URLs over the shared transport (retries, backoff, timeouts, body
// caps): one transport per origin, since an index meta-database and its databases, or a `next`
// link, may live on other hosts.
import type { z } from "zod";
import { ResponseValidationError } from "../../errors";
import type { TransportSettings } from "../config/options";
import { resolveTransportSettings } from "../config/validate-options";
import { Transport } from "../transport/transport";

/** The transport settings an OPTIMADE client passes on (everything but the address). */
export type OptimadeTransportSettings = Omit<TransportSettings, "baseUrl">;

/** GETs JSON from any origin, each through a transport of its own. */
export class OptimadeHttp {
  readonly #settings: OptimadeTransportSettings;
  readonly #transports = new Map<string, Transport>();

  constructor(settings: OptimadeTransportSettings) {
    this.#settings = settings;
    // Checked now, so a bad timeout or dispatcher throws at `new OptimadeClient`, not at the first page.
    resolveTransportSettings({ ...settings, baseUrl: "http://127.0.0.1" });
  }

  /**
   * The body of `GET url`, checked against `schema`. The URL is followed as the provider wrote
   * it: path and query are sent as they are (the query re-encoded, never rebuilt).
   */
  async get<S extends z.ZodType>(url: URL, schema: S, signal?: AbortSignal): Promise<z.infer<S>> {
    const transport = this.#transportOf(url.origin);
    const search = Object.fromEntries(url.searchParams);
    const { body, endpoint } = await transport.send({
      method: "GET",
      path: url.pathname.replace(/^\/+/, ""),
      ...(url.search ? { search } : {}),
      signal,
    });
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new ResponseValidationError(
        `${endpoint} answered with a body that is not an OPTIMADE answer (${first?.path.join(".") || "body"}: ${first?.message ?? "invalid"}); ` +
          "check that the base URL is an OPTIMADE provider's.",
        { endpoint, status: 200, issues: parsed.error.issues },
      );
    }
    return parsed.data as z.infer<S>;
  }

  #transportOf(origin: string): Transport {
    let transport = this.#transports.get(origin);
    if (!transport) {
      const settings = resolveTransportSettings({ ...this.#settings, baseUrl: origin });
      // The transport's base is the origin: every request names its whole path.
      transport = new Transport({ ...settings, baseUrl: new URL(`${origin}/`) });
      this.#transports.set(origin, transport);
    }
    return transport;
  }

  /** Closes every transport's pool (an injected dispatcher is left open). */
  async close(): Promise<void> {
    await Promise.all([...this.#transports.values()].map((transport) => transport.close()));
    this.#transports.clear();
  }
}
