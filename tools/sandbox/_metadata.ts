/**
 * Private: the cloud metadata and platform endpoints, one row per
 * documented address or name, each with the provider that publishes it.
 * These are never reachable: not by `http_request`, and not by a provider
 * base URL even with `allow_local`. Pure.
 *
 * @module
 */
import { embeddedIPv4, parseIPv4, parseIPv6 } from "./_ip.ts";

/**
 * Metadata and platform IPv4 networks as `[network, prefix length]`.
 * The whole link-local range is one row: every cloud that serves a
 * metadata or platform endpoint inside it places it there.
 */
const METADATA_V4_ROWS: readonly (readonly [string, number])[] = [
  // 169.254.169.254: AWS EC2 IMDS, Google Compute Engine, Azure IMDS,
  // Oracle Cloud, DigitalOcean, OpenStack, Hetzner, IBM Cloud, Huawei Cloud.
  // 169.254.170.2: AWS ECS task metadata and credentials.
  // 169.254.170.23: AWS EKS Pod Identity Agent.
  // 169.254.169.253 / 169.254.169.123: AWS VPC DNS resolver / time sync.
  // 169.254.0.23: Tencent Cloud metadata.
  ["169.254.0.0", 16],
  // Alibaba Cloud ECS metadata.
  ["100.100.100.200", 32],
  // Azure wireserver (platform agent, DNS, health probes).
  ["168.63.129.16", 32],
  // Oracle Cloud Infrastructure Classic metadata.
  ["192.0.0.192", 32],
];

/** Metadata and platform IPv6 addresses, exact. */
const METADATA_V6_ROWS: readonly string[] = [
  // AWS EC2 IMDS on Nitro instances.
  "fd00:ec2::254",
  // AWS EKS Pod Identity Agent.
  "fd00:ec2::23",
  // AWS VPC DNS resolver and time sync on Nitro instances.
  "fd00:ec2::253",
  "fd00:ec2::123",
  // Google Compute Engine metadata server (IPv6-only instances).
  "fd20:ce::254",
  // Oracle Cloud Infrastructure metadata.
  "fd00:c1::a9fe:a9fe",
];

/** Names of metadata endpoints, compared after canonicalisation. */
const METADATA_NAME_ROWS: readonly string[] = [
  // Google Compute Engine metadata server.
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  // AWS EC2 IMDS.
  "instance-data",
  "instance-data.ec2.internal",
  // Tencent Cloud metadata.
  "metadata.tencentyun.com",
];

function v4Value(bytes: readonly number[]): number {
  return (((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) |
    ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)) >>> 0;
}

const V4: readonly (readonly [number, number])[] = METADATA_V4_ROWS.map((
  [net, bits],
) => [v4Value(parseIPv4(net) ?? []), bits] as const);

const V6: readonly (readonly number[])[] = METADATA_V6_ROWS.map((a) =>
  parseIPv6(a) ?? []
);

const NAMES: ReadonlySet<string> = new Set(METADATA_NAME_ROWS);

/**
 * Whether IPv4 bytes are a metadata or platform address.
 *
 * @param bytes Four bytes.
 * @returns `true` for a row of the table.
 */
export function isMetadataV4(bytes: readonly number[]): boolean {
  const v = v4Value(bytes);
  return V4.some(([net, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return ((v & mask) >>> 0) === net;
  });
}

/**
 * Whether IPv6 groups are a metadata or platform address, exactly or as
 * an IPv4 row embedded (mapped, translated, NAT64, 6to4).
 *
 * @param groups Eight 16-bit groups.
 * @returns `true` for a row of the table.
 */
export function isMetadataV6(groups: readonly number[]): boolean {
  if (V6.some((row) => row.every((g, i) => groups[i] === g))) return true;
  const v4 = embeddedIPv4(groups);
  return v4 !== undefined && isMetadataV4(v4);
}

/**
 * Whether a canonical host name (lowercase, no trailing dot) names a
 * metadata endpoint.
 *
 * @param name The name.
 * @returns `true` for a row of the table.
 */
export function isMetadataName(name: string): boolean {
  return NAMES.has(name);
}

/** The `--deny-net` entries of the IPv4 rows outside blocked ranges and of every IPv6 row. */
export const METADATA_DENY_NET: readonly string[] = [
  ...METADATA_V4_ROWS.map(([net, bits]) => `${net}/${bits}`),
  ...METADATA_V6_ROWS.map((a) => `[${a}]`),
];
