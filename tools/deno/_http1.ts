/**
 * Private: the strict, bounded HTTP/1.1 response reader of
 * `http_request`'s pinned connection (`_deno_net.ts`; the request side is
 * `_http1_request.ts`). One request per connection (`Connection: close`);
 * the response is framed by RFC 9112's message-length rules (no
 * body for 1xx/204/304, `Transfer-Encoding: chunked` last, else
 * `Content-Length`, else until close), interim 1xx responses are skipped,
 * and every read is bounded: the status line and each header line, the
 * header section, the header count, chunk-size lines, trailers and the
 * body (one byte past `maxBodyBytes` sets `bodyTruncated` and stops). The
 * body can also stream ({@linkcode openResponse}: the MCP HTTP transport
 * reads an open event stream piece by piece, bounding its lines itself). A
 * malformed response is an {@linkcode HttpProtocolError}. No Deno APIs:
 * bytes come from a {@linkcode ByteSource}.
 *
 * @module
 */

/**
 * Where response bytes come from; `null` is the end of the stream.
 */
export interface ByteSource {
  read(into: Uint8Array): Promise<number | null>;
}

/**
 * What was wrong with a response (no server text is echoed).
 */
export type HttpProtocolReason =
  | "status_line"
  | "header_line"
  | "headers_too_large"
  | "content_length"
  | "chunk"
  | "unexpected_end"
  | "upgrade";

/**
 * A response that is not valid, bounded HTTP/1.1.
 */
export class HttpProtocolError extends Error {
  /** Which rule the response broke. */
  readonly reason: HttpProtocolReason;
  constructor(reason: HttpProtocolReason) {
    super(`Invalid HTTP response: ${reason.replaceAll("_", " ")}`);
    this.name = "HttpProtocolError";
    this.reason = reason;
  }
}

/**
 * A parsed response; the body holds at most `maxBodyBytes` bytes.
 */
export interface Http1Response {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  bodyTruncated: boolean;
}

/**
 * Bounds of one response (the defaults are generous for real servers).
 */
export const HTTP1_LIMITS = {
  lineBytes: 16 * 1024,
  headerBytes: 64 * 1024,
  headerCount: 256,
  interimResponses: 8,
} as const;

/**
 * An RFC 9110 token (method, header name).
 */
export const TOKEN: RegExp = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const STATUS = /^HTTP\/1\.[01] ([1-5]\d\d)(?: [\t\x20-\x7e\x80-\xff]*)?$/;

/** A buffered reader with bounded line reads. */
class Reader {
  #src: ByteSource;
  #buf = new Uint8Array(16 * 1024);
  #start = 0;
  #end = 0;
  #eof = false;

  constructor(src: ByteSource) {
    this.#src = src;
  }

  /** Reads more bytes into the buffer; `false` at the end of the stream. */
  async #fill(): Promise<boolean> {
    if (this.#eof) return false;
    if (this.#start > 0) {
      this.#buf.copyWithin(0, this.#start, this.#end);
      this.#end -= this.#start;
      this.#start = 0;
    }
    if (this.#end === this.#buf.length) {
      const bigger = new Uint8Array(this.#buf.length * 2);
      bigger.set(this.#buf);
      this.#buf = bigger;
    }
    const n = await this.#src.read(this.#buf.subarray(this.#end));
    if (n === null || n === 0) {
      this.#eof = true;
      return false;
    }
    this.#end += n;
    return true;
  }

  /** One line without its CRLF (a bare LF is accepted, a bare CR is not). */
  async line(max: number): Promise<string> {
    let scanned = 0; // bytes after #start already searched for LF
    while (true) {
      const from = this.#start + scanned;
      const lf = this.#buf.subarray(from, this.#end).indexOf(0x0a);
      if (lf >= 0) {
        const endAt = from + lf;
        if (endAt - this.#start > max) break;
        let text = this.#buf.subarray(this.#start, endAt);
        if (text.at(-1) === 0x0d) text = text.subarray(0, -1);
        this.#start = endAt + 1;
        if (text.includes(0x0d) || text.includes(0)) {
          throw new HttpProtocolError("header_line");
        }
        return latin1(text);
      }
      scanned = this.#end - this.#start;
      if (this.#end - this.#start > max) break;
      if (!await this.#fill()) throw new HttpProtocolError("unexpected_end");
    }
    throw new HttpProtocolError("headers_too_large");
  }

  /** Up to `max` buffered-or-read bytes; an empty array at the end. */
  async chunk(max: number): Promise<Uint8Array> {
    if (this.#start === this.#end && !await this.#fill()) {
      return new Uint8Array();
    }
    const n = Math.min(max, this.#end - this.#start);
    const out = this.#buf.slice(this.#start, this.#start + n);
    this.#start += n;
    return out;
  }
}

function latin1(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

/** Collects at most `max` bytes and whether more were offered. */
class Sink {
  readonly parts: Uint8Array[] = [];
  size = 0;
  truncated = false;
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  /** Keeps what fits; `false` once the cap is passed (stop reading). */
  push(bytes: Uint8Array): boolean {
    const room = this.#max - this.size;
    if (bytes.length > room) {
      this.parts.push(bytes.subarray(0, room));
      this.size += room;
      this.truncated = true;
      return false;
    }
    this.parts.push(bytes);
    this.size += bytes.length;
    return true;
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

async function readHeaders(
  r: Reader,
  into: Record<string, string>,
): Promise<void> {
  let total = 0;
  let count = 0;
  while (true) {
    const line = await r.line(HTTP1_LIMITS.lineBytes);
    total += line.length + 2;
    if (total > HTTP1_LIMITS.headerBytes) {
      throw new HttpProtocolError("headers_too_large");
    }
    if (line === "") return;
    if (++count > HTTP1_LIMITS.headerCount) {
      throw new HttpProtocolError("headers_too_large");
    }
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) throw new HttpProtocolError("header_line");
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    const key = name.toLowerCase();
    into[key] = Object.hasOwn(into, key) ? `${into[key]}, ${value}` : value;
  }
}

function contentLength(value: string): number {
  const parts = value.split(",").map((p) => p.trim());
  const first = parts[0] ?? "";
  if (!/^\d{1,15}$/.test(first) || parts.some((p) => p !== first)) {
    throw new HttpProtocolError("content_length");
  }
  return Number(first);
}

/** Exactly `length` body bytes, in pieces. */
async function* lengthBody(
  r: Reader,
  length: number,
): AsyncGenerator<Uint8Array, void> {
  let left = length;
  while (left > 0) {
    const got = await r.chunk(Math.min(left, 64 * 1024));
    if (got.length === 0) throw new HttpProtocolError("unexpected_end");
    left -= got.length;
    yield got;
  }
}

/** Every byte until the peer closes. */
async function* closeBody(r: Reader): AsyncGenerator<Uint8Array, void> {
  while (true) {
    const got = await r.chunk(64 * 1024);
    if (got.length === 0) return;
    yield got;
  }
}

/** A chunked body, its size lines and trailers bounded. */
async function* chunkedBody(r: Reader): AsyncGenerator<Uint8Array, void> {
  while (true) {
    const line = await r.line(1024);
    const size = line.split(";")[0]?.trim() ?? "";
    if (!/^[0-9a-fA-F]{1,12}$/.test(size)) {
      throw new HttpProtocolError("chunk");
    }
    const n = parseInt(size, 16);
    if (n === 0) {
      await readHeaders(r, {}); // trailers, bounded, discarded
      return;
    }
    yield* lengthBody(r, n);
    if (await r.line(2) !== "") throw new HttpProtocolError("chunk");
  }
}

/**
 * A response whose head is read and whose body streams: pieces arrive
 * as the peer sends them, framed as the head says, until the end of the
 * message (a body read until close may stay open).
 */
export interface Http1Stream {
  status: number;
  headers: Record<string, string>;
  body: AsyncGenerator<Uint8Array, void>;
}

/**
 * Reads the head of one response from `src`, skipping interim 1xx
 * responses, and leaves the body to stream. A 101 (we never ask to
 * upgrade) is an error.
 */
export async function openResponse(src: ByteSource): Promise<Http1Stream> {
  const r = new Reader(src);
  for (let interim = 0; interim <= HTTP1_LIMITS.interimResponses; interim++) {
    const m = STATUS.exec(await r.line(HTTP1_LIMITS.lineBytes));
    if (m === null) throw new HttpProtocolError("status_line");
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    await readHeaders(r, headers);
    if (status === 101) throw new HttpProtocolError("upgrade");
    if (status < 200) continue;
    const te = headers["transfer-encoding"];
    let body: AsyncGenerator<Uint8Array, void>;
    if (status === 204 || status === 304) {
      body = lengthBody(r, 0);
    } else if (te !== undefined) {
      const last = te.split(",").at(-1)?.trim().toLowerCase();
      body = last === "chunked" ? chunkedBody(r) : closeBody(r);
    } else if (headers["content-length"] !== undefined) {
      body = lengthBody(r, contentLength(headers["content-length"]));
    } else {
      body = closeBody(r);
    }
    return { status, headers, body };
  }
  throw new HttpProtocolError("status_line");
}

/**
 * Collects a streaming body: at most `maxBodyBytes` bytes, reading stops
 * one byte past the cap (`bodyTruncated`).
 */
export async function collectBody(
  response: Http1Stream,
  options: { maxBodyBytes: number },
): Promise<Http1Response> {
  const sink = new Sink(options.maxBodyBytes);
  for await (const piece of response.body) if (!sink.push(piece)) break;
  return {
    status: response.status,
    headers: response.headers,
    body: sink.bytes(),
    bodyTruncated: sink.truncated,
  };
}

/**
 * Reads one whole response from `src` ({@linkcode openResponse}, then
 * {@linkcode collectBody}).
 */
export async function readResponse(
  src: ByteSource,
  options: { maxBodyBytes: number },
): Promise<Http1Response> {
  return await collectBody(await openResponse(src), options);
}
