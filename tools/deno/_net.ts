/**
 * Private: DNS and HTTP effects of the Deno host (`http_request`).
 *
 * The request goes to a validated address, never to a name Deno would
 * resolve again (no DNS-rebinding window):
 * `Deno.connect({ hostname: <ip> })`, then `Deno.startTls` with the URL's
 * host name, so the certificate is verified for that name and SNI
 * carries it, then one HTTP/1.1 exchange (`_http1.ts`: `Connection:
 * close`, bounded parse, body capped one byte past the limit, redirects
 * returned, never followed). `Deno.connect` needs `--allow-net` for the
 * address (`ip:port`), not the name; `Deno.resolveDns` needs it for the
 * system resolver's `ip:53`.
 *
 * @module
 */
import { kindOf, wrap } from "./_errors.ts";
import { collectBody, type Http1Stream, openResponse } from "./_http1.ts";
import { encodeRequest } from "./_http1_request.ts";
import {
  type HttpRequest,
  type HttpResponse,
  ToolEffectsError,
} from "../effects.ts";
import { canonicalHost } from "../sandbox/ssrf_address.ts";
/** Every A and AAAA answer; NXDOMAIN or no records ⇒ none of that type. */
export async function resolveAll(
  name: string,
  signal: AbortSignal,
): Promise<string[]> {
  const settled = await Promise.allSettled([
    Deno.resolveDns(name, "A", { signal }),
    Deno.resolveDns(name, "AAAA", { signal }),
  ]);
  const out: string[] = [];
  let failure: unknown;
  for (const s of settled) {
    if (s.status === "fulfilled") out.push(...s.value);
    else if (kindOf(s.reason) !== "not_found") failure ??= s.reason;
  }
  if (failure !== undefined) throw wrap(failure);
  return out;
}

/** At most this many validated addresses are tried, in order. */
const MAX_ADDRESSES = 8;

function failed(message: string, cause?: unknown): ToolEffectsError {
  return new ToolEffectsError("failed", {
    cause: cause ?? new Error(message),
  });
}

/** The server name (certificate, SNI), TLS or not, and the addresses. */
function target(
  url: URL,
  addresses: readonly string[] | undefined,
  allowHttp: boolean,
): { serverName: string; tls: boolean; port: number; addresses: string[] } {
  const tls = url.protocol === "https:";
  if (!tls && !(allowHttp && url.protocol === "http:")) {
    throw failed("only https is supported");
  }
  const host = canonicalHost(url.hostname);
  if (host === undefined) throw failed("the host is not valid");
  const serverName = host.kind === "name" ? host.name : host.address;
  const list = addresses !== undefined
    ? [...addresses]
    : host.kind === "name"
    ? []
    : [host.address];
  if (list.length === 0) throw failed("no validated address to connect to");
  const port = url.port === "" ? (tls ? 443 : 80) : Number(url.port);
  return { serverName, tls, port, addresses: list.slice(0, MAX_ADDRESSES) };
}

/** Opens a TCP connection to one validated address. */
export type ConnectTcp = (
  to: { hostname: string; port: number; signal: AbortSignal },
) => Promise<Deno.TcpConn>;

/** The first address that accepts a TCP connection; a missing grant stops. */
async function connectFirst(
  addresses: readonly string[],
  port: number,
  signal: AbortSignal,
  connect: ConnectTcp,
): Promise<Deno.TcpConn> {
  let last: unknown;
  for (const hostname of addresses) {
    try {
      return await connect({ hostname, port, signal });
    } catch (e) {
      if (kindOf(e) === "not_capable" || signal.aborted) throw e;
      last = e;
    }
  }
  throw last;
}

/** Settles with `work`, or rejects as soon as `signal` aborts. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new ToolEffectsError("aborted"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  });
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await conn.write(bytes.subarray(at));
}

/** `read` that reports a peer's close without `close_notify` as the end. */
function source(conn: Deno.Conn): {
  read(p: Uint8Array): Promise<number | null>;
} {
  return {
    async read(p): Promise<number | null> {
      try {
        return await conn.read(p);
      } catch (e) {
        if (e instanceof Deno.errors.UnexpectedEof) return null;
        throw e;
      }
    },
  };
}

/** One request to a pinned connection. */
export interface PinnedRequest {
  /** The URL (`https:`, or `http:` when `allowHttp`). */
  url: URL;
  /** Validated addresses (absent ⇒ the host must be an IP literal). */
  addresses?: readonly string[] | undefined;
  /** The method (an RFC 9110 token). */
  method: string;
  /** Request headers (framing and connection headers are ours). */
  headers: Readonly<Record<string, string>>;
  /** UTF-8 request body. */
  body?: string | undefined;
  /** Aborting closes the connection, at any point. */
  signal: AbortSignal;
  /** Plain `http:` allowed (the caller's checks let it through). */
  allowHttp?: boolean;
}

/** How a pinned connection is made. */
export interface PinnedOptions {
  /** Extra PEM roots trusted for TLS. */
  caCerts: readonly string[];
  /** The default `user-agent`. */
  userAgent: string;
  /** The TCP connect (default `Deno.connect`). */
  connect?: ConnectTcp;
}

/** A response whose body streams over the pinned connection. */
export interface PinnedResponse extends Http1Stream {
  /** Closes the connection (the body's end, error or return closes it too). */
  close(): void;
}

/** The body's pieces; its end, error or return closes the connection. */
async function* closing(
  body: AsyncGenerator<Uint8Array, void>,
  signal: AbortSignal,
  close: () => void,
): AsyncGenerator<Uint8Array, void> {
  try {
    yield* body;
  } catch (e) {
    if (signal.aborted) throw new ToolEffectsError("aborted");
    throw e;
  } finally {
    close();
  }
}

/**
 * Sends one request over a connection to a validated address (TLS
 * verified for the URL's host name, with SNI; plain TCP for an allowed
 * `http:`) and reads the response head; the body streams from the same
 * connection, which closes at the body's end, on `close()` and on abort.
 * Redirects are returned, never followed. Errors are raw (the caller
 * maps them); an abort rejects with {@linkcode ToolEffectsError}
 * `aborted`.
 */
export async function openPinned(
  request: PinnedRequest,
  options: PinnedOptions,
): Promise<PinnedResponse> {
  const { signal } = request;
  let open: Deno.Conn | undefined;
  const close = (): void => {
    signal.removeEventListener("abort", close);
    try {
      open?.close();
    } catch {
      // already closed
    }
    open = undefined;
  };
  signal.addEventListener("abort", close, { once: true });
  try {
    if (signal.aborted) throw new ToolEffectsError("aborted");
    const url = request.url;
    const to = target(url, request.addresses, request.allowHttp ?? false);
    const bytes = encodeRequest(url, {
      method: request.method,
      headers: request.headers,
      userAgent: options.userAgent,
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    const tcp = await connectFirst(
      to.addresses,
      to.port,
      signal,
      options.connect ?? ((o) => Deno.connect(o)),
    );
    open = tcp;
    if (signal.aborted) throw new ToolEffectsError("aborted");
    let conn: Deno.Conn = tcp;
    if (to.tls) {
      const handshake = Deno.startTls(tcp, {
        hostname: to.serverName,
        caCerts: [...options.caCerts],
        alpnProtocols: ["http/1.1"],
      });
      // An abort mid-handshake leaves the handshake pending: close its
      // connection whenever it settles. Known limit (Deno 2.9.6): a TLS
      // connection closed before its handshake completes keeps its
      // socket until the peer closes it, so a server that accepts and
      // then stays silent holds one socket per timed-out call (README,
      // Tools).
      handshake.then((tls) => {
        if (!signal.aborted) return;
        try {
          tls.close();
        } catch {
          // already closed
        }
      }, () => undefined);
      conn = await abortable(handshake, signal);
      open = conn;
    }
    if (signal.aborted) throw new ToolEffectsError("aborted");
    await writeAll(conn, bytes);
    const head = await openResponse(source(conn));
    return {
      status: head.status,
      headers: head.headers,
      body: closing(head.body, signal, close),
      close,
    };
  } catch (e) {
    close();
    if (signal.aborted) throw new ToolEffectsError("aborted");
    throw e;
  }
}

/**
 * One request over TLS to a validated address: no redirects followed,
 * body capped, timeout and abort close the connection.
 */
export async function fetchOnce(
  request: HttpRequest,
  options: PinnedOptions,
): Promise<HttpResponse> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), request.timeoutMs);
  const signal = AbortSignal.any([request.signal, timeout.signal]);
  try {
    const opened = await openPinned({
      url: new URL(request.url),
      addresses: request.addresses,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal,
    }, options);
    try {
      return {
        ...await collectBody(opened, { maxBodyBytes: request.maxBodyBytes }),
      };
    } finally {
      opened.close();
    }
  } catch (e) {
    if (request.signal.aborted) throw new ToolEffectsError("aborted");
    if (timeout.signal.aborted) throw failed("timed out");
    throw wrap(e);
  } finally {
    clearTimeout(timer);
  }
}
