/**
 * Base-URL rules of custom provider endpoints (the SSRF primitive of
 * `tools/sandbox/ssrf.ts`): `https`, no credentials, no private,
 * loopback or metadata host — unless `allow_local`, which admits loopback,
 * private and `.local` hosts (and `http` only for them), never metadata
 * addresses.
 *
 * @module
 */
import {
  type CanonicalHost,
  canonicalHost,
  isBlockedAddress,
  isBlockedHostName,
} from "../../tools/sandbox/ssrf.ts";

/**
 * Host classes.
 */
export type HostClass = "public" | "local" | "metadata";

const METADATA_NAMES = new Set(["metadata.google.internal", "metadata"]);

/** Parses the hex-only IPv6 form the SSRF primitive canonicalises to. */
function ipv6Groups(address: string): number[] | undefined {
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const toGroups = (s: string): number[] =>
    s === "" ? [] : s.split(":").map((g) => parseInt(g, 16));
  const head = toGroups(halves[0] ?? "");
  const tail = halves.length === 2 ? toGroups(halves[1] ?? "") : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0) return undefined;
  const groups = [...head, ...Array<number>(fill).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isFinite(g))
    ? groups
    : undefined;
}

/** Link-local `169.254.0.0/16`, AWS `fd00:ec2::254`, and their IPv6 embeddings. */
function isMetadataAddress(host: CanonicalHost): boolean {
  if (host.kind === "ipv4") return host.address.startsWith("169.254.");
  if (host.kind !== "ipv6") return false;
  const g = ipv6Groups(host.address);
  if (g === undefined) return false;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  if (g0 === 0xfd00 && g1 === 0xec2 && g2 + g3 + g4 + g5 + g6 === 0) {
    return g7 === 0x254;
  }
  const v4 = (hi: number): boolean => hi === 0xa9fe; // 169.254
  if (g0 + g1 + g2 + g3 + g4 === 0 && (g5 === 0xffff || g5 === 0)) {
    return v4(g6);
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 + g3 + g4 + g5 === 0) return v4(g6);
  if (g0 === 0x2002) return v4(g1);
  return false;
}

/**
 * Classifies a URL host name (as `URL.hostname` gives it) with the SSRF
 * primitive (`tools/sandbox/ssrf.ts`): a host it blocks is `local`
 * — or `metadata` for cloud metadata addresses and names, which nothing
 * admits. A dotless name (`ollama` in a compose network) is `local` too.
 *
 * @param hostname The host, IPv6 in brackets.
 * @returns `public`, `local` (loopback, private, `.local`, …) or `metadata`.
 */
export function classifyHost(hostname: string): HostClass {
  const host = canonicalHost(hostname);
  if (host === undefined) return "local";
  if (host.kind === "name") {
    if (METADATA_NAMES.has(host.name)) return "metadata";
    return isBlockedHostName(host.name) || !host.name.includes(".")
      ? "local"
      : "public";
  }
  if (isMetadataAddress(host)) return "metadata";
  return isBlockedAddress(host.address) ? "local" : "public";
}

/**
 * Checks a provider base URL.
 *
 * @param url The configured URL.
 * @param allowLocal The provider's `allow_local`.
 * @returns A problem description, or `undefined` when the URL is fine.
 */
export function checkBaseUrl(
  url: string,
  allowLocal: boolean,
): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "must be an absolute http(s) URL";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") {
    return "must be an http(s) URL";
  }
  if (u.username !== "" || u.password !== "") {
    return "must not embed credentials";
  }
  if (u.search !== "" || u.hash !== "") {
    return "must not have a query or fragment";
  }
  const cls = classifyHost(u.hostname);
  if (cls === "metadata") return "must not point at a cloud metadata address";
  if (cls === "local") {
    return allowLocal
      ? undefined
      : "points at a local or private host: set allow_local = true to allow it";
  }
  if (u.protocol !== "https:") {
    return "must use https (http is allowed only for local hosts with allow_local)";
  }
  return undefined;
}

/**
 * Removes trailing slashes from a base URL.
 *
 * @param url A checked base URL.
 * @returns The URL without trailing `/`.
 */
export function normalizeBaseUrl(url: string): string {
  return url.replace(/\/+$/, "");
}
