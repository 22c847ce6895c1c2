/**
 * Conformance of the native Gemini adapter against loopback servers that
 * speak `streamGenerateContent?alt=sse`: documented wire streams ⇒
 * chunks, usage, stop reason and error kind; the request it sends; a tool
 * round trip the server refuses unless the call's result and its thought
 * signature come back where they belong.
 */
import assert from "node:assert/strict";
import { geminiAt } from "./_adapters.ts";
import type { ContentPart, LlmRequest, StreamChunk } from "../../../llm/mod.ts";
import {
  GEMINI_BASE_URL,
  type GeminiProviderOptions,
} from "../../../llm/gemini/provider.ts";
import { createProviderRegistry } from "../../../llm/provider_registry.ts";
import {
  argsOf,
  ask,
  collect,
  json,
  type Reply,
  serve,
  sse,
  terminal,
  type TestServer,
  textOf,
} from "./_server.ts";
import {
  chunk,
  MODEL,
  refuseUnlessAnswered,
  SIG_A,
  SIG_B,
  USAGE,
  wire,
} from "./_gemini_wire.ts";

const KEY = "AIzaSyPLANTED-gemini-key-0123456789abcd";

const provider = geminiAt;

async function run(
  reply: Reply,
  req: LlmRequest = ask(MODEL),
  extra: Partial<GeminiProviderOptions> = {},
) {
  const urls: string[] = [];
  const server = serve([(r) => {
    urls.push(r.url);
    return reply(r);
  }]);
  try {
    const chunks = await collect(provider(server.url, extra).stream(req, KEY));
    return { chunks, requests: server.requests, urls };
  } finally {
    await server.close();
  }
}

async function failure(
  status: number,
  body: unknown,
  extra: Partial<GeminiProviderOptions> = {},
) {
  const { chunks } = await run(json(status, body), ask(MODEL), extra);
  const last = terminal(chunks);
  assert.equal(chunks.length, 1);
  assert.ok(last.type === "error");
  return last.error;
}

Deno.test("createGeminiProvider() posts streamGenerateContent with the key in x-goog-api-key, never in the URL", async () => {
  const req: LlmRequest = {
    model: "gemini-2.5-flash",
    system: "Be brief.",
    messages: [{ role: "user", content: [{ type: "text", text: "Salut" }] }],
    tools: [{
      name: "read_file",
      description: "Reads a file",
      parameters: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
        additionalProperties: false,
      },
    }, { name: "now", parameters: { type: "object", properties: {} } }],
    toolChoice: "required",
    maxTokens: 100_000,
    temperature: 0.3,
    stopSequences: ["END"],
    reasoningEffort: "low",
  };
  const { chunks, requests, urls } = await run(
    sse(wire([chunk([{ text: "Bonjour" }], { finishReason: "STOP" })])),
    req,
  );
  assert.equal(textOf(chunks), "Bonjour");
  const r = requests[0];
  assert.ok(r !== undefined);
  assert.equal(r.method, "POST");
  const url = new URL(urls[0] ?? "");
  assert.equal(
    url.pathname,
    "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
  );
  assert.equal(url.search, "?alt=sse");
  assert.ok(!(urls[0] ?? "").includes(KEY), "the key is not in the URL");
  assert.equal(r.headers.get("x-goog-api-key"), KEY);
  assert.equal(r.headers.get("authorization"), null);
  assert.equal(r.headers.get("content-type"), "application/json");
  assert.deepEqual(JSON.parse(r.body), {
    contents: [{ role: "user", parts: [{ text: "Salut" }] }],
    systemInstruction: { parts: [{ text: "Be brief." }] },
    tools: [{
      functionDeclarations: [
        {
          name: "read_file",
          description: "Reads a file",
          parameters: {
            type: "OBJECT",
            properties: { path: { type: "STRING" } },
            required: ["path"],
          },
        },
        // No arguments: no parameters (an empty OBJECT is refused).
        { name: "now" },
      ],
    }],
    toolConfig: { functionCallingConfig: { mode: "ANY" } },
    generationConfig: {
      // Clamped to the catalog's 65,536 ceiling.
      maxOutputTokens: 65_536,
      temperature: 0.3,
      stopSequences: ["END"],
      thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
    },
  });
});

Deno.test("createGeminiProvider() shapes thinking and sampling from the catalog flags", async (t) => {
  const cases: Array<{
    name: string;
    req: Partial<LlmRequest> & { model: string };
    config: unknown;
  }> = [
    {
      name: "Gemini 3 level, temperature never sent",
      req: { model: MODEL, reasoningEffort: "medium", temperature: 0.5 },
      config: {
        thinkingConfig: { includeThoughts: true, thinkingLevel: "MEDIUM" },
      },
    },
    {
      name: "off on Gemini 3: the lowest listed level",
      req: { model: MODEL, reasoningEffort: "off" },
      config: {
        thinkingConfig: { includeThoughts: true, thinkingLevel: "LOW" },
      },
    },
    {
      name: "max: the highest listed level",
      req: { model: "gemini-3.5-flash-lite", reasoningEffort: "max" },
      config: {
        thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" },
      },
    },
    {
      name: "off where listed: minimal",
      req: { model: "gemini-3.5-flash-lite", reasoningEffort: "off" },
      config: {
        thinkingConfig: { includeThoughts: true, thinkingLevel: "MINIMAL" },
      },
    },
    {
      name: "off on 2.5 Flash: budget 0",
      req: { model: "gemini-2.5-flash", reasoningEffort: "off" },
      config: { thinkingConfig: { thinkingBudget: 0 } },
    },
    {
      name: "off on 2.5 Pro, which cannot stop thinking: the minimum budget",
      req: { model: "gemini-2.5-pro", reasoningEffort: "off" },
      config: {
        thinkingConfig: { includeThoughts: true, thinkingBudget: 128 },
      },
    },
    {
      name: "no effort on a reasoning model: thoughts included",
      req: { model: MODEL },
      config: { thinkingConfig: { includeThoughts: true } },
    },
    {
      name: "an unknown model without effort: nothing",
      req: { model: "gemma-local", temperature: 0.2 },
      config: { temperature: 0.2 },
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const { requests } = await run(
        sse(wire([chunk([{ text: "k" }], { finishReason: "STOP" })])),
        { ...ask(c.req.model), ...c.req },
      );
      assert.deepEqual(
        JSON.parse(requests[0]?.body ?? "{}").generationConfig,
        c.config,
      );
    });
  }
});

const TEXT_STREAM = wire([
  chunk([{ text: "Bonjour ! " }]),
  chunk([{ text: "Ça va très bien 😊." }]),
  chunk([{ text: "", thoughtSignature: SIG_B }], {
    finishReason: "STOP",
    usage: USAGE,
  }),
]);

Deno.test("createGeminiProvider() conformance: documented streams ⇒ chunks, usage and stop reason", async (t) => {
  const cases: Array<{
    name: string;
    body: Uint8Array;
    piece?: number;
    check(chunks: StreamChunk[]): void;
  }> = [
    {
      name:
        "text split into 1-byte writes; usage net of the cache, thoughts as output",
      body: TEXT_STREAM,
      piece: 1,
      check(chunks) {
        assert.equal(textOf(chunks), "Bonjour ! Ça va très bien 😊.");
        assert.deepEqual(chunks.slice(-3), [
          { type: "reasoning_start", id: "reasoning_0" },
          {
            type: "reasoning_end",
            id: "reasoning_0",
            signature: SIG_B,
            redacted: true,
          },
          {
            type: "stop",
            stopReason: "stop",
            usage: {
              inputTokens: 20,
              outputTokens: 80,
              cacheReadTokens: 100,
              reasoningTokens: 50,
            },
          },
        ]);
      },
    },
    {
      name: "thought parts, then a signed function call without an id",
      body: wire([
        chunk([{ text: "Reading the ", thought: true }]),
        chunk([{ text: "file.", thought: true, thoughtSignature: SIG_A }]),
        chunk([{
          functionCall: { name: "read_file", args: { path: "notes.txt" } },
          thoughtSignature: SIG_B,
        }]),
        chunk([], { finishReason: "STOP", usage: USAGE }),
      ]),
      check(chunks) {
        const id = "gemini_call_resp-1_0";
        assert.deepEqual(chunks.slice(0, 4), [
          { type: "reasoning_start", id: "reasoning_0" },
          { type: "reasoning_delta", id: "reasoning_0", text: "Reading the " },
          { type: "reasoning_delta", id: "reasoning_0", text: "file." },
          { type: "reasoning_end", id: "reasoning_0", signature: SIG_A },
        ]);
        assert.deepEqual(chunks[4], {
          type: "tool_call_start",
          id,
          name: "read_file",
        });
        assert.deepEqual(JSON.parse(argsOf(chunks, id)), {
          path: "notes.txt",
        });
        assert.deepEqual(chunks[6], {
          type: "tool_call_end",
          id,
          signature: SIG_B,
        });
        const last = terminal(chunks);
        assert.ok(last.type === "stop" && last.stopReason === "tool_use");
      },
    },
    {
      name: "parallel calls keep their own ids (Gemini's when given)",
      body: wire([
        chunk([
          {
            functionCall: { id: "fc-7", name: "a", args: { x: 1 } },
            thoughtSignature: SIG_A,
          },
          { functionCall: { name: "b", args: {} } },
        ], { finishReason: "STOP", usage: USAGE }),
      ]),
      check(chunks) {
        assert.deepEqual(
          chunks.flatMap((c) =>
            c.type === "tool_call_end" ? [[c.id, c.signature ?? null]] : []
          ),
          // Gemini's own unsigned call: an empty signature, never none.
          [["fc-7", SIG_A], ["gemini_call_resp-1_1", ""]],
        );
      },
    },
    {
      name: "a prompt blocked by promptFeedback: content_filter",
      body: wire([{
        promptFeedback: { blockReason: "SAFETY" },
        usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
      }]),
      check(chunks) {
        assert.deepEqual(terminal(chunks), {
          type: "stop",
          stopReason: "content_filter",
          usage: { inputTokens: 9, outputTokens: 0 },
        });
      },
    },
    {
      name: "no usageMetadata: the stop says usage unknown",
      body: wire([chunk([{ text: "x" }], { finishReason: "STOP" })]),
      check(chunks) {
        assert.deepEqual(terminal(chunks), {
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 0, outputTokens: 0 },
          usageUnknown: true,
        });
      },
    },
    {
      name: "end of stream before a finishReason: truncated (transport)",
      body: wire([chunk([{ text: "half" }])]),
      check(chunks) {
        const last = terminal(chunks);
        assert.ok(last.type === "error");
        assert.equal(last.error.kind, "transport");
        assert.match(last.error.message, /truncated/);
      },
    },
    {
      name: "data that is not JSON: transport",
      body: new TextEncoder().encode("data: {not json\r\n\r\n"),
      check(chunks) {
        const last = terminal(chunks);
        assert.ok(last.type === "error" && last.error.kind === "transport");
      },
    },
    {
      name: "an error event mid-stream: classified, key scrubbed",
      body: wire([
        chunk([{ text: "par" }]),
        {
          error: {
            code: 503,
            message: `The model is overloaded (key ${KEY})`,
            status: "UNAVAILABLE",
          },
        },
      ]),
      check(chunks) {
        assert.equal(textOf(chunks), "par");
        const last = terminal(chunks);
        assert.ok(last.type === "error");
        assert.equal(last.error.kind, "overloaded");
        assert.equal(last.error.code, "UNAVAILABLE");
        assert.ok(!last.error.message.includes(KEY));
      },
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const { chunks } = await run(sse(c.body, c.piece));
      c.check(chunks);
    });
  }
});

Deno.test("createGeminiProvider() maps every finishReason", async (t) => {
  const table: Array<[string, boolean, string]> = [
    ["STOP", false, "stop"],
    ["STOP", true, "tool_use"],
    ["MAX_TOKENS", false, "length"],
    ["SAFETY", false, "content_filter"],
    ["RECITATION", false, "content_filter"],
    ["BLOCKLIST", false, "content_filter"],
    ["PROHIBITED_CONTENT", false, "content_filter"],
    ["SPII", false, "content_filter"],
    ["IMAGE_SAFETY", false, "content_filter"],
    ["MALFORMED_FUNCTION_CALL", false, "error"],
    ["UNEXPECTED_TOOL_CALL", false, "error"],
    ["TOO_MANY_TOOL_CALLS", false, "error"],
    ["LANGUAGE", false, "stop"],
    ["OTHER", false, "stop"],
    ["FINISH_REASON_UNSPECIFIED", false, "stop"],
  ];
  for (const [reason, withCall, expected] of table) {
    await t.step(`${reason}${withCall ? " with a call" : ""}`, async () => {
      const parts = withCall
        ? [{ functionCall: { name: "f", args: {} } }]
        : [{ text: "t" }];
      const { chunks } = await run(
        sse(wire([chunk(parts, { finishReason: reason, usage: USAGE })])),
      );
      const last = terminal(chunks);
      assert.ok(last.type === "stop");
      assert.equal(last.stopReason, expected);
    });
  }
});

const OVERFLOW_BODY = {
  error: {
    code: 400,
    message:
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    status: "INVALID_ARGUMENT",
  },
};

Deno.test("createGeminiProvider() classifies 400, 403, 429, 500 and 503 bodies", async (t) => {
  await t.step(
    "400 overflow: context_overflow on the official endpoint",
    async () => {
      const e = await failure(400, OVERFLOW_BODY);
      assert.equal(e.kind, "context_overflow");
      assert.equal(e.retryable, false);
      assert.equal(e.status, 400);
      assert.equal(e.code, "INVALID_ARGUMENT");
    },
  );
  await t.step("400 overflow on a custom endpoint: downgraded", async () => {
    const e = await failure(400, OVERFLOW_BODY, { customEndpoint: true });
    assert.equal(e.kind, "bad_request");
    assert.equal(e.code, "possible_context_overflow");
  });
  await t.step("400 INVALID_ARGUMENT otherwise: bad_request", async () => {
    const e = await failure(400, {
      error: {
        code: 400,
        message: "Invalid JSON payload received.",
        status: "INVALID_ARGUMENT",
      },
    });
    assert.equal(e.kind, "bad_request");
  });
  await t.step("400 API_KEY_INVALID: auth, key scrubbed", async () => {
    const e = await failure(400, [{
      error: {
        code: 400,
        message: `API key not valid: ${KEY}`,
        status: "INVALID_ARGUMENT",
        details: [{
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "API_KEY_INVALID",
          domain: "googleapis.com",
        }],
      },
    }]);
    assert.equal(e.kind, "auth");
    assert.ok(!e.message.includes(KEY));
    assert.match(e.message, /\[redacted\]/);
  });
  await t.step("403 PERMISSION_DENIED: auth", async () => {
    const e = await failure(403, {
      error: {
        code: 403,
        message: "Method doesn't allow unregistered callers.",
        status: "PERMISSION_DENIED",
      },
    });
    assert.equal(e.kind, "auth");
    assert.equal(e.retryable, false);
  });
  await t.step(
    "429 RESOURCE_EXHAUSTED: rate_limit with RetryInfo's delay",
    async () => {
      const e = await failure(429, {
        error: {
          code: 429,
          message: "You exceeded your current quota.",
          status: "RESOURCE_EXHAUSTED",
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.QuotaFailure",
              violations: [{ quotaMetric: "generate_content_requests" }],
            },
            {
              "@type": "type.googleapis.com/google.rpc.RetryInfo",
              retryDelay: "31.5s",
            },
          ],
        },
      });
      assert.equal(e.kind, "rate_limit");
      assert.equal(e.retryable, true);
      assert.equal(e.retryAfterMs, 31_500);
    },
  );
  await t.step("429 with a retry-after header: the header wins", async () => {
    const { chunks } = await run(json(429, {
      error: {
        code: 429,
        message: "Quota",
        status: "RESOURCE_EXHAUSTED",
        details: [{
          "@type": "type.googleapis.com/google.rpc.RetryInfo",
          retryDelay: "60s",
        }],
      },
    }, { "retry-after": "2" }));
    const last = terminal(chunks);
    assert.ok(last.type === "error");
    assert.equal(last.error.retryAfterMs, 2000);
  });
  await t.step("500 INTERNAL: overloaded", async () => {
    const e = await failure(500, {
      error: { code: 500, message: "Internal error", status: "INTERNAL" },
    });
    assert.equal(e.kind, "overloaded");
    assert.equal(e.retryable, true);
  });
  await t.step("503 UNAVAILABLE: overloaded", async () => {
    const e = await failure(503, {
      error: {
        code: 503,
        message: "The model is overloaded. Please try again later.",
        status: "UNAVAILABLE",
      },
    });
    assert.equal(e.kind, "overloaded");
    assert.equal(e.retryable, true);
    assert.equal(e.status, 503);
  });
  await t.step("a body that is not JSON: the status decides", async () => {
    const { chunks } = await run(() =>
      new Response("upstream gone", { status: 502 })
    );
    const last = terminal(chunks);
    assert.ok(last.type === "error" && last.error.kind === "overloaded");
  });
});

/** The assistant message a session would build from a stream's chunks. */
function assistantOf(chunks: readonly StreamChunk[]): ContentPart[] {
  const out: ContentPart[] = [];
  const args = new Map<string, string>();
  for (const c of chunks) {
    if (c.type === "text_delta") {
      const last = out[out.length - 1];
      if (last?.type === "text") last.text += c.text;
      else out.push({ type: "text", text: c.text });
    } else if (c.type === "reasoning_start") {
      out.push({ type: "reasoning", text: "" });
    } else if (c.type === "reasoning_delta") {
      const last = out[out.length - 1];
      if (last?.type === "reasoning") last.text += c.text;
    } else if (c.type === "reasoning_end") {
      const last = out[out.length - 1];
      if (last?.type === "reasoning") {
        if (c.signature !== undefined) last.signature = c.signature;
        if (c.redacted !== undefined) last.redacted = c.redacted;
      }
    } else if (c.type === "tool_call_start") {
      out.push({ type: "tool_call", id: c.id, name: c.name, args: {} });
    } else if (c.type === "tool_call_delta") {
      args.set(c.id, (args.get(c.id) ?? "") + c.argsJsonDelta);
    } else if (c.type === "tool_call_end") {
      const call = out.find((p) => p.type === "tool_call" && p.id === c.id);
      if (call?.type === "tool_call") {
        call.args = JSON.parse(args.get(c.id) ?? "{}");
        if (c.signature !== undefined) call.signature = c.signature;
      }
    }
  }
  return out;
}

Deno.test("createGeminiProvider() tool round trip: the second request carries the result and the signature on its call", async () => {
  const first = wire([
    chunk([{ text: "Let me look.", thought: true, thoughtSignature: SIG_A }]),
    chunk([{
      functionCall: { name: "read_file", args: { path: "notes.txt" } },
      thoughtSignature: SIG_B,
    }], { finishReason: "STOP", usage: USAGE }),
  ]);
  const check = refuseUnlessAnswered({
    name: "read_file",
    signature: SIG_B,
    result: "kumquat",
  }, () => server.requests.at(-1)?.body ?? "{}");
  const server: TestServer = serve([sse(first, 5), check, check]);
  try {
    const p = provider(server.url);
    const user: LlmRequest["messages"][number] = {
      role: "user",
      content: [{ type: "text", text: "What is the secret word?" }],
    };
    const chunks = await collect(p.stream(ask(MODEL, "q"), KEY));
    const assistant = assistantOf(chunks);
    const call = assistant.find((c) => c.type === "tool_call");
    assert.ok(call?.type === "tool_call");
    // Without its own signature (the skip value is sent instead) this
    // server refuses the call, as Gemini does a wrong one.
    const unsigned = assistant.map((c) =>
      c.type === "tool_call" ? { ...c, signature: undefined } : c
    ).map((c) => JSON.parse(JSON.stringify(c)) as ContentPart);
    const result: LlmRequest["messages"][number] = {
      role: "tool",
      content: [{
        type: "tool_result",
        toolCallId: call.id,
        result: "The secret word is kumquat.",
      }],
    };
    const refused = terminal(
      await collect(p.stream({
        model: MODEL,
        messages: [user, { role: "assistant", content: unsigned }, result],
      }, KEY)),
    );
    assert.ok(refused.type === "error" && refused.error.kind === "bad_request");
    const second = await collect(p.stream({
      model: MODEL,
      messages: [user, { role: "assistant", content: assistant }, result],
    }, KEY));
    assert.equal(textOf(second), "The secret word is kumquat.");
    const sent = JSON.parse(server.requests[2]?.body ?? "{}");
    assert.deepEqual(sent.contents[1], {
      role: "model",
      parts: [
        { text: "Let me look.", thought: true, thoughtSignature: SIG_A },
        {
          functionCall: { name: "read_file", args: { path: "notes.txt" } },
          thoughtSignature: SIG_B,
        },
      ],
    });
    // Our generated id never goes back; Gemini pairs by order and name.
    assert.deepEqual(sent.contents[2], {
      role: "user",
      parts: [{
        functionResponse: {
          name: "read_file",
          response: { output: "The secret word is kumquat." },
        },
      }],
    });
  } finally {
    await server.close();
  }
});

Deno.test("createGeminiProvider() lowers history: ids Gemini gave go back, errors as {error}, text signatures on their text", async () => {
  const { requests } = await run(
    sse(wire([chunk([{ text: "ok" }], { finishReason: "STOP" })])),
    {
      model: MODEL,
      messages: [
        {
          role: "assistant",
          content: [
            { type: "text", text: "Earlier answer." },
            { type: "reasoning", text: "", signature: SIG_A, redacted: true },
          ],
        },
        { role: "user", content: [{ type: "text", text: "Again" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_call", id: "fc-1", name: "a", args: { n: 1 } },
            {
              type: "tool_call",
              id: "gemini_call_resp-1_1",
              name: "b",
              args: {},
            },
          ],
        },
        {
          role: "tool",
          content: [{ type: "tool_result", toolCallId: "fc-1", result: "A" }],
        },
        {
          role: "tool",
          content: [{
            type: "tool_result",
            toolCallId: "gemini_call_resp-1_1",
            result: "no such file",
            isError: true,
          }],
        },
      ],
    },
  );
  assert.deepEqual(JSON.parse(requests[0]?.body ?? "{}").contents, [
    { role: "user", parts: [{ text: "(conversation continues)" }] },
    {
      role: "model",
      parts: [{ text: "Earlier answer.", thoughtSignature: SIG_A }],
    },
    { role: "user", parts: [{ text: "Again" }] },
    {
      role: "model",
      // Unsigned calls of the current turn (another provider's, after a
      // fallback) carry Gemini's documented skip value.
      parts: [
        {
          functionCall: { name: "a", args: { n: 1 }, id: "fc-1" },
          thoughtSignature: "skip_thought_signature_validator",
        },
        {
          functionCall: { name: "b", args: {} },
          thoughtSignature: "skip_thought_signature_validator",
        },
      ],
    },
    {
      role: "user",
      parts: [
        {
          functionResponse: {
            name: "a",
            response: { output: "A" },
            id: "fc-1",
          },
        },
        {
          functionResponse: { name: "b", response: { error: "no such file" } },
        },
      ],
    },
  ]);
});

/** The registry's `gemini` adapter, with another base URL when given. */
function registryGemini(
  options: {
    fetch: typeof fetch;
    baseUrl?: string;
    firstByteTimeoutMs?: number;
  },
) {
  const { baseUrl, ...deps } = options;
  return createProviderRegistry(
    baseUrl === undefined ? [] : [{ id: "gemini", baseUrl }],
  ).create("gemini", deps);
}

Deno.test("createProviderRegistry().create('gemini') loads the adapter on its first call and streams", async () => {
  const server = serve([
    sse(
      wire([chunk([{ text: "Hi" }], { finishReason: "STOP", usage: USAGE })]),
    ),
  ]);
  try {
    const p = registryGemini({
      fetch,
      baseUrl: `${server.url}/v1beta`,
    });
    assert.ok(p !== undefined);
    assert.equal(p.kind, "gemini");
    assert.equal(p.customEndpoint, true);
    assert.equal(p.contextLimit?.(MODEL), undefined, "custom: window unknown");
    const official = registryGemini({ fetch });
    assert.equal(official?.contextLimit?.(MODEL), 1_048_576);
    const chunks = await collect(p.stream(ask(MODEL), KEY));
    assert.equal(textOf(chunks), "Hi");
    assert.equal(
      server.requests[0]?.path,
      `/v1beta/models/${MODEL}:streamGenerateContent`,
    );
    assert.equal(
      GEMINI_BASE_URL,
      "https://generativelanguage.googleapis.com/v1beta",
    );
    assert.throws(
      () => registryGemini({ fetch, baseUrl: "not a url" }),
      TypeError,
    );
    assert.throws(
      () => registryGemini({ fetch, firstByteTimeoutMs: 0 }),
      RangeError,
    );
  } finally {
    await server.close();
  }
});

Deno.test("createGeminiProvider() leaves the unsigned calls of earlier turns as they are", async () => {
  const { requests } = await run(
    sse(wire([chunk([{ text: "ok" }], { finishReason: "STOP" })])),
    {
      model: MODEL,
      messages: [
        { role: "user", content: [{ type: "text", text: "First" }] },
        {
          role: "assistant",
          content: [{ type: "tool_call", id: "x", name: "a", args: {} }],
        },
        {
          role: "tool",
          content: [{ type: "tool_result", toolCallId: "x", result: 1 }],
        },
        { role: "user", content: [{ type: "text", text: "Second" }] },
      ],
    },
  );
  const contents = JSON.parse(requests[0]?.body ?? "{}").contents;
  assert.deepEqual(contents[1], {
    role: "model",
    parts: [{ functionCall: { name: "a", args: {}, id: "x" } }],
  });
  assert.deepEqual(contents[2].parts[0].functionResponse.response, {
    output: 1,
  });
});
