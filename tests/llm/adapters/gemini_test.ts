/**
 * The native Gemini adapter against a loopback server speaking
 * `streamGenerateContent?alt=sse`: a conformance table (wire fixture ⇒
 * chunks, usage, stop reason, error kind), the request it sends, a tool
 * round trip the server refuses unless the call's result and its thought
 * signature come back on the right parts, and the schema conversion.
 */
import assert from "node:assert/strict";
import type { LlmMessage, LlmRequest, StreamChunk } from "../../../llm/mod.ts";
import {
  createGeminiProvider,
  type GeminiProviderOptions,
} from "../../../llm/gemini/provider.ts";
import { toGeminiSchema } from "../../../llm/gemini/_schema.ts";
import {
  argsOf,
  ask,
  collect,
  fixture,
  http,
  serve,
  sse,
  terminal,
  textOf,
} from "./_server.ts";

const KEY = "AIzaSyPLANTED-gemini-key-0123456789abc";
const fx = (name: string): Uint8Array => fixture("gemini", name);

function official(url: string, extra: Partial<GeminiProviderOptions> = {}) {
  return createGeminiProvider({
    fetch,
    baseUrl: url,
    customEndpoint: false,
    ...extra,
  });
}

async function run(
  reply: ReturnType<typeof sse>,
  req: LlmRequest = ask("gemini-2.5-flash"),
) {
  const server = serve([reply]);
  try {
    const chunks = await collect(official(server.url).stream(req, KEY));
    return { chunks, requests: server.requests };
  } finally {
    await server.close();
  }
}

type Expect =
  | {
    text?: string;
    stop: StreamChunk & { type: "stop" } extends infer S
      ? S extends { stopReason: infer R } ? R : never
      : never;
    usage?: Record<string, number>;
    usageUnknown?: true;
  }
  | { error: string; code?: string; retryAfterMs?: number };

const CASES: Array<[string, Expect]> = [
  ["text.sse", {
    text: "Hello there, how can I help?",
    stop: "stop",
    usage: { inputTokens: 12, outputTokens: 9 },
  }],
  ["max_tokens.sse", { text: "A long answer that", stop: "length" }],
  ["safety.sse", { text: "", stop: "content_filter" }],
  ["recitation.sse", { text: "Once upon", stop: "content_filter" }],
  ["prompt_blocked.sse", { text: "", stop: "content_filter" }],
  ["no_usage.sse", { text: "ok", stop: "stop", usageUnknown: true }],
  ["malformed_call.sse", {
    error: "bad_request",
    code: "MALFORMED_FUNCTION_CALL",
  }],
  ["no_finish.sse", { error: "transport" }],
  ["stream_error.sse", { error: "overloaded", code: "UNAVAILABLE" }],
  ["malformed_data.sse", { error: "transport" }],
  ["error_400_overflow.http", { error: "context_overflow" }],
  ["error_400_bad.http", { error: "bad_request", code: "INVALID_ARGUMENT" }],
  ["error_403.http", { error: "auth", code: "PERMISSION_DENIED" }],
  ["error_429.http", {
    error: "rate_limit",
    code: "RESOURCE_EXHAUSTED",
    retryAfterMs: 37_000,
  }],
  ["error_500.http", { error: "overloaded", code: "INTERNAL" }],
  ["error_503.http", { error: "overloaded", code: "UNAVAILABLE" }],
];

Deno.test("Gemini conformance: each wire fixture ⇒ chunks, usage, stop reason, error kind", async (t) => {
  for (const [name, expect] of CASES) {
    for (const piece of [1, 7, 4096]) {
      if (name.endsWith(".http") && piece !== 7) continue;
      await t.step(`${name} (${piece}-byte reads)`, async () => {
        const reply = name.endsWith(".http")
          ? http(fx(name))
          : sse(fx(name), piece);
        const { chunks } = await run(reply);
        const last = terminal(chunks);
        if ("error" in expect) {
          assert.ok(last.type === "error", JSON.stringify(last));
          assert.equal(last.error.kind, expect.error);
          if (expect.code !== undefined) {
            assert.equal(last.error.code, expect.code);
          }
          if (expect.retryAfterMs !== undefined) {
            assert.equal(last.error.retryAfterMs, expect.retryAfterMs);
          }
          assert.ok(!JSON.stringify(chunks).includes(KEY));
          return;
        }
        assert.ok(last.type === "stop", JSON.stringify(last));
        assert.equal(last.stopReason, expect.stop);
        if (expect.text !== undefined) {
          assert.equal(textOf(chunks), expect.text);
        }
        if (expect.usage !== undefined) {
          assert.deepEqual(last.usage, expect.usage);
        }
        assert.equal(last.usageUnknown, expect.usageUnknown);
      });
    }
  }
});

Deno.test("Gemini: thought parts are reasoning, a call keeps its signature, usage nets the cache", async () => {
  const { chunks } = await run(sse(fx("thinking_tool.sse"), 5));
  const last = terminal(chunks);
  assert.deepEqual(last, {
    type: "stop",
    stopReason: "tool_use",
    usage: {
      inputTokens: 24,
      outputTokens: 67,
      cacheReadTokens: 16,
      reasoningTokens: 52,
    },
  });
  const kinds = chunks.map((c) => c.type);
  assert.deepEqual(kinds, [
    "reasoning_start",
    "reasoning_delta",
    "reasoning_end",
    "tool_call_start",
    "tool_call_delta",
    "tool_call_end",
    "stop",
  ]);
  assert.equal(JSON.parse(argsOf(chunks, "call_0")).path, "notes.txt");
  const end = chunks.find((c) => c.type === "tool_call_end");
  assert.deepEqual(end, {
    type: "tool_call_end",
    id: "call_0",
    signature: "CiQBjz1rX7sig-ONE+/==",
  });
});

Deno.test("Gemini: parallel calls get distinct ids; a signature on a text part is kept before it", async () => {
  const calls = await run(sse(fx("parallel_calls.sse")));
  const starts = calls.chunks.filter((c) => c.type === "tool_call_start");
  assert.deepEqual(starts.map((c) => c.type === "tool_call_start" && c.id), [
    "call_0",
    "call_1",
  ]);
  const ends = calls.chunks.filter((c) => c.type === "tool_call_end");
  assert.deepEqual(ends, [
    { type: "tool_call_end", id: "call_0", signature: "c2lnLXBhcmlz" },
    { type: "tool_call_end", id: "call_1" },
  ]);
  const text = await run(sse(fx("text_signature.sse")));
  assert.equal(textOf(text.chunks), "The answer is 4.");
  assert.ok(
    text.chunks.some((c) =>
      c.type === "reasoning_end" && c.signature === "dGV4dC1zaWc="
    ),
  );
});

Deno.test("Gemini: the request is the documented one, the key only in x-goog-api-key", async () => {
  const req: LlmRequest = {
    ...ask("gemini-2.5-flash", "Salut"),
    system: "Be brief.",
    maxTokens: 999_999,
    temperature: 0.3,
    stopSequences: ["END"],
    reasoningEffort: "off",
    tools: [{
      name: "read_file",
      description: "Reads a file",
      parameters: {
        type: "object",
        $schema: "https://json-schema.org/draft/2020-12/schema",
        additionalProperties: false,
        properties: { path: { type: "string" } },
        required: ["path"],
      },
    }],
    toolChoice: "required",
  };
  const { requests } = await run(sse(fx("text.sse")), req);
  const r = requests[0];
  assert.ok(r !== undefined);
  assert.equal(r.method, "POST");
  assert.equal(r.path, "/models/gemini-2.5-flash:streamGenerateContent");
  assert.equal(r.headers.get("x-goog-api-key"), KEY);
  assert.equal(r.headers.get("authorization"), null);
  const body = JSON.parse(r.body);
  assert.deepEqual(body, {
    contents: [{ role: "user", parts: [{ text: "Salut" }] }],
    systemInstruction: { parts: [{ text: "Be brief." }] },
    tools: [{
      functionDeclarations: [{
        name: "read_file",
        description: "Reads a file",
        parameters: {
          type: "object",
          properties: { path: { type: "string" } },
          required: ["path"],
        },
      }],
    }],
    toolConfig: { functionCallingConfig: { mode: "ANY" } },
    generationConfig: {
      maxOutputTokens: 65_536,
      temperature: 0.3,
      stopSequences: ["END"],
      thinkingConfig: { thinkingBudget: 0 },
    },
  });
});

Deno.test("Gemini: thinking config by model generation and effort", async (t) => {
  const cases: Array<[string, LlmRequest["reasoningEffort"], unknown]> = [
    ["gemini-3.1-pro-preview", "high", {
      thinkingLevel: "high",
      includeThoughts: true,
    }],
    ["gemini-3-flash-preview", "off", {
      thinkingLevel: "low",
      includeThoughts: true,
    }],
    ["gemini-2.5-pro", "off", { thinkingBudget: 128, includeThoughts: true }],
    ["gemini-2.5-flash", "medium", {
      thinkingBudget: 8192,
      includeThoughts: true,
    }],
    ["gemini-2.5-flash", undefined, undefined],
  ];
  for (const [model, effort, expected] of cases) {
    await t.step(`${model} ${effort}`, async () => {
      const req: LlmRequest = {
        ...ask(model),
        ...(effort === undefined ? {} : { reasoningEffort: effort }),
      };
      const { requests } = await run(sse(fx("text.sse")), req);
      const body = JSON.parse(requests[0]?.body ?? "{}");
      assert.deepEqual(body.generationConfig?.thinkingConfig, expected);
    });
  }
});

/**
 * A server that answers the first call with a thought and a signed call,
 * and the second only when it carries the call back with its signature on
 * the `functionCall` part and the result as a `functionResponse` (400
 * otherwise, as the API does).
 */
Deno.test("Gemini tool round trip: the result and the thought signature must come back on their parts", async () => {
  let refusal = "";
  const strict = (req: Request, text: string) => {
    {
      const body = JSON.parse(text);
      const contents = body.contents as Array<
        { role: string; parts: Array<Record<string, unknown>> }
      >;
      const model = contents[1];
      const call = model?.parts.find((p) => p["functionCall"] !== undefined);
      const answer = contents[2]?.parts[0]?.["functionResponse"] as
        | Record<string, unknown>
        | undefined;
      refusal = model?.role !== "model"
        ? "no model turn"
        : call?.["thoughtSignature"] !== "CiQBjz1rX7sig-ONE+/=="
        ? "Function call is missing a thought_signature"
        : contents[2]?.role !== "user" || answer?.["name"] !== "read_file"
        ? "no functionResponse"
        : JSON.stringify(answer["response"]) !== '{"text":"kumquat"}'
        ? "wrong response"
        : "";
      if (refusal !== "") {
        return new Response(
          JSON.stringify({
            error: { code: 400, message: refusal, status: "INVALID_ARGUMENT" },
          }),
          { status: 400 },
        );
      }
      return sse(fx("text.sse"))(req, text);
    }
  };
  const server = serve([sse(fx("thinking_tool.sse")), strict]);
  try {
    const provider = official(server.url);
    const first = await collect(
      provider.stream(ask("gemini-3-flash-preview"), KEY),
    );
    const thought = first.find((c) => c.type === "reasoning_end");
    const end = first.find((c) => c.type === "tool_call_end");
    assert.ok(
      thought?.type === "reasoning_end" && end?.type === "tool_call_end",
    );
    const history: LlmMessage[] = [
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "**Reading the file**" },
          {
            type: "tool_call",
            id: end.id,
            name: "read_file",
            args: { path: "notes.txt" },
            ...(end.signature === undefined
              ? {}
              : { signature: end.signature }),
          },
        ],
      },
      {
        role: "tool",
        content: [{
          type: "tool_result",
          toolCallId: end.id,
          result: { text: "kumquat" },
        }],
      },
    ];
    const second = await collect(
      provider.stream(
        { model: "gemini-3-flash-preview", messages: history },
        KEY,
      ),
    );
    assert.equal(refusal, "", refusal);
    assert.equal(terminal(second).type, "stop");
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

Deno.test("Gemini: a reply without its signature is refused by the strict server", async () => {
  const server = serve([(req, text) => {
    {
      const sig = JSON.parse(text).contents[1]?.parts[0]?.thoughtSignature;
      return sig === undefined
        ? new Response(
          JSON.stringify({
            error: {
              code: 400,
              message: "Function call is missing a thought_signature",
              status: "INVALID_ARGUMENT",
            },
          }),
          { status: 400 },
        )
        : sse(fx("text.sse"))(req, text);
    }
  }]);
  try {
    const chunks = await collect(
      official(server.url).stream({
        model: "gemini-3-flash-preview",
        messages: [
          { role: "user", content: [{ type: "text", text: "Hi" }] },
          {
            role: "assistant",
            content: [{ type: "tool_call", id: "c", name: "f", args: {} }],
          },
          {
            role: "tool",
            content: [{ type: "tool_result", toolCallId: "c", result: 1 }],
          },
        ],
      }, KEY),
    );
    const last = terminal(chunks);
    assert.ok(last.type === "error");
    assert.equal(last.error.kind, "bad_request");
    assert.match(last.error.message, /missing a thought_signature/);
  } finally {
    await server.close();
  }
});

Deno.test("toGeminiSchema() keeps the accepted subset", async (t) => {
  const cases: Array<[string, Record<string, unknown>, unknown]> = [
    ["drops $schema and additionalProperties", {
      $schema: "x",
      type: "object",
      additionalProperties: false,
      properties: { a: { type: "integer", minimum: 0, default: 3 } },
      required: ["a", "ghost"],
    }, {
      type: "object",
      properties: { a: { type: "integer", minimum: 0 } },
      required: ["a"],
    }],
    ["a nullable union", { type: ["string", "null"], description: "d" }, {
      description: "d",
      type: "string",
      nullable: true,
    }],
    ["const and numeric enums become string enums", {
      type: "object",
      properties: { k: { const: "fixed" }, n: { enum: [1, 2] } },
    }, {
      type: "object",
      properties: {
        k: { enum: ["fixed"], type: "string" },
        n: { enum: ["1", "2"], type: "string" },
      },
    }],
    ["oneOf is anyOf; arrays keep items", {
      type: "array",
      items: { oneOf: [{ type: "string" }, { type: "number" }] },
      maxItems: 3,
    }, {
      maxItems: 3,
      type: "array",
      items: { anyOf: [{ type: "string" }, { type: "number" }] },
    }],
    ["local $refs are inlined", {
      type: "object",
      $defs: { P: { type: "string", pattern: "^a" } },
      properties: { p: { $ref: "#/$defs/P" } },
    }, {
      type: "object",
      properties: { p: { type: "string", pattern: "^a" } },
    }],
  ];
  for (const [name, input, expected] of cases) {
    await t.step(name, () => assert.deepEqual(toGeminiSchema(input), expected));
  }
  await t.step("a self-referencing schema is cut, not looped", () => {
    const out = toGeminiSchema({
      $defs: {
        N: { type: "object", properties: { next: { $ref: "#/$defs/N" } } },
      },
      $ref: "#/$defs/N",
    });
    assert.ok(JSON.stringify(out).length < 10_000);
  });
});
