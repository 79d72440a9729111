// Whether a host name or address is this machine, in one place for the client (no proxy for the
// built-in platform, the link guessed near) and the local platform (no password warnings on a
// loopback listener).
import { isIP } from "node:net";

/**
 * Whether `host` names this machine: `localhost` and `*.localhost` (RFC 6761, section 6.3),
 * 127.0.0.0/8, `::1`, and 127.0.0.0/8 written as an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`).
 * Square brackets around an IPv6 address (as in a URL's host) are allowed.
 *
 * @example isLoopbackHost("127.0.0.1") // true
 * @example isLoopbackHost("[::1]") // true
 * @example isLoopbackHost("example.org") // false
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost") || bare === "::1") return true;
  if (bare.startsWith("::ffff:")) return isLoopbackHost(bare.slice(7));
  return isIP(bare) === 4 && bare.startsWith("127.");
}

/**
 * Whether `host` is an unspecified (wildcard) address, on which a server listens at every address
 * of the machine: `0.0.0.0` or `::` (with or without a URL's square brackets).
 *
 * @example isWildcardHost("0.0.0.0") // true
 * @example isWildcardHost("[::]") // true
 * @example isWildcardHost("127.0.0.1") // false
 */
export function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "0.0.0.0" || bare === "::" || bare === "0:0:0:0:0:0:0:0";
}
