/**
 * The MCP HTTP transport's fetch over the pinned connection: the
 * request goes to the checked address with the URL's host, a body
 * streams as the server sends it (an open event stream is closed by
 * abort), a content-length body is read whole, redirects are refused
 * and a body line past the bound is an error.
 */
import assert from "node:assert/strict";
import { guardedFetch } from "../../../tools/mcp/http_fetch.ts";

interface Seen {
  method: string;
  host: string;
  auth: string;
  type: string;
  body: string;
}

async function withServer(
  fn: (port: number, seen: Seen[], ended: Promise<void>) => Promise<void>,
): Promise<void> {
  const seen: Seen[] = [];
  let endStream = (): void => {};
  const ended = new Promise<void>((r) => endStream = r);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      seen.push({
        method: req.method,
        host: req.headers.get("host") ?? "",
        auth: req.headers.get("authorization") ?? "",
        type: req.headers.get("content-type") ?? "",
        body: await req.text(),
      });
      const path = new URL(req.url).pathname;
      if (path === "/json") {
        return Response.json({ jsonrpc: "2.0", id: 1, result: {} });
      }
      if (path === "/moved") {
        return new Response(null, {
          status: 307,
          headers: { location: "http://10.0.0.1/" },
        });
      }
      if (path === "/long") return new Response("x".repeat(40));
      // An event stream that stays open until the client goes away.
      const enc = new TextEncoder();
      return new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(enc.encode("event: message\ndata: one\n\n"));
          },
          cancel() {
            endStream();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    },
  );
  try {
    await fn(server.addr.port, seen, ended);
  } finally {
    await server.shutdown();
  }
}

function pinned(connects: string[], maxLine?: number) {
  return guardedFetch({
    allowLocalEndpoint: true,
    headers: { authorization: "Bearer planted" },
    resolve: () => Promise.resolve(["127.0.0.1"]),
    connect: (to) => {
      connects.push(to.hostname);
      return Deno.connect(to);
    },
    ...(maxLine === undefined ? {} : { maxLine }),
  });
}

Deno.test("a POST over the pinned connection reaches the checked address with the URL's host and a whole content-length body", async () => {
  await withServer(async (port, seen) => {
    const connects: string[] = [];
    const r = await pinned(connects)(`http://mcp.test:${port}/json`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { jsonrpc: "2.0", id: 1, result: {} });
    assert.deepEqual(connects, ["127.0.0.1"]);
    assert.deepEqual(seen, [{
      method: "POST",
      host: `mcp.test:${port}`,
      auth: "Bearer planted",
      type: "application/json",
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    }]);
  });
});

Deno.test("an open event stream streams over the pinned connection and an abort closes it", async () => {
  await withServer(async (port, _seen, ended) => {
    const abort = new AbortController();
    const r = await pinned([])(`http://mcp.test:${port}/events`, {
      headers: { accept: "text/event-stream" },
      signal: abort.signal,
    });
    assert.equal(r.headers.get("content-type"), "text/event-stream");
    assert.ok(r.body !== null);
    const reader = r.body.getReader();
    const first = await reader.read();
    assert.equal(
      new TextDecoder().decode(first.value),
      "event: message\ndata: one\n\n",
    );
    const next = reader.read();
    abort.abort();
    await assert.rejects(next);
    await ended; // the server saw the connection go
  });
});

Deno.test("a redirect is refused and a body line past the bound is an error", async () => {
  await withServer(async (port) => {
    const connects: string[] = [];
    await assert.rejects(
      pinned(connects)(`http://mcp.test:${port}/moved`),
      /MCP server answered a redirect \(307\), which is not followed/,
    );
    const r = await pinned(connects, 16)(`http://mcp.test:${port}/long`);
    await assert.rejects(
      r.text(),
      /MCP server sent a line longer than 16 bytes/,
    );
    assert.deepEqual(connects, ["127.0.0.1", "127.0.0.1"]);
  });
});
