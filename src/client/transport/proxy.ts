// Proxies from the environment, as Node users (and Python's requests) expect: behind a corporate
// proxy the platform could not be reached before, since the client built its own undici Pool.
// The routing itself (which origin goes through which proxy, NO_PROXY matching) is undici's
// EnvHttpProxyAgent; this file only reads and checks the variables, so that a malformed one is a
// clear error and a password in one is never shown.
import { ValidationError } from "../../errors";
import { withoutUrlCredentials } from "./redact";
import { isLoopbackHost } from "../../loopback";

/** The proxy variables in force, with the names they were read from (lower-case wins, as in curl and undici). */
export interface ProxyEnvironment {
  readonly httpProxy?: string;
  readonly httpsProxy?: string;
  readonly noProxy?: string;
  /** The variables they were read from (`http_proxy` or `HTTP_PROXY`...), for messages. */
  readonly names: { readonly http?: string; readonly https?: string };
  /** The user names and passwords inside the proxy URLs, to scrub from any message. */
  readonly secrets: readonly string[];
}

const pick = (env: NodeJS.ProcessEnv, name: string): { name: string; value: string } | undefined => {
  const lower = env[name.toLowerCase()];
  if (lower !== undefined && lower !== "") return { name: name.toLowerCase(), value: lower };
  const upper = env[name];
  return upper !== undefined && upper !== "" ? { name, value: upper } : undefined;
};

/**
 * `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (or their lower-case forms) when a proxy is set,
 * else undefined (then no proxy agent is made at all). A proxy URL that is not `http://` or
 * `https://` is a `ValidationError` that names the variable and shows the URL without its
 * credentials.
 */
export function proxyEnvironment(env: NodeJS.ProcessEnv = process.env): ProxyEnvironment | undefined {
  const http = pick(env, "HTTP_PROXY");
  const https = pick(env, "HTTPS_PROXY");
  if (!http && !https) return undefined;
  const secrets: string[] = [];
  for (const proxy of [http, https]) {
    if (!proxy) continue;
    let url: URL;
    try {
      url = new URL(proxy.value);
    } catch {
      throw new ValidationError(
        proxy.name,
        `${proxy.name} ${JSON.stringify(withoutUrlCredentials(proxy.value))} is not a URL; write it like "http://proxy.example.org:3128".`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ValidationError(
        proxy.name,
        `${proxy.name} must start with http:// or https:// (e.g. "http://proxy.example.org:3128"); got ${url.protocol}//.`,
      );
    }
    for (const part of [url.username, url.password]) {
      if (part) secrets.push(part, decodeURIComponent(part));
    }
  }
  const noProxy = pick(env, "NO_PROXY")?.value;
  return {
    ...(http ? { httpProxy: http.value } : {}),
    ...(https ? { httpsProxy: https.value } : {}),
    ...(noProxy ? { noProxy } : {}),
    names: { ...(http ? { http: http.name } : {}), ...(https ? { https: https.name } : {}) },
    secrets,
  };
}

/**
 * The proxy variables for requests to `target`: none for this machine, which is reached directly
 * whatever they say (a malformed one must not stop the built-in platform), else
 * {@link proxyEnvironment}'s.
 */
export function proxyEnvironmentFor(
  target: string | URL,
  env: NodeJS.ProcessEnv = process.env,
): ProxyEnvironment | undefined {
  return isLoopbackHost(new URL(target).hostname) ? undefined : proxyEnvironment(env);
}

/** Default ports by protocol, as NO_PROXY entries with a port are compared. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/**
 * Whether `NO_PROXY` sends requests to `url` around the proxy, by the rules undici's
 * EnvHttpProxyAgent routes with (so that a message names a proxy only when the request went
 * through one): `*` matches every host; an entry is a host name or address, with an optional
 * `:port` and an optional leading `.` or `*.`, separated by commas or spaces; it matches that host
 * and its subdomains, case-insensitively, on its port only when it names one.
 */
export function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  if (noProxy === undefined || noProxy.trim() === "") return false;
  if (noProxy === "*") return true;
  // url.host keeps an IPv6 address's brackets, as NO_PROXY entries write them.
  const host = url.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const withPort = /^(.+):(\d+)$/.exec(entry);
    const name = (withPort ? withPort[1]! : entry).replace(/^\*?\./, "").toLowerCase();
    // A port of 0 (or none) matches every port, as undici reads it.
    const entryPort = withPort ? Number.parseInt(withPort[2]!, 10) : 0;
    if (entryPort !== 0 && entryPort !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}
