/**
 * Provider failures a person can act on, through `agent run` against
 * loopback servers: the provider's own text reaches stderr and the
 * `--json` event (a configured key never does, even one not shaped like
 * a key), `-v` adds the request id; a refused connection names the URL
 * and the cause; a timeout says which bound expired.
 */
import assert from "node:assert/strict";
import { tempDir } from "../_helpers.ts";
import { agentRunOnFakeAnthropic, serve } from "../_fake_providers.ts";
import { silentServer } from "../../llm/adapters/_server.ts";

/** A configured key that no key-shaped pattern would catch. */
const KEY = "relavium-configured-credential-0042";

function refusing(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "request-id": "req_7f3a" },
  });
}

Deno.test("a 401's own words reach stderr and the event, the configured key never does", async () => {
  await using dir = await tempDir();
  const unauthorized = () =>
    refusing(401, {
      type: "error",
      error: {
        type: "authentication_error",
        message: `invalid x-api-key: ${KEY}`,
      },
    });
  const server = serve([unauthorized, unauthorized]);
  try {
    const plain = await agentRunOnFakeAnthropic(dir.path, server.url, {
      stdin: "hello\n",
      key: KEY,
      flags: ["-v"],
    });
    assert.equal(plain.code, 1);
    assert.match(
      plain.stderr,
      /\[turn failed: provider_auth\] The provider rejected the credentials \(fake-anthropic, HTTP 401\): invalid x-api-key: \[redacted\]\n/,
    );
    assert.match(plain.stderr, /\[request id: req_7f3a\]/, "-v names it");
    const json = await agentRunOnFakeAnthropic(dir.path, server.url, {
      stdin: "hello\n",
      key: KEY,
    });
    assert.equal(json.code, 1);
    assert.match(json.stdout, /"code":"provider_auth"/);
    assert.match(json.stdout, /invalid x-api-key: \[redacted\]/);
    assert.match(json.stdout, /"correlationId":"req_7f3a"/);
    for (const out of [plain.stdout, plain.stderr, json.stdout, json.stderr]) {
      assert.ok(!out.includes(KEY), "the configured key never leaves");
    }
  } finally {
    await server.close();
  }
});

Deno.test("a 404 and a 400 say what the provider said, not only a code", async () => {
  await using dir = await tempDir();
  const server = serve([
    () =>
      refusing(404, {
        type: "error",
        error: { type: "not_found_error", message: "model: claude-nope" },
      }),
    () =>
      refusing(400, {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "temperature: unsupported parameter for this model",
        },
      }),
  ]);
  try {
    const a = await agentRunOnFakeAnthropic(dir.path, server.url, {
      stdin: "hello\n",
      flags: [],
    });
    assert.equal(a.code, 1);
    assert.match(a.stderr, /HTTP 404\): model: claude-nope/);
    const b = await agentRunOnFakeAnthropic(dir.path, server.url, {
      stdin: "hello\n",
      flags: [],
    });
    assert.match(
      b.stderr,
      /\[turn failed: validation\] The provider rejected the request \(fake-anthropic, HTTP 400\): temperature: unsupported parameter/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("a refused connection names the URL and the cause", async () => {
  await using dir = await tempDir();
  // A port that was just free and is now closed: the connection is refused.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const url = `http://127.0.0.1:${port}`;
  const r = await agentRunOnFakeAnthropic(dir.path, url, {
    stdin: "hello\n",
    flags: [],
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /\[turn failed: provider_unavailable\]/);
  assert.ok(
    r.stderr.includes(`Could not connect to ${url}/v1/messages`),
    r.stderr,
  );
  assert.match(r.stderr, /connection refused/);
});

Deno.test("a first-byte timeout says which bound expired", async () => {
  await using dir = await tempDir();
  const server = silentServer();
  try {
    const r = await agentRunOnFakeAnthropic(dir.path, server.url, {
      stdin: "hello\n",
      flags: [],
      extra: { first_byte_timeout_ms: 150 },
    });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /No content within 150 ms of the request \(first-byte timeout\)/,
    );
  } finally {
    server.close();
  }
});
