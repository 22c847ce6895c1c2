import assert from "node:assert/strict";
import { parseCassette } from "../../llm/mod.ts";
import { renderIssues } from "../../schema/issues.ts";

const FIXTURES = new URL("../fixtures/cassettes/", import.meta.url);
function fixture(name: string): string {
  return Deno.readTextFileSync(new URL(name, FIXTURES));
}

const STOP = {
  type: "stop",
  stopReason: "stop",
  usage: { inputTokens: 1, outputTokens: 1 },
};

Deno.test("parseCassette() reads a v1.0 cassette", () => {
  const r = parseCassette(
    fixture("v1_0_tool_round.json"),
    "v1_0_tool_round.json",
  );
  assert.ok(r.ok);
  assert.equal(r.value.version, "1.0");
  assert.equal(r.value.model, "informational-only");
  assert.equal(r.value.strict, false);
  assert.equal(r.value.file, "v1_0_tool_round.json");
  assert.ok(r.value.queues.kind === "single");
  assert.equal(r.value.queues.provider, "anthropic");
  assert.equal(r.value.queues.calls.length, 2);
  assert.equal(r.value.queues.calls[0]?.chunks[0]?.type, "tool_call_start");
});

Deno.test("parseCassette() reads v1.1 call objects, expect and strict", () => {
  const r = parseCassette(fixture("v1_1_expect.json"), "v1_1_expect.json");
  assert.ok(r.ok);
  assert.equal(r.value.strict, true);
  assert.ok(r.value.queues.kind === "single");
  assert.deepEqual(r.value.queues.calls[0]?.expect, {
    model: "gpt-5.4-mini",
    tools: ["read_file"],
    maxTokens: 1024,
  });
  assert.equal(r.value.queues.calls[2]?.expect, undefined);
  assert.equal(r.value.model, undefined);
});

Deno.test("parseCassette() reads a v1.1 providers map", () => {
  const r = parseCassette(fixture("v1_1_fallback.json"), "v1_1_fallback.json");
  assert.ok(r.ok);
  assert.ok(r.value.queues.kind === "per_provider");
  assert.deepEqual(Object.keys(r.value.queues.providers), [
    "anthropic",
    "openai",
  ]);
});

Deno.test("parseCassette() names the file and the JSON path of each problem", async (t) => {
  const cases: [
    string,
    string,
    { path: string; message: string | RegExp }[],
  ][] = [
    ["bad JSON", '{ "schema_version": "1.0", ', [{
      path: "",
      message: /^invalid JSON/,
    }]],
    ["not an object", "[]", [{ path: "", message: "must be a JSON object" }]],
    ["missing version", JSON.stringify({ provider: "openai", calls: [] }), [{
      path: "schema_version",
      message: "required",
    }]],
    [
      "unknown version",
      JSON.stringify({ schema_version: "2.0", provider: "openai", calls: [] }),
      [{
        path: "schema_version",
        message: 'unsupported version "2.0" (expected "1.0" or "1.1")',
      }],
    ],
    [
      "numeric version",
      JSON.stringify({ schema_version: 1, provider: "openai", calls: [] }),
      [{ path: "schema_version", message: /unsupported version 1 / }],
    ],
    ["invalid chunk type", fixture("bad_chunk.json"), [{
      path: "calls[1][0].type",
      message: "unknown chunk type",
    }]],
    [
      "chunk field",
      JSON.stringify({
        schema_version: "1.0",
        provider: "p",
        calls: [[{ type: "text_delta", text: 1 }]],
      }),
      [{ path: "calls[0][0].text", message: /expected string/ }],
    ],
    [
      "unknown chunk field",
      JSON.stringify({
        schema_version: "1.0",
        provider: "p",
        calls: [[{ type: "text_delta", text: "", x: 1 }, STOP]],
      }),
      [{ path: "calls[0][0].x", message: "unknown key" }],
    ],
    [
      "a call without a terminal chunk",
      JSON.stringify({
        schema_version: "1.0",
        provider: "p",
        calls: [[STOP], [{ type: "text_delta", text: "cut" }]],
      }),
      [{ path: "calls[1]", message: /^no terminal stop\/error chunk/ }],
    ],
    [
      "an empty call",
      JSON.stringify({ schema_version: "1.0", provider: "p", calls: [[]] }),
      [{ path: "calls[0]", message: /^no terminal stop\/error chunk/ }],
    ],
    [
      "a v1.1 call object without a terminal chunk",
      JSON.stringify({
        schema_version: "1.1",
        provider: "p",
        calls: [{ chunks: [{ type: "text_delta", text: "cut" }] }],
      }),
      [{ path: "calls[0].chunks", message: /^no terminal stop\/error chunk/ }],
    ],
    [
      "a provider queue call without a terminal chunk",
      JSON.stringify({
        schema_version: "1.1",
        providers: { openai: { calls: [[STOP], []] } },
      }),
      [{
        path: "providers.openai.calls[1]",
        message: /^no terminal stop\/error chunk/,
      }],
    ],
    [
      "retryable mismatch",
      JSON.stringify({
        schema_version: "1.0",
        provider: "p",
        calls: [[{
          type: "error",
          error: { kind: "auth", provider: "p", message: "m", retryable: true },
        }]],
      }),
      [{
        path: "calls[0][0].error.retryable",
        message: "retryable must match the error kind",
      }],
    ],
    [
      "calls not an array",
      JSON.stringify({ schema_version: "1.0", provider: "p", calls: {} }),
      [{ path: "calls", message: "must be an array of calls" }],
    ],
    [
      "call not an array",
      JSON.stringify({
        schema_version: "1.0",
        provider: "p",
        calls: [[STOP], "x"],
      }),
      [{ path: "calls[1]", message: "must be an array" }],
    ],
    [
      "missing calls",
      JSON.stringify({ schema_version: "1.0", provider: "p" }),
      [{ path: "calls", message: "required" }],
    ],
    ["missing provider", JSON.stringify({ schema_version: "1.0", calls: [] }), [
      { path: "provider", message: "required" },
    ]],
    [
      "unknown top-level key",
      JSON.stringify({
        schema_version: "1.0",
        provider: "p",
        calls: [],
        record: true,
      }),
      [{ path: "record", message: "unknown key" }],
    ],
    [
      "chunk after terminal",
      JSON.stringify({
        schema_version: "1.0",
        provider: "p",
        calls: [[STOP, { type: "text_delta", text: "late" }]],
      }),
      [{ path: "calls[0][1]", message: "chunk after the terminal stop/error" }],
    ],
    ["v1.1 features in a 1.0 file", fixture("v1_0_uses_v1_1.json"), [
      { path: "strict", message: 'requires schema_version "1.1"' },
      {
        path: "calls[0]",
        message: 'a {chunks, expect} call requires schema_version "1.1"',
      },
    ]],
    [
      "providers in a 1.0 file",
      JSON.stringify({
        schema_version: "1.0",
        provider: "p",
        calls: [],
        providers: {},
      }),
      [{ path: "providers", message: 'requires schema_version "1.1"' }],
    ],
    [
      "providers with provider/calls",
      JSON.stringify({
        schema_version: "1.1",
        provider: "p",
        providers: { p: { calls: [] } },
      }),
      [{
        path: "providers",
        message: "cannot be combined with provider/calls",
      }],
    ],
    [
      "providers queue key",
      JSON.stringify({
        schema_version: "1.1",
        providers: { openai: { calls: [[STOP]], model: "x" } },
      }),
      [{ path: "providers.openai.model", message: "unknown key" }],
    ],
    [
      "providers queue chunk",
      JSON.stringify({
        schema_version: "1.1",
        providers: { openai: { calls: [[{ type: "nope" }]] } },
      }),
      [{
        path: "providers.openai.calls[0][0].type",
        message: "unknown chunk type",
      }],
    ],
    [
      "empty providers",
      JSON.stringify({ schema_version: "1.1", providers: {} }),
      [{
        path: "providers",
        message: "must be a non-empty object of provider ids",
      }],
    ],
    [
      "unknown expect key",
      JSON.stringify({
        schema_version: "1.1",
        provider: "p",
        calls: [{ chunks: [STOP], expect: { modle: "x" } }],
      }),
      [{ path: "calls[0].expect.modle", message: "unknown key" }],
    ],
    [
      "bad expect value",
      JSON.stringify({
        schema_version: "1.1",
        provider: "p",
        calls: [{ chunks: [STOP], expect: { maxTokens: "9" } }],
      }),
      [{ path: "calls[0].expect.maxTokens", message: /expected number/ }],
    ],
    [
      "call object without chunks",
      JSON.stringify({
        schema_version: "1.1",
        provider: "p",
        calls: [{ expect: {} }],
      }),
      [{ path: "calls[0].chunks", message: "required" }],
    ],
    [
      "v1.1 call neither a list nor an object",
      JSON.stringify({ schema_version: "1.1", provider: "p", calls: ["x"] }),
      [{
        path: "calls[0]",
        message: "must be an array of chunks or {chunks, expect}",
      }],
    ],
    [
      "v1.1 call object with a bad chunk",
      JSON.stringify({
        schema_version: "1.1",
        provider: "p",
        calls: [{ chunks: [STOP, { type: "nope" }] }],
      }),
      [{ path: "calls[0].chunks[1].type", message: "unknown chunk type" }],
    ],
    [
      "v1.1 chunks not a list",
      JSON.stringify({
        schema_version: "1.1",
        provider: "p",
        calls: [{ chunks: null }],
      }),
      [{ path: "calls[0].chunks", message: "must be an array of chunks" }],
    ],
    [
      "v1.1 without provider and calls",
      JSON.stringify({ schema_version: "1.1", strict: true }),
      [
        { path: "provider", message: "required" },
        { path: "calls", message: "required" },
      ],
    ],
    [
      "empty provider id",
      JSON.stringify({
        schema_version: "1.1",
        providers: { "": { calls: [] } },
      }),
      [{ path: "providers", message: "provider id must not be empty" }],
    ],
    [
      "__proto__ provider id",
      '{"schema_version":"1.1","providers":{"__proto__":{"calls":[]}}}',
      [{ path: "providers.__proto__", message: "not a usable provider id" }],
    ],
    [
      "context_window not a positive integer",
      JSON.stringify({
        schema_version: "1.1",
        provider: "p",
        calls: [],
        context_window: 0.5,
      }),
      [{ path: "context_window", message: "must be a positive integer" }],
    ],
    [
      "a provider that is not a string",
      JSON.stringify({ schema_version: "1.0", provider: [], calls: [] }),
      [{ path: "provider", message: "must be a non-empty string" }],
    ],
    [
      "strict not boolean",
      JSON.stringify({
        schema_version: "1.1",
        provider: "p",
        calls: [],
        strict: "yes",
      }),
      [{ path: "strict", message: "must be a boolean" }],
    ],
    [
      "model not a string",
      JSON.stringify({
        schema_version: "1.0",
        provider: "p",
        calls: [],
        model: 4,
      }),
      [{ path: "model", message: "must be a string" }],
    ],
  ];
  for (const [name, text, want] of cases) {
    await t.step(name, () => {
      const r = parseCassette(text, "case.json");
      assert.equal(r.ok, false, "should fail");
      if (r.ok) return;
      assert.equal(r.error.file, "case.json");
      assert.equal(
        r.error.issues.length,
        want.length,
        JSON.stringify(r.error.issues),
      );
      want.forEach((w, i) => {
        const got = r.error.issues[i];
        assert.equal(got?.path, w.path);
        if (typeof w.message === "string") {
          assert.equal(got?.message, w.message);
        } else assert.match(got?.message ?? "", w.message);
      });
    });
  }
});

Deno.test("parseCassette() accepts plain v1.0 shapes under 1.1", () => {
  const r = parseCassette(
    JSON.stringify({
      schema_version: "1.1",
      provider: "p",
      calls: [[{ type: "text_delta", text: "x" }, STOP]],
    }),
    "x.json",
  );
  assert.ok(r.ok);
  assert.equal(r.value.strict, false);
});

Deno.test("parseCassette() errors render as one file:path: message line per problem", () => {
  const r = parseCassette(fixture("v1_0_uses_v1_1.json"), "/w/c.json");
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(
    renderIssues(r.error.file, r.error.issues),
    [
      '/w/c.json: strict: requires schema_version "1.1"',
      '/w/c.json: calls[0]: a {chunks, expect} call requires schema_version "1.1"',
    ].join("\n"),
  );
});
