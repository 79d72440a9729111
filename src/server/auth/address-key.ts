import { isIPv4, isIPv6 } from "node:net";

/**
 * The client a request counts against, for limits kept per address: the IPv4 address, or the
 * /64 network of an IPv6 one. One IPv6 host commonly holds a whole /64 (RFC 7421), so counting
 * single IPv6 addresses would give it 2^64 fresh allowances; an IPv4-mapped address counts as the
 * IPv4 address it carries.
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined || address === "") return "unknown";
  const [, mapped] = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address) ?? [];
  if (mapped !== undefined) return mapped;
  if (isIPv4(address) || !isIPv6(address)) return address;
  // split always yields at least one part.
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === "" ? [] : tail.split(":");
  const groups = [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
