import ipaddr from 'ipaddr.js';

// Which IP addresses a scan may connect to. Only public unicast space is allowed: everything a
// server-side request forgery could use to reach the service's own network (private, loopback,
// link-local, CGNAT, metadata endpoints, and IPv6 forms that embed such an IPv4) is forbidden.
// The allowlist (SCAN_ALLOW_HOSTS) opens chosen hosts, host:port pairs or CIDRs: tests and local
// use scan 127.0.0.1 fixture servers that way. Empty by default, so closed.

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

// Cloud instance-metadata endpoints, named so refusals say why. Most sit in ranges refused anyway;
// Azure's wireserver (168.63.129.16) is public space, reachable only from inside Azure.
const METADATA = [
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '168.63.129.16',
  'fd00:ec2::254',
].map((a) => ipaddr.parse(a));

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

// The shapes ipaddr.js can accept here, tested before it is asked: its validators throw and catch
// internally on every hostname that is not an address, and every request a full scan's browser
// makes is checked.
const FOUR_PART_DECIMAL = /^(0|[1-9]\d*)(\.(0|[1-9]\d*)){3}$/;

/** Parses an IP literal (IPv6 may be bracketed); only the four-part dotted form for IPv4. */
export function parseIp(text: string): IpAddress | null {
  const s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (FOUR_PART_DECIMAL.test(s)) return ipaddr.IPv4.isValidFourPartDecimal(s) ? ipaddr.IPv4.parse(s) : null;
  if (s.includes(':') && ipaddr.IPv6.isValid(s)) return ipaddr.IPv6.parse(s);
  return null;
}

const v4FromWords = (hi: number, lo: number) =>
  new ipaddr.IPv4([(hi >> 8) & 0xff, hi & 0xff, (lo >> 8) & 0xff, lo & 0xff]);

/** Why an address is forbidden (its range name, e.g. "loopback"), or null when it is public. */
export function forbiddenReason(ip: IpAddress): string | null {
  if (METADATA.some((m) => m.kind() === ip.kind() && m.toNormalizedString() === ip.toNormalizedString()))
    return 'metadata';
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = ip as ipaddr.IPv6;
  const p = v6.parts;
  const range = v6.range();
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return range;
    case 'rfc6052': {
      // Only the well-known NAT64 prefix maps to the public IPv4 internet; judge what it embeds.
      if (!v6.match(NAT64_WELL_KNOWN)) return 'nat64Local';
      const inner = forbiddenReason(v4FromWords(p[6]!, p[7]!));
      return inner && `nat64:${inner}`;
    }
    case '6to4': {
      const inner = forbiddenReason(v4FromWords(p[1]!, p[2]!));
      return inner && `6to4:${inner}`;
    }
    case 'teredo': {
      // Server address in clear, client address bit-inverted (RFC 4380).
      const inner =
        forbiddenReason(v4FromWords(p[2]!, p[3]!)) ?? forbiddenReason(v4FromWords(~p[6]!, ~p[7]!));
      return inner && `teredo:${inner}`;
    }
    case 'unicast':
      if (v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
      // Everything outside 2000::/3 (ULA, site-local, discard, segment routing...) is not internet space.
      return v6.match(GLOBAL_UNICAST_V6) ? null : 'reserved';
    default:
      return range;
  }
}

interface AllowEntry {
  host?: string; // a hostname, matched exactly
  net?: [IpAddress, number]; // an address range, matched against the resolved address
  port?: number; // when given, only this port
}

export interface Allowlist {
  readonly empty: boolean;
  /** Whether connecting to `address` for `host:port` is opened by the allowlist. */
  matches(host: string, port: number, address: IpAddress | null): boolean;
}

const HOSTNAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** Lower-cases, strips IPv6 brackets and a trailing root dot. */
export function normalizeHost(host: string): string {
  const h = host.toLowerCase();
  const unbracketed = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

function parsePort(text: string, entry: string): number {
  const n = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= 65535)) throw new Error(`SCAN_ALLOW_HOSTS: bad port in "${entry}"`);
  return n;
}

function parseEntry(raw: string): AllowEntry {
  const entry = raw.toLowerCase();
  if (entry.includes('/')) {
    if (!ipaddr.isValidCIDR(entry)) throw new Error(`SCAN_ALLOW_HOSTS: bad CIDR "${raw}"`);
    return { net: ipaddr.parseCIDR(entry) };
  }
  let host = entry;
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    host = bracketed[1]!;
    if (bracketed[2] !== undefined) port = parsePort(bracketed[2], raw);
  } else if (entry.split(':').length === 2) {
    const [h, p] = entry.split(':') as [string, string];
    host = h;
    port = parsePort(p, raw);
  }
  const ip = parseIp(host);
  if (ip) return { net: [ip, ip.kind() === 'ipv4' ? 32 : 128], port };
  host = normalizeHost(host);
  if (!HOSTNAME.test(host)) throw new Error(`SCAN_ALLOW_HOSTS: bad entry "${raw}"`);
  return { host, port };
}

/** Parses SCAN_ALLOW_HOSTS: comma-separated hostnames, host:port pairs or CIDRs. Throws on a bad entry. */
export function parseAllowlist(spec: string): Allowlist {
  const entries = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseEntry);
  return {
    empty: entries.length === 0,
    matches(host, port, address) {
      const h = normalizeHost(host);
      // An IPv4-mapped IPv6 answer is the IPv4 address for range matching.
      const a =
        address?.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
          ? (address as ipaddr.IPv6).toIPv4Address()
          : address;
      return entries.some((e) => {
        if (e.port !== undefined && e.port !== port) return false;
        if (e.host !== undefined) return e.host === h;
        return !!a && !!e.net && a.kind() === e.net[0].kind() && a.match(e.net);
      });
    },
  };
}
