/**
 * The SSRF primitive, shared by `http_request` and the CLI
 * (custom provider base URLs without `allow_local`, MCP URLs): URL shape,
 * IP-literal canonicalisation, blocked ranges and names, exact domain
 * allowlist, and the check of every DNS answer. Pure: DNS comes from an
 * injected resolver.
 *
 * **Connect to the checked address.** `http_request` passes the checked
 * answers to its host, which connects to one of them and verifies TLS
 * for the name (`deno/effects.ts`): no rebinding window. Callers that hand
 * the URL to `fetch` by name instead (the CLI's custom provider base
 * URLs, via {@linkcode checkPublicUrl}) keep a residual window: Deno resolves the name again to connect, so a DNS server that
 * answers a public address to the check and a private one to the connect
 * slips through this layer. Deno closes most of it: `--deny-net` takes
 * IPv4 CIDR ranges and exact IPv6 addresses and is enforced on the
 * address actually connected to (verified with Deno 2.9.6), so running
 * with `--deny-net=` + {@linkcode SSRF_DENY_NET} blocks every IPv4 range
 * below and `::1`/`::`; the IPv6 ranges (`fe80::/10`, `fec0::/10`, `fc00::/7`,
 * embedded forms) stay open there because Deno 2.9.6 rejects IPv6 CIDRs
 * in `--deny-net`.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import {
  type CanonicalHost,
  canonicalHost,
  isBlockedAddress,
  isBlockedHostName,
} from "./ssrf_address.ts";

export {
  type CanonicalHost,
  canonicalHost,
  isBlockedAddress,
  isBlockedHostName,
  SSRF_DENY_NET,
} from "./ssrf_address.ts";

/**
 * Why the guard refused a URL or an address (all fatal `tool_denied`).
 */
export interface SsrfRefusal {
  /** `insecure_url`, `domain_not_allowed` or `ssrf_blocked`. */
  reason: "insecure_url" | "domain_not_allowed" | "ssrf_blocked";
  /** Path- and URL-free message. */
  message: string;
}

/**
 * Options of the URL and address checks.
 */
export interface SsrfOptions {
  /** Exact hosts allowed; absent ⇒ no domain check, `[]` ⇒ deny all. */
  allowedDomains?: readonly string[];
  /** Accepted URL schemes (default `["https:"]`). */
  schemes?: readonly string[];
  /**
   * Test-only: let `127.0.0.0/8` and `::1` through. The CLI never sets it;
   * names such as `localhost` stay blocked.
   */
  allowLoopbackForTests?: boolean;
}

/**
 * A URL that passed {@linkcode checkUrl}.
 */
export interface CheckedUrl {
  /** The normalised URL. */
  url: string;
  /** The canonical host (DNS still to check when it is a name). */
  host: CanonicalHost;
  /** Effective port. */
  port: number;
}

function refuse(
  reason: SsrfRefusal["reason"],
  message: string,
): Result<never, SsrfRefusal> {
  return err({ reason, message });
}

function hostKey(h: CanonicalHost): string {
  return h.kind === "name" ? h.name : h.address;
}

/**
 * The static checks, before any DNS: scheme (`https` by default), a
 * host, no userinfo (`insecure_url`); blocked IP literals and names
 * (`ssrf_blocked`); the host exactly equal to an `allowedDomains` entry
 * when a list is given — no wildcards, no subdomains (`domain_not_allowed`).
 *
 * @param raw The URL.
 * @param options Allowed domains, schemes, the test-only loopback switch.
 * @returns The checked URL or the refusal.
 */
export function checkUrl(
  raw: string,
  options: SsrfOptions = {},
): Result<CheckedUrl, SsrfRefusal> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("insecure_url", "the URL is not valid");
  }
  const schemes = options.schemes ?? ["https:"];
  if (!schemes.includes(url.protocol)) {
    return refuse(
      "insecure_url",
      `only ${schemes.join(", ")} URLs are allowed`,
    );
  }
  if (url.hostname === "") return refuse("insecure_url", "the URL has no host");
  if (url.username !== "" || url.password !== "") {
    return refuse("insecure_url", "credentials in the URL are not allowed");
  }
  const host = canonicalHost(url.hostname);
  if (host === undefined) {
    return refuse("ssrf_blocked", "the host is not a valid address or name");
  }
  if (host.kind === "name" && isBlockedHostName(host.name)) {
    return refuse("ssrf_blocked", "the host name is blocked");
  }
  if (host.kind !== "name" && isBlockedAddress(host.address, options)) {
    return refuse("ssrf_blocked", "the address is in a blocked range");
  }
  if (options.allowedDomains !== undefined) {
    const want = hostKey(host);
    const allowed = options.allowedDomains.some((d) => {
      const c = canonicalHost(d);
      return c !== undefined && hostKey(c) === want;
    });
    if (!allowed) {
      return refuse("domain_not_allowed", "the host is not an allowed domain");
    }
  }
  const port = url.port !== ""
    ? Number(url.port)
    : url.protocol === "http:"
    ? 80
    : 443;
  return ok({ url: url.href, host, port });
}

/**
 * Checks DNS answers: there must be at least one, every one must be an IP
 * literal, and one blocked answer blocks all.
 *
 * @param addresses Every A and AAAA answer.
 * @param options `allowLoopbackForTests` only.
 * @returns `ok` or the refusal (`ssrf_blocked`).
 */
export function checkResolvedAddresses(
  addresses: readonly string[],
  options: Pick<SsrfOptions, "allowLoopbackForTests"> = {},
): Result<void, SsrfRefusal> {
  if (addresses.length === 0) {
    return refuse("ssrf_blocked", "the host name has no addresses");
  }
  if (addresses.some((a) => isBlockedAddress(a, options))) {
    return refuse(
      "ssrf_blocked",
      "the host name resolves to a blocked address",
    );
  }
  return ok(undefined);
}

/**
 * Static checks, then (for a name) every DNS answer from `resolve`: the
 * whole primitive in one call, for the CLI's custom provider base URLs.
 *
 * @param raw The URL.
 * @param options SSRF options plus the resolver (A and AAAA answers).
 * @returns The checked URL, or the refusal; a resolver failure rejects.
 */
export async function checkPublicUrl(
  raw: string,
  options: SsrfOptions & {
    resolve: (name: string) => Promise<readonly string[]>;
  },
): Promise<Result<CheckedUrl, SsrfRefusal>> {
  const checked = checkUrl(raw, options);
  if (!checked.ok || checked.value.host.kind !== "name") return checked;
  const answers = await options.resolve(checked.value.host.name);
  const verdict = checkResolvedAddresses(answers, options);
  return verdict.ok ? checked : verdict;
}
