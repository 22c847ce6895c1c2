/**
 * Who may talk to the server: the bearer token (compared in constant
 * time), single-use stream tickets for the page (never the token in a
 * URL), and the `Host` and `Origin` checks that stop DNS rebinding and
 * foreign pages.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Compares two secrets in time that depends only on their lengths.
 *
 * @param given What the caller sent.
 * @param expected The secret.
 * @returns Whether they are equal.
 */
export function secretEquals(given: string, expected: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/**
 * A fresh random secret: 32 bytes, base64url.
 *
 * @returns The secret.
 */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * Whether a request carries the token as `Authorization: Bearer <token>`.
 *
 * @param headers The request's headers.
 * @param token The server's token.
 * @returns Whether it is authorised.
 */
export function bearerOk(headers: Headers, token: string): boolean {
  const h = headers.get("authorization") ?? "";
  const m = /^Bearer ([^\s]+)$/.exec(h);
  return m !== null && secretEquals(m[1] ?? "", token);
}

/** How long a stream ticket is good for. */
export const TICKET_TTL_MS = 30_000;
const MAX_TICKETS = 1000;

/**
 * Single-use, session-bound, short-lived tickets that let a page open a
 * session's event stream (`EventSource` cannot send a header).
 */
export class Tickets {
  #live = new Map<string, { sessionId: string; expires: number }>();
  readonly #now: () => number;

  /**
   * Builds an empty ticket book.
   *
   * @param now The clock.
   */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Issues a ticket for one session.
   *
   * @param sessionId The session it opens.
   * @returns The ticket.
   */
  issue(sessionId: string): string {
    const now = this.#now();
    for (const [k, v] of this.#live) if (v.expires <= now) this.#live.delete(k);
    if (this.#live.size >= MAX_TICKETS) {
      const oldest = this.#live.keys().next().value;
      if (oldest !== undefined) this.#live.delete(oldest);
    }
    const ticket = randomSecret();
    this.#live.set(ticket, { sessionId, expires: now + TICKET_TTL_MS });
    return ticket;
  }

  /**
   * Spends a ticket: valid once, for its session, before it expires.
   *
   * @param ticket The ticket.
   * @param sessionId The session being opened.
   * @returns Whether it was good.
   */
  redeem(ticket: string, sessionId: string): boolean {
    const found = this.#live.get(ticket);
    if (found === undefined) return false;
    this.#live.delete(ticket);
    return found.sessionId === sessionId && found.expires > this.#now();
  }
}

/**
 * Which `Host` values a server bound to `host:port` answers: that name
 * (for a loopback bind, any loopback spelling). A wildcard bind
 * (`0.0.0.0`, `::`) has no one name, so it answers IP literals and
 * `localhost` only: a DNS name, the tool of a rebinding attack, is
 * refused.
 *
 * @param host The bound host.
 * @param port The bound port.
 * @returns Whether a `Host` header (lower case) is accepted.
 */
export function hostCheck(
  host: string,
  port: number,
): (value: string) => boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  const names = new Set([bare.includes(":") ? `[${bare}]` : bare]);
  if (isLoopback(host)) {
    for (const n of ["127.0.0.1", "localhost", "[::1]"]) names.add(n);
  }
  const wildcard = bare === "0.0.0.0" || bare === "::";
  return (value) => {
    const m = /^(\[[0-9a-f:.]+\]|[^:]+):(\d+)$/.exec(value);
    if (m === null || Number(m[2]) !== port) return false;
    const name = m[1] ?? "";
    if (names.has(name)) return true;
    return wildcard &&
      (name === "localhost" || /^\d{1,3}(\.\d{1,3}){3}$/.test(name) ||
        name.startsWith("["));
  };
}

/**
 * Whether a host name is a loopback address.
 *
 * @param host The host.
 * @returns `true` for 127.0.0.0/8, `::1` and `localhost`.
 */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Checks a request's `Host` and `Origin`: the host must be one the server
 * is bound as; an origin, when sent, must be the server's own or one of
 * the listed CORS origins.
 *
 * @param headers The request's headers.
 * @param hostOk Whether a `Host` value is accepted.
 * @param origins The listed CORS origins.
 * @returns `undefined` when allowed, else why not.
 */
export function checkHostAndOrigin(
  headers: Headers,
  hostOk: (value: string) => boolean,
  origins: readonly string[],
): string | undefined {
  const host = (headers.get("host") ?? "").toLowerCase();
  if (!hostOk(host)) return "Forbidden: unexpected Host header";
  const origin = headers.get("origin");
  if (origin === null) return undefined;
  if (origin === `http://${host}` || origins.includes(origin)) {
    return undefined;
  }
  return "Forbidden: foreign Origin";
}
