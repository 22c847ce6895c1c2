/**
 * `http_request` end to end over TLS against a `Deno.serve` on
 * 127.0.0.1, port 0 — reachable only through the test-only
 * `allowLoopbackForTests` guardrail (the CLI never sets it) and the
 * host's extra test CA (`fixtures/tls`). Redirects come back to the model,
 * headers are scrubbed, oversized bodies and timeouts fail.
 */
import assert from "node:assert/strict";
import { allBuiltinTools } from "../../../tools/builtin/all.ts";
import { createDenoToolEffects } from "../../../tools/deno/effects.ts";
import type { ToolGuardrails } from "../../../tools/tool.ts";
import type { ToolLimits } from "../../../tools/sandbox/limits.ts";
import { createModePolicy } from "../../../tools/modes.ts";
import { createToolRegistry } from "../../../tools/registry_impl.ts";
import {
  grantAll,
  makeContext,
  messageOf,
  recordingHost,
  testTls,
} from "../_helpers.ts";

const { ca, cert, key } = await testTls();

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

async function withServer(
  handler: (req: Request) => Response | Promise<Response>,
  fn: (base: string, seen: Seen[]) => Promise<void>,
): Promise<void> {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen() {} },
    async (req) => {
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      seen.push({
        method: req.method,
        path: new URL(req.url).pathname,
        headers,
        body: await req.text(),
      });
      return handler(req);
    },
  );
  try {
    await fn(`https://127.0.0.1:${server.addr.port}`, seen);
  } finally {
    await server.shutdown();
  }
}

function rig(
  options: { guardrails?: ToolGuardrails; limits?: Partial<ToolLimits> } = {},
) {
  const recorded = recordingHost(createDenoToolEffects({ caCerts: [ca] }));
  const registry = createToolRegistry({
    tools: allBuiltinTools(),
    host: recorded.host,
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
    permissions: grantAll,
    guardrails: options.guardrails ??
      { allowedDomains: ["127.0.0.1"], allowLoopbackForTests: true },
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const modes = createModePolicy({ mode: "auto", interactive: false });
  async function call(args: Record<string, unknown>) {
    const t = makeContext({ granted: ["http_request"], policy: modes.policy });
    return await registry.dispatch(
      { id: "c", name: "http_request", args },
      t.ctx,
    );
  }
  return { call, calls: recorded.calls };
}

function result(o: Awaited<ReturnType<ReturnType<typeof rig>["call"]>>) {
  assert.equal(o.kind, "ok", messageOf(o));
  return JSON.parse(o.kind === "ok" ? o.modelResult : "{}") as {
    status: number;
    headers: Record<string, string>;
    body: string;
  };
}

Deno.test("http_request GETs and POSTs over TLS with scrubbed headers", async () => {
  await withServer(
    (req) =>
      new Response(`${req.method} ok`, {
        headers: { "content-type": "text/plain", "x-reply": "1" },
      }),
    async (base, seen) => {
      const r = rig();
      const got = result(
        await r.call({
          url: `${base}/hello?q=1`,
          headers: {
            Accept: "text/plain",
            "X-Ok": "yes",
            Host: "evil.example",
            "X-Forwarded-For": "1.2.3.4",
            Forwarded: "for=1.2.3.4",
            Connection: "close",
            "Bad Name": "x",
            "X-Crlf": "a\r\nInjected: 1",
          },
        }),
      );
      assert.equal(got.status, 200);
      assert.equal(got.body, "GET ok");
      assert.equal(got.headers["x-reply"], "1");
      const h = seen[0]?.headers ?? {};
      assert.equal(h["accept"], "text/plain");
      assert.equal(h["x-ok"], "yes");
      for (
        const dropped of [
          "x-forwarded-for",
          "forwarded",
          "injected",
          "x-crlf",
          "bad name",
        ]
      ) {
        assert.equal(h[dropped], undefined, dropped);
      }
      assert.notEqual(h["host"], "evil.example");
      const posted = result(
        await r.call({ url: `${base}/p`, method: "POST", body: "payload" }),
      );
      assert.equal(posted.body, "POST ok");
      assert.equal(seen[1]?.body, "payload");
    },
  );
});

Deno.test("http_request returns a redirect to a private address without following it", async () => {
  await withServer(
    () =>
      new Response(null, {
        status: 302,
        headers: { location: "https://169.254.169.254/latest/meta-data/" },
      }),
    async (base, seen) => {
      const r = rig();
      const got = result(await r.call({ url: `${base}/go` }));
      assert.equal(got.status, 302);
      assert.equal(
        got.headers["location"],
        "https://169.254.169.254/latest/meta-data/",
      );
      assert.equal(seen.length, 1);
      assert.equal(r.calls.filter((c) => c.op === "fetch").length, 1);
      const follow = await r.call({ url: got.headers["location"] ?? "" });
      assert.match(messageOf(follow), /ssrf_blocked/);
      assert.equal(seen.length, 1);
    },
  );
});

Deno.test("http_request fails on an oversized body and on a timeout", async () => {
  let release = (): void => {};
  const held = new Promise<void>((r) => (release = r));
  await withServer(
    async (req) => {
      if (new URL(req.url).pathname === "/slow") await held;
      return new Response("x".repeat(100));
    },
    async (base) => {
      const big = await rig({ limits: { httpBodyBytes: 16 } }).call({
        url: `${base}/big`,
      });
      assert.equal(big.kind, "fatal");
      if (big.kind === "fatal") assert.equal(big.error.code, "tool_failed");
      assert.match(messageOf(big), /exceeds 16 bytes/);
      const slow = await rig({ limits: { httpTimeoutMs: 200 } }).call({
        url: `${base}/slow`,
      });
      release();
      assert.equal(slow.kind, "fatal");
      assert.match(messageOf(slow), /timed out after 200 ms/);
    },
  );
});

Deno.test("without the test-only switch the loopback server is unreachable", async () => {
  await withServer(() => new Response("no"), async (base, seen) => {
    const r = rig({ guardrails: { allowedDomains: ["127.0.0.1"] } });
    const o = await r.call({ url: `${base}/` });
    assert.match(messageOf(o), /ssrf_blocked/);
    assert.deepEqual(r.calls, []);
    assert.equal(seen.length, 0);
  });
});

Deno.test("http_request reads a chunked body through the pinned connection", async () => {
  await withServer(
    () => {
      const parts = ["one ", "two ", "three"];
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          const p = parts.shift();
          if (p === undefined) c.close();
          else c.enqueue(new TextEncoder().encode(p));
        },
      });
      return new Response(body);
    },
    async (base) => {
      const got = result(await rig().call({ url: `${base}/stream` }));
      assert.equal(got.status, 200);
      assert.equal(got.headers["transfer-encoding"], "chunked");
      assert.equal(got.body, "one two three");
    },
  );
});

Deno.test("http_request reports a malformed response as tool_failed with its reason", async () => {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert,
    key,
  });
  const served = (async () => {
    const conn = await listener.accept();
    try {
      const buf = new Uint8Array(4096);
      await conn.read(buf); // the request head
      await conn.write(new TextEncoder().encode("SSH-2.0-nope\r\n\r\n"));
    } finally {
      conn.close();
    }
  })();
  try {
    const o = await rig().call({
      url: `https://127.0.0.1:${listener.addr.port}/`,
    });
    assert.equal(o.kind, "fatal");
    if (o.kind === "fatal") assert.equal(o.error.code, "tool_failed");
    assert.match(messageOf(o), /Invalid HTTP response: status line/);
    assert.ok(!messageOf(o).includes("SSH"), "no server text echoed");
  } finally {
    await served;
    listener.close();
  }
});
