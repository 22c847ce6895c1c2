/**
 * The `fetch` an MCP streamable-HTTP connection goes through: every
 * request's URL passes the SSRF primitive first (scheme, blocked names
 * and ranges, every DNS answer), redirects are never followed (a 3xx is
 * an error), and the configured headers are set by the host. Loopback
 * (and plain `http:` to it) only with `allow_local_endpoint`; every other
 * private range stays blocked. The connection then goes to the checked
 * address itself, never to the name (no DNS-rebinding window): the
 * pinned HTTP/1.1 client of `http_request` (`tools/deno/_net.ts`), TLS
 * verified for the URL's host name, one request per connection, the
 * response body streamed as it arrives (a server-sent event stream may
 * stay open) and cut with an error past {@linkcode MAX_HTTP_LINE} bytes
 * without a line feed. A fetch the host gives replaces the pinned
 * connection (the checks still run first).
 *
 * @module
 */
import { type ConnectTcp, openPinned } from "../deno/_net.ts";
import {
  checkResolvedAddresses,
  checkUrl,
  type SsrfOptions,
  type SsrfRefusal,
} from "../sandbox/ssrf.ts";

/** The longest line (bytes) of a response body: one JSON-RPC message. */
export const MAX_HTTP_LINE = 8 * 1024 * 1024;

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
  /** A fetch replacing the pinned connection (the checks still run). */
  fetch?: FetchLike;
  /** The pinned connection's TCP connect (default `Deno.connect`). */
  connect?: ConnectTcp;
  /** The longest body line (default {@linkcode MAX_HTTP_LINE}). */
  maxLine?: number;
}

function ssrfOptions(allowLocalEndpoint: boolean): SsrfOptions {
  return allowLocalEndpoint
    ? { schemes: ["https:", "http:"], allowLoopbackForTests: true }
    : { schemes: ["https:"] };
}

/**
 * Checks a URL as the MCP HTTP transport would: the static checks, then
 * every DNS answer of a name.
 *
 * @param url The URL.
 * @param options Loopback switch and resolver.
 * @returns The addresses to connect to (the checked answers, or the
 *   URL's IP literal).
 * @throws {McpUrlRefused} When refused.
 */
export async function checkMcpUrl(
  url: string,
  options: Pick<GuardedFetchOptions, "allowLocalEndpoint" | "resolve">,
): Promise<readonly string[]> {
  const ssrf = ssrfOptions(options.allowLocalEndpoint);
  const checked = checkUrl(url, ssrf);
  if (!checked.ok) throw new McpUrlRefused(checked.error);
  const host = checked.value.host;
  if (host.kind !== "name") return [host.address];
  const answers = await options.resolve(host.name);
  const verdict = checkResolvedAddresses(answers, ssrf);
  if (!verdict.ok) throw new McpUrlRefused(verdict.error);
  return answers;
}

/** A body the transport sends: JSON text (or none). */
function bodyText(body: RequestInit["body"]): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  throw new TypeError("MCP request bodies are text");
}

/** Passes the bytes through; an error past `max` bytes without a line feed. */
function lineBound(max: number): TransformStream<Uint8Array, Uint8Array> {
  let run = 0; // bytes since the last line feed
  const tooLong = () =>
    new Error(`MCP server sent a line longer than ${max} bytes`);
  return new TransformStream({
    transform(chunk, controller) {
      let from = 0;
      for (
        let at = chunk.indexOf(0x0a);
        at >= 0;
        at = chunk.indexOf(0x0a, from)
      ) {
        if (run + at - from > max) return controller.error(tooLong());
        run = 0;
        from = at + 1;
      }
      run += chunk.length - from;
      if (run > max) return controller.error(tooLong());
      controller.enqueue(chunk);
    },
  });
}

/** One request over the pinned connection, as a `Response`. */
async function pinnedFetch(
  href: string,
  addresses: readonly string[],
  headers: Headers,
  init: RequestInit | undefined,
  options: GuardedFetchOptions,
): Promise<Response> {
  const signal = init?.signal ?? new AbortController().signal;
  const method = init?.method ?? "GET";
  const fail = (e: unknown): never => {
    throw signal.aborted ? signal.reason : e;
  };
  const opened = await openPinned({
    url: new URL(href),
    addresses,
    method,
    headers: Object.fromEntries(headers),
    body: bodyText(init?.body),
    signal,
    allowHttp: options.allowLocalEndpoint,
  }, {
    caCerts: [],
    userAgent: `Deno/${Deno.version.deno}`,
    ...(options.connect === undefined ? {} : { connect: options.connect }),
  }).catch(fail);
  const status = opened.status;
  const head = new Headers(Object.entries(opened.headers));
  if (status === 204 || status === 304 || method === "HEAD") {
    opened.close();
    return new Response(null, { status, headers: head });
  }
  const pieces = opened.body;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await pieces.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (e) {
        controller.error(signal.aborted ? signal.reason : e);
      }
    },
    async cancel() {
      opened.close();
      await pieces.return().catch(() => undefined);
    },
  });
  return new Response(
    body.pipeThrough(lineBound(options.maxLine ?? MAX_HTTP_LINE)),
    {
      status,
      headers: head,
    },
  );
}

/**
 * A fetch that checks every URL, connects to the checked address, adds
 * the host's headers and refuses redirects.
 *
 * @param options Loopback switch, headers, resolver, and the seams.
 * @returns The guarded fetch.
 */
export function guardedFetch(options: GuardedFetchOptions): FetchLike {
  const own = options.fetch;
  return async (url, init) => {
    const href = String(url);
    const addresses = await checkMcpUrl(href, options);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(options.headers)) headers.set(k, v);
    const response = own === undefined
      ? await pinnedFetch(href, addresses, headers, init, options)
      : await own(href, { ...init, headers, redirect: "manual" });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new Error(
        `MCP server answered a redirect (${response.status}), which is not followed`,
      );
    }
    return response;
  };
}
