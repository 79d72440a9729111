// Whether a host name or address is this machine, in one place for the client (no proxy for the
// built-in platform, the link guessed near) and the local platform (no password warnings on a
// loopback listener).
import { isIP } from "node:net";

/**
 * Whether `host` names this machine: `localhost` and `*.localhost` (RFC 6761, section 6.3), with
 * or without a final dot, 127.0.0.0/8, `::1`, and 127.0.0.0/8 written as an IPv4-mapped IPv6
 * address (`::ffff:127.0.0.1`, or `::ffff:7f00:1` as URL parsing writes it). Square brackets
 * around an IPv6 address (as in a URL's host) are allowed.
 *
 * @example isLoopbackHost("127.0.0.1") // true
 * @example isLoopbackHost("[::1]") // true
 * @example isLoopbackHost("example.org") // false
 */
export function isLoopbackHost(host: string): boolean {
  // A name may end with the root's dot (`localhost.`), as a fully qualified one does.
  const bare = host
    .replace(/^\[|\]$/g, "")
    .replace(/(?<=[a-z])\.$/i, "")
    .toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost") || bare === "::1") return true;
  if (bare.startsWith("::ffff:")) return isLoopbackHost(mappedIPv4(bare.slice(7)));
  return isIP(bare) === 4 && bare.startsWith("127.");
}

/** The IPv4 address of an IPv4-mapped IPv6 address's tail, dotted (`127.0.0.1`) or as URL parsing writes it (`7f00:1`). */
function mappedIPv4(tail: string): string {
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(tail);
  if (!hex) return tail;
  const [high, low] = [Number.parseInt(hex[1]!, 16), Number.parseInt(hex[2]!, 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
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

/**
 * The host to open, from this machine, a server listening on `host`: for a wildcard, the loopback
 * address of its family (`0.0.0.0` gives `127.0.0.1`, `::` gives `[::1]`), since browsers refuse
 * or misroute an unspecified address; any other host as it is. Written as a URL's host.
 *
 * @example hostToOpenHere("0.0.0.0") // "127.0.0.1"
 * @example hostToOpenHere("[::]") // "[::1]"
 * @example hostToOpenHere("192.168.1.10") // "192.168.1.10"
 */
export function hostToOpenHere(host: string): string {
  if (!isWildcardHost(host)) return host;
  return host.includes(":") ? "[::1]" : "127.0.0.1";
}
