/**
 * The `fetch` an MCP streamable-HTTP connection goes through: every
 * request's URL passes the SSRF primitive first (scheme, blocked names
 * and ranges, every DNS answer), redirects are never followed (a 3xx is
 * an error), and the configured headers are set by the host. Loopback
 * (and plain `http:` to it) only with `allow_local_endpoint`; every other
 * private range stays blocked. Like the CLI's custom provider base URLs,
 * the request then goes to the name, so a DNS server that answers
 * differently to the check and to the connect keeps a residual window
 * (see `tools/sandbox/ssrf.ts`).
 *
 * @module
 */
import { checkPublicUrl, type SsrfRefusal } from "../sandbox/ssrf.ts";

/** A `fetch`-shaped function. */
export type FetchLike = (
  url: string | URL,
  init?: RequestInit,
) => Promise<Response>;

/** A URL the SSRF checks refused: the connection never started. */
export class McpUrlRefused extends Error {
  /** The refusal class. */
  readonly reason: SsrfRefusal["reason"];

  /**
   * @param refusal The refusal.
   */
  constructor(refusal: SsrfRefusal) {
    super(`MCP server URL refused: ${refusal.message}`);
    this.name = "McpUrlRefused";
    this.reason = refusal.reason;
  }
}

/** What {@linkcode guardedFetch} needs. */
export interface GuardedFetchOptions {
  /** Loopback allowed (`allow_local_endpoint`). */
  allowLocalEndpoint: boolean;
  /** Headers the host sets on every request. */
  headers: Readonly<Record<string, string>>;
  /** A and AAAA answers of a name. */
  resolve: (name: string) => Promise<readonly string[]>;
  /** The underlying fetch (default the global one). */
  fetch?: FetchLike;
}

/**
 * Checks a URL as the MCP HTTP transport would.
 *
 * @param url The URL.
 * @param options Loopback switch and resolver.
 * @throws {McpUrlRefused} When refused.
 */
export async function checkMcpUrl(
  url: string,
  options: Pick<GuardedFetchOptions, "allowLocalEndpoint" | "resolve">,
): Promise<void> {
  const local = options.allowLocalEndpoint;
  const checked = await checkPublicUrl(url, {
    schemes: local ? ["https:", "http:"] : ["https:"],
    resolve: options.resolve,
    ...(local ? { allowLoopbackForTests: true } : {}),
  });
  if (!checked.ok) throw new McpUrlRefused(checked.error);
}

/**
 * A fetch that checks every URL, adds the host's headers and refuses
 * redirects.
 *
 * @param options Loopback switch, headers, resolver, base fetch.
 * @returns The guarded fetch.
 */
export function guardedFetch(options: GuardedFetchOptions): FetchLike {
  const base = options.fetch ?? ((u, i) => fetch(u, i));
  return async (url, init) => {
    const href = String(url);
    await checkMcpUrl(href, options);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(options.headers)) headers.set(k, v);
    const response = await base(href, {
      ...init,
      headers,
      redirect: "manual",
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new Error(
        `MCP server answered a redirect (${response.status}), which is not followed`,
      );
    }
    return response;
  };
}
