/**
 * Request-header scrubbing for `http_request`: hop-by-hop,
 * routing and proxy headers are dropped, as are names that are not HTTP
 * tokens and values containing CR, LF or NUL.
 *
 * @module
 */

const DROPPED: ReadonlySet<string> = new Set([
  "host",
  ":authority",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "upgrade",
  "proxy-authenticate",
  "proxy-authorization",
  "expect",
  "x-forwarded-host",
  "x-forwarded-for",
  "x-forwarded-proto",
  "forwarded",
]);

/** RFC 9110 `token`: visible ASCII except separators. */
function isToken(name: string): boolean {
  if (name === "") return false;
  for (const ch of name) {
    const c = ch.charCodeAt(0);
    if (c <= 0x20 || c >= 0x7f) return false;
    if ('"(),/:;<=>?@[\\]{}'.includes(ch)) return false;
  }
  return true;
}

/**
 * Drops the listed headers (case-insensitive), non-token
 * names and values with CR, LF or NUL; keeps the rest with lowercase
 * names.
 *
 * @param headers Model-supplied headers.
 * @returns The headers that may be sent, and the names that were dropped.
 */
export function scrubRequestHeaders(
  headers: Readonly<Record<string, string>>,
): { headers: Record<string, string>; dropped: string[] } {
  const out: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    const badValue = /[\r\n\0]/.test(value);
    if (DROPPED.has(name) || !isToken(rawName) || badValue) {
      dropped.push(name);
      continue;
    }
    out[name] = value;
  }
  return { headers: out, dropped };
}
