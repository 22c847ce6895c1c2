/**
 * The address half of the SSRF primitive: IP-literal
 * canonicalisation, the blocked IPv4/IPv6 ranges (with embedded IPv4),
 * the blocked names, and the `--deny-net` list that makes Deno enforce
 * the IPv4 ranges at connect time. Pure.
 *
 * @module
 */
import {
  embeddedIPv4,
  endsInNumber,
  formatIPv4,
  formatIPv6,
  parseIPv4,
  parseIPv6,
} from "./_ip.ts";
import {
  isMetadataName,
  isMetadataV4,
  isMetadataV6,
  METADATA_DENY_NET,
} from "./_metadata.ts";

/**
 * A host after canonicalisation.
 */
export type CanonicalHost =
  | { kind: "ipv4"; address: string }
  | { kind: "ipv6"; address: string }
  | { kind: "name"; name: string };
function v4Value(bytes: readonly number[]): number {
  return (((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) |
    ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)) >>> 0;
}

/** Blocked IPv4 networks as `[network, prefix length]`. */
const V4_BLOCKS: readonly (readonly [number, number])[] = [
  [[0, 0, 0, 0], 8],
  [[127, 0, 0, 0], 8],
  [[10, 0, 0, 0], 8],
  [[172, 16, 0, 0], 12],
  [[192, 168, 0, 0], 16],
  [[100, 64, 0, 0], 10],
  [[169, 254, 0, 0], 16],
  [[224, 0, 0, 0], 4],
  [[240, 0, 0, 0], 4],
  [[198, 18, 0, 0], 15],
  [[192, 0, 0, 0], 24],
].map(([net, bits]) => [v4Value(net as number[]), bits as number] as const);

/**
 * `--deny-net` values that make Deno refuse the blocked IPv4 ranges and
 * IPv6 loopback/unspecified at connect time, even inside an `--allow-net`
 * range (IPv6 CIDRs are not accepted by Deno 2.9.6). Drop the entries
 * that cover an `allow_local` provider.
 */
export const SSRF_DENY_NET: readonly string[] = Object.freeze([
  "0.0.0.0/8",
  "127.0.0.0/8",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "100.64.0.0/10",
  "169.254.0.0/16",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "198.18.0.0/15",
  "192.0.0.0/24",
  "[::1]",
  "[::]",
  // Metadata and platform rows outside the ranges above.
  ...METADATA_DENY_NET.filter((entry) => {
    if (entry.startsWith("[")) return true;
    const bytes = parseIPv4(entry.slice(0, entry.indexOf("/")));
    return bytes !== undefined && !inV4Blocks(bytes);
  }),
]);

function inV4Blocks(bytes: readonly number[]): boolean {
  const v = v4Value(bytes);
  return V4_BLOCKS.some(([net, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return ((v & mask) >>> 0) === net;
  });
}

function v4Blocked(bytes: readonly number[], loopbackOk: boolean): boolean {
  if (loopbackOk && bytes[0] === 127) return false;
  return inV4Blocks(bytes) || isMetadataV4(bytes);
}

function v6Blocked(g: readonly number[], loopbackOk: boolean): boolean {
  const first = g[0] ?? 0;
  if (g.every((x) => x === 0)) return true; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return !loopbackOk;
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10
  if ((first & 0xffc0) === 0xfec0) return true; // fec0::/10 (site-local)
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7
  if ((first & 0xff00) === 0xff00) return true; // multicast
  if (first === 0x64 && g[1] === 0xff9b && g[2] === 1) return true; // NAT64 local
  if (isMetadataV6(g)) return true;
  const v4 = embeddedIPv4(g);
  return v4 !== undefined && v4Blocked(v4, false);
}

/**
 * Canonicalises a host: unbracketed, lowercase, trailing dots stripped;
 * IPv4 in any notation becomes a dotted quad, IPv6 its RFC 5952 form.
 *
 * @param host A URL hostname, a DNS answer or an allowlist entry.
 * @returns The canonical host, or `undefined` for an invalid literal
 *   (an IPv4-looking name that does not parse, a zone id, empty).
 */
export function canonicalHost(host: string): CanonicalHost | undefined {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") || h.includes(":")) {
    const g = parseIPv6(h);
    return g === undefined
      ? undefined
      : { kind: "ipv6", address: formatIPv6(g) };
  }
  while (h.endsWith(".")) h = h.slice(0, -1);
  if (h === "") return undefined;
  if (endsInNumber(h)) {
    const b = parseIPv4(h);
    return b === undefined
      ? undefined
      : { kind: "ipv4", address: formatIPv4(b) };
  }
  return { kind: "name", name: h };
}

/**
 * Whether a host name is on the blocked-name list: `localhost`,
 * `*.localhost`, `*.local`, `*.internal` and the cloud metadata names
 * (`metadata`, `metadata.goog`, `instance-data`, …; after
 * canonicalisation).
 *
 * @param name A host name.
 * @returns `true` when blocked.
 */
export function isBlockedHostName(name: string): boolean {
  const c = canonicalHost(name);
  if (c === undefined) return true;
  if (c.kind !== "name") return false;
  const n = c.name;
  return n === "localhost" || n.endsWith(".localhost") ||
    n.endsWith(".local") || n.endsWith(".internal") || isMetadataName(n);
}

/**
 * Whether a host is a cloud metadata or platform endpoint (an address or
 * name of the metadata table, in any notation, IPv4 embedded in IPv6
 * included): never reachable, whatever a provider's `allow_local` says.
 *
 * @param host A URL hostname or an IP literal.
 * @returns `true` for a metadata endpoint.
 */
export function isMetadataHost(host: string): boolean {
  const c = canonicalHost(host);
  if (c === undefined) return false;
  if (c.kind === "name") return isMetadataName(c.name);
  if (c.kind === "ipv4") return isMetadataV4(parseIPv4(c.address) ?? []);
  const g = parseIPv6(c.address);
  return g !== undefined && isMetadataV6(g);
}

/**
 * Whether an address is blocked: the IPv4 ranges (plus
 * `224/4`, `240/4`, `198.18/15`, `192.0.0/24`), the cloud metadata and
 * platform addresses (`168.63.129.16`, …), IPv6 `::`, `::1`,
 * `fe80::/10`, `fec0::/10` (site-local), `fc00::/7`, multicast, and the
 * IPv4 embedded in `::ffff:a.b.c.d`, `::a.b.c.d`, `64:ff9b::/96` and
 * `2002::/16`. Anything that is not an IP literal is blocked.
 *
 * @param address An IP literal in any notation.
 * @param options `allowLoopbackForTests` only.
 * @returns `true` when blocked.
 */
export function isBlockedAddress(
  address: string,
  options: { allowLoopbackForTests?: boolean } = {},
): boolean {
  const loopbackOk = options.allowLoopbackForTests === true;
  const c = canonicalHost(address);
  if (c === undefined || c.kind === "name") return true;
  if (c.kind === "ipv4") {
    return v4Blocked(parseIPv4(c.address) ?? [0, 0, 0, 0], loopbackOk);
  }
  const g = parseIPv6(c.address);
  return g === undefined || v6Blocked(g, loopbackOk);
}
