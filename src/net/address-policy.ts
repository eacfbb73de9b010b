import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses the tool may connect to when an outside party chooses the URL (an LMS's dynamic
 * registration): only globally routable unicast addresses. Loopback, private, link-local, carrier-grade
 * NAT, multicast, unspecified, documentation and other special-purpose ranges (RFC 6890 and its IPv6
 * registry) are refused; IPv4-mapped and IPv4-compatible IPv6 addresses are judged as the IPv4 address
 * they carry. Pure functions over address literals.
 */

export interface AddressPolicy {
  /** Development only: a local LMS on 127.0.0.0/8 or ::1. */
  allowLoopback: boolean;
}

/** Why the address is refused (its range, in ipaddr.js's words), or undefined when it may be used. */
export function addressRefusal(address: string, policy: AddressPolicy): string | undefined {
  const literal = address.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(literal) || isIP(literal.replace(/%.*$/, '')) === 0) return 'not an IP address';
  let parsed = ipaddr.parse(literal);
  if (parsed instanceof ipaddr.IPv6) {
    if (parsed.isIPv4MappedAddress()) parsed = parsed.toIPv4Address();
    else if (isIpv4Compatible(parsed)) parsed = ipaddr.fromByteArray(parsed.toByteArray().slice(12));
  }
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && policy.allowLoopback) return undefined;
  return range;
}

/** `::a.b.c.d` (deprecated by RFC 4291, still routed to the IPv4 address by some stacks); `::` and `::1` are judged as IPv6. */
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  return parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || (parts[7] ?? 0) > 1);
}

/** The host of a URL as an IP literal, or undefined when it is a name (to be checked once resolved). */
export function ipLiteralOf(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) ? bare : undefined;
}
