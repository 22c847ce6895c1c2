/**
 * Private: the request side of `http_request`'s HTTP/1.1 exchange
 * (`_http1.ts` reads the response).
 *
 * @module
 */
import { TOKEN } from "./_http1.ts";

const FORCED = new Set(["connection", "host", "accept-encoding"]);
const FRAMING = new Set(["content-length", "transfer-encoding", "te"]);

/**
 * The request bytes: request line (origin form), `Host` from the URL,
 * the caller's headers (names and values re-checked; framing and
 * connection headers dropped), defaults for `accept` / `user-agent` /
 * `content-type` like `fetch`, `accept-encoding: identity` (the body is
 * returned as is, so no compressed encodings are requested),
 * `content-length` for a body (and 0 for a bodiless POST/PUT), and
 * `connection: close`.
 */
export function encodeRequest(
  url: URL,
  request: {
    method: string;
    headers: Readonly<Record<string, string>>;
    body?: string;
    userAgent: string;
  },
): Uint8Array {
  const target = `${url.pathname}${url.search}`;
  if (!/^\/[\x21-\x7e]*$/.test(target) || !TOKEN.test(request.method)) {
    throw new TypeError("Cannot encode the request line");
  }
  const body = request.body === undefined
    ? undefined
    : new TextEncoder().encode(request.body);
  const lines = [`${request.method} ${target} HTTP/1.1`, `host: ${url.host}`];
  const given = new Set<string>();
  for (const [raw, value] of Object.entries(request.headers)) {
    const name = raw.toLowerCase();
    if (!TOKEN.test(raw) || /[\r\n\0]/.test(value)) continue;
    if (/[\u0100-\uffff]/.test(value)) {
      throw new TypeError("Cannot encode a header value");
    }
    if (FORCED.has(name) || FRAMING.has(name)) continue;
    given.add(name);
    lines.push(`${name}: ${value}`);
  }
  if (!given.has("accept")) lines.push("accept: */*");
  if (!given.has("user-agent")) lines.push(`user-agent: ${request.userAgent}`);
  if (body !== undefined && !given.has("content-type")) {
    lines.push("content-type: text/plain;charset=UTF-8");
  }
  lines.push("accept-encoding: identity");
  if (body !== undefined) lines.push(`content-length: ${body.length}`);
  else if (request.method === "POST" || request.method === "PUT") {
    lines.push("content-length: 0");
  }
  lines.push("connection: close", "", "");
  const text = lines.join("\r\n");
  const head = Uint8Array.from(text, (c) => c.charCodeAt(0)); // latin1
  if (body === undefined) return head;
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}
