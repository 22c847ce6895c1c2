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
  canonicalHost,
  isBlockedAddress,
  isBlockedHostName,
} from "../../tools/sandbox/ssrf.ts";
import { isMetadataHost } from "../../tools/sandbox/ssrf_address.ts";

/**
 * Host classes.
 */
export type HostClass = "public" | "local" | "metadata";

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
  if (isMetadataHost(hostname)) return "metadata";
  if (host.kind === "name") {
    return isBlockedHostName(host.name) || !host.name.includes(".")
      ? "local"
      : "public";
  }
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
