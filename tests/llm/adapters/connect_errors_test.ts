/**
 * A failed connection reads as its URL and a cause a person can act on:
 * real `fetch` failures against loopback (a closed port, TLS spoken to a
 * plain HTTP server) and the transport's DNS and permission wording.
 */
import assert from "node:assert/strict";
import { fetchError } from "../../../llm/_http_errors.ts";

const keep = (text: string): string => text;

async function thrownBy(url: string): Promise<unknown> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await r.body?.cancel();
  } catch (thrown) {
    return thrown;
  }
  throw new Error(`fetch ${url} did not fail`);
}

Deno.test("a closed port: connection refused, with the URL", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const url = `http://127.0.0.1:${port}/v1/messages`;
  const e = fetchError(await thrownBy(url), "p", undefined, keep, url);
  assert.equal(e.kind, "transport");
  assert.equal(e.message, `Could not connect to ${url}: connection refused`);
  assert.equal(e.retryable, true);
});

Deno.test("TLS spoken to a plain HTTP server: a TLS failure", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("plain"),
  );
  try {
    const url = `https://127.0.0.1:${server.addr.port}/`;
    const e = fetchError(await thrownBy(url), "p", undefined, keep, url);
    assert.match(
      e.message,
      /^Could not connect to https:\/\/127\.0\.0\.1:\d+\/: TLS failure: /,
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("the transport's DNS, reset, permission and unknown wordings", async (t) => {
  const deno = (detail: string): Error =>
    new TypeError("fetch failed", {
      cause: new Error(
        `error sending request for url (https://api.example.test/v1): client error (Connect): ${detail}`,
      ),
    });
  const cases: Array<[string, unknown, string]> = [
    [
      "dns",
      deno(
        "dns error: failed to lookup address information: Name or service not known",
      ),
      "the host name does not resolve (DNS lookup failed)",
    ],
    ["reset", deno("connection reset by peer"), "the connection was reset"],
    [
      "permission",
      Object.assign(
        new Error('Requires net access to "api.example.test:443"'),
        { name: "NotCapable" },
      ),
      "needs the Deno permission --allow-net=api.example.test:443",
    ],
    ["other", deno("something new"), "something new"],
  ];
  for (const [name, thrown, cause] of cases) {
    await t.step(name, () => {
      const url = "https://api.example.test/v1";
      const e = fetchError(thrown, "p", undefined, keep, url);
      assert.equal(e.message, `Could not connect to ${url}: ${cause}`);
    });
  }
});

Deno.test("an aborted request is cancelled, whatever the transport said", () => {
  const controller = new AbortController();
  controller.abort();
  const e = fetchError(
    new TypeError("fetch failed"),
    "p",
    controller.signal,
    keep,
    "http://127.0.0.1:1/",
  );
  assert.equal(e.kind, "cancelled");
});

Deno.test("the URL in the message is redacted like any text", () => {
  const e = fetchError(
    new TypeError("fetch failed"),
    "p",
    undefined,
    (text) => text.replaceAll("s3cret", "[redacted]"),
    "https://user:s3cret@api.example.test/v1",
  );
  assert.ok(!e.message.includes("s3cret"), e.message);
});
