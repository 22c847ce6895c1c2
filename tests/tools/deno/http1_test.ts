/**
 * The HTTP/1.1 codec of the pinned connection (`tools/deno/_http1.ts`), fed
 * from scripted byte chunks: framing (length, chunked, until close, no
 * body), interim responses, the body cap, and a typed, bounded error for
 * every malformed response. No network.
 */
import assert from "node:assert/strict";
import {
  type ByteSource,
  HTTP1_LIMITS,
  HttpProtocolError,
  readResponse,
} from "../../../tools/deno/_http1.ts";
import { encodeRequest } from "../../../tools/deno/_http1_request.ts";

/** Serves `text` in pieces of `step` bytes (1 ⇒ byte by byte), then ends. */
function bytes(text: string | Uint8Array, step = 7): ByteSource {
  const all = typeof text === "string"
    ? Uint8Array.from(text, (c) => c.charCodeAt(0))
    : text;
  let at = 0;
  let reads = 0;
  return {
    read(into) {
      reads++;
      if (reads > all.length + 10) throw new Error("read past the end");
      if (at >= all.length) return Promise.resolve(null);
      const n = Math.min(step, into.length, all.length - at);
      into.set(all.subarray(at, at + n));
      at += n;
      return Promise.resolve(n);
    },
  };
}

function text(b: Uint8Array): string {
  return new TextDecoder().decode(b);
}

Deno.test("readResponse() frames bodies per RFC 9112", async (t) => {
  const rows: [string, string, number, string, boolean][] = [
    [
      "content-length (trailing bytes ignored)",
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA",
      100,
      "hello",
      false,
    ],
    [
      "chunked with extensions and trailers",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 99\r\n\r\n" +
      "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
      100,
      "hello world",
      false,
    ],
    [
      "until close",
      "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it",
      100,
      "all of it",
      false,
    ],
    [
      "no body on 204 and 304",
      "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\nignored!!!",
      100,
      "",
      false,
    ],
    [
      "a bare LF and a missing reason phrase",
      "HTTP/1.1 302\nLocation: https://x.example/\n\n",
      100,
      "",
      false,
    ],
    [
      "interim 1xx responses are skipped",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" +
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
      100,
      "ok",
      false,
    ],
    [
      "content-length over the cap",
      "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789",
      4,
      "0123",
      true,
    ],
    [
      "chunked over the cap",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n",
      4,
      "abcd",
      true,
    ],
    [
      "until close over the cap",
      "HTTP/1.1 200 OK\r\n\r\n" + "x".repeat(1000),
      10,
      "x".repeat(10),
      true,
    ],
  ];
  for (const [name, raw, max, body, truncated] of rows) {
    await t.step(name, async () => {
      for (const step of [1, 7, 4096]) {
        const r = await readResponse(bytes(raw, step), { maxBodyBytes: max });
        assert.equal(text(r.body), body, `step ${step}`);
        assert.equal(r.bodyTruncated, truncated, `step ${step}`);
      }
    });
  }
});

Deno.test("readResponse() lowercases and joins repeated headers", async () => {
  const r = await readResponse(
    bytes(
      "HTTP/1.1 301 Moved\r\nLocation:  https://a.example/next \r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nContent-Length: 0\r\n\r\n",
    ),
    { maxBodyBytes: 10 },
  );
  assert.equal(r.status, 301);
  assert.deepEqual(r.headers, {
    location: "https://a.example/next",
    "set-cookie": "a=1, b=2",
    "content-length": "0",
  });
});

Deno.test("readResponse() refuses malformed responses with a typed reason", async (t) => {
  const long = "x".repeat(HTTP1_LIMITS.lineBytes + 10);
  const many = Array.from(
    { length: HTTP1_LIMITS.headerCount + 1 },
    (_, i) => `X-${i}: v\r\n`,
  ).join("");
  const rows: [string, string, string][] = [
    ["not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", "status_line"],
    ["HTTP/2 status line", "HTTP/2 200\r\n\r\n", "status_line"],
    ["status out of range", "HTTP/1.1 099 Low\r\n\r\n", "status_line"],
    ["status above 599", "HTTP/1.1 600 High\r\n\r\n", "status_line"],
    ["empty stream", "", "unexpected_end"],
    ["ends inside the headers", "HTTP/1.1 200 OK\r\nA: b", "unexpected_end"],
    [
      "a header without a colon",
      "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n",
      "header_line",
    ],
    ["a folded header", "HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n", "header_line"],
    [
      "a bare CR in a header",
      "HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n",
      "header_line",
    ],
    ["a NUL in a header", "HTTP/1.1 200 OK\r\nA: b\0\r\n\r\n", "header_line"],
    ["an endless status line", `HTTP/1.1 200 ${long}`, "headers_too_large"],
    [
      "an endless header line",
      `HTTP/1.1 200 OK\r\nA: ${long}\r\n\r\n`,
      "headers_too_large",
    ],
    ["too many headers", `HTTP/1.1 200 OK\r\n${many}\r\n`, "headers_too_large"],
    [
      "a bad content-length",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
      "content_length",
    ],
    [
      "conflicting content-lengths",
      "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nab",
      "content_length",
    ],
    [
      "a short body",
      "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc",
      "unexpected_end",
    ],
    [
      "a bad chunk size",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "chunk",
    ],
    [
      "a chunk without its CRLF",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n",
      "chunk",
    ],
    [
      "a chunked body cut short",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab",
      "unexpected_end",
    ],
    ["an upgrade", "HTTP/1.1 101 Switching Protocols\r\n\r\n", "upgrade"],
    [
      "endless interim responses",
      "HTTP/1.1 100 Continue\r\n\r\n".repeat(HTTP1_LIMITS.interimResponses + 2),
      "status_line",
    ],
  ];
  for (const [name, raw, reason] of rows) {
    await t.step(name, async () => {
      await assert.rejects(
        readResponse(bytes(raw, 5), { maxBodyBytes: 100 }),
        (e: unknown) => {
          assert.ok(e instanceof HttpProtocolError, String(e));
          assert.equal(e.reason, reason);
          assert.ok(!e.message.includes("OpenSSH"), "no server text echoed");
          return true;
        },
      );
    });
  }
});

Deno.test("encodeRequest() writes one close-delimited request with fixed framing", () => {
  const out = new TextDecoder().decode(
    encodeRequest(new URL("https://pinned.test:8443/a%20b?q=1#frag"), {
      method: "POST",
      headers: {
        Accept: "application/json",
        Host: "evil.example",
        "Content-Length": "999",
        Connection: "keep-alive",
        "Accept-Encoding": "gzip",
        "Bad Name": "x",
        "X-Crlf": "a\r\nInjected: 1",
      },
      body: "héllo",
      userAgent: "Deno/test",
    }),
  );
  assert.equal(
    out,
    [
      "POST /a%20b?q=1 HTTP/1.1",
      "host: pinned.test:8443",
      "accept: application/json",
      "user-agent: Deno/test",
      "content-type: text/plain;charset=UTF-8",
      "accept-encoding: identity",
      "content-length: 6",
      "connection: close",
      "",
      "héllo",
    ].join("\r\n"),
  );
  const get = new TextDecoder().decode(
    encodeRequest(new URL("https://[2001:db8::1]/"), {
      method: "GET",
      headers: {},
      userAgent: "Deno/test",
    }),
  );
  assert.match(get, /^GET \/ HTTP\/1\.1\r\nhost: \[2001:db8::1\]\r\n/);
  assert.ok(!get.includes("content-length"));
  assert.throws(
    () =>
      encodeRequest(new URL("https://a.example/"), {
        method: "GET",
        headers: { "X-Emoji": "☃" },
        userAgent: "Deno/test",
      }),
    TypeError,
  );
});
