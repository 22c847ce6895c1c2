/**
 * The OpenAI Responses adapter against a loopback server speaking the
 * documented event stream: a conformance table (stream ⇒ chunks, usage,
 * stop reason, error kind), the request it sends, a tool round trip the
 * server refuses unless the call's output and the reasoning item come
 * back, and the built-in `openai` provider routing the models that need
 * it.
 */
import assert from "node:assert/strict";
import { openaiAt, responsesAt } from "./_adapters.ts";
import type { LlmMessage, LlmRequest } from "../../../llm/mod.ts";
import {
  argsOf,
  ask,
  callOnce,
  collect,
  serve,
  terminal,
  textOf,
} from "./_server.ts";
import type { Reply } from "./_server.ts";
import { CALL, completed, created, stream, TEXT } from "./_responses_wire.ts";

const KEY = "sk-proj-PLANTEDresponses0123456789abcdefXYZ";

function refuse(status: number, error: Record<string, unknown>): Reply {
  return () =>
    new Response(JSON.stringify({ error }), {
      status,
      headers: { "content-type": "application/json", "retry-after": "2" },
    });
}

type Expect =
  | {
    text: string;
    stop: "stop" | "length" | "tool_use" | "content_filter";
    usage?: unknown;
    usageUnknown?: true;
  }
  | { error: string; code?: string; retryAfterMs?: number };

/** A `response.incomplete` event for `reason`, 5 input and `output` output tokens. */
function incomplete(reason: string, output: number): Record<string, unknown> {
  return {
    type: "response.incomplete",
    response: {
      status: "incomplete",
      incomplete_details: { reason },
      usage: { input_tokens: 5, output_tokens: output },
    },
  };
}

const CASES: Array<[string, Reply | Array<Record<string, unknown>>, Expect]> = [
  ["text with reasoning", TEXT, {
    text: "Hello there.",
    stop: "stop",
    usage: {
      inputTokens: 20,
      outputTokens: 40,
      cacheReadTokens: 100,
      reasoningTokens: 25,
    },
  }],
  ["a function call", CALL, {
    text: "",
    stop: "tool_use",
    usage: { inputTokens: 50, outputTokens: 20 },
  }],
  ["incomplete: max_output_tokens", [
    created,
    { type: "response.output_text.delta", item_id: "m", delta: "Cut" },
    incomplete("max_output_tokens", 9),
  ], { text: "Cut", stop: "length" }],
  ["incomplete: content_filter", [
    created,
    incomplete("content_filter", 0),
  ], { text: "", stop: "content_filter" }],
  ["a refusal", [
    created,
    { type: "response.refusal.delta", item_id: "m", delta: "I can't help." },
    completed({ input_tokens: 5, output_tokens: 3 }),
  ], { text: "I can't help.", stop: "content_filter" }],
  ["no usage", [
    created,
    { type: "response.output_text.delta", item_id: "m", delta: "ok" },
    { type: "response.completed", response: { status: "completed" } },
  ], { text: "ok", stop: "stop", usageUnknown: true }],
  ["failed", [
    created,
    {
      type: "response.failed",
      response: {
        status: "failed",
        error: { code: "server_error", message: "The server had an error" },
      },
    },
  ], { error: "overloaded", code: "server_error" }],
  ["an error event", [
    created,
    {
      type: "error",
      code: "rate_limit_exceeded",
      message: "Rate limit reached",
      param: null,
    },
  ], { error: "rate_limit", code: "rate_limit_exceeded" }],
  ["truncated", [
    created,
    { type: "response.output_text.delta", item_id: "m", delta: "par" },
  ], { error: "transport" }],
  [
    "400 overflow",
    refuse(400, {
      message: "Your input exceeds the context window of this model.",
      type: "invalid_request_error",
      param: "input",
      code: "context_length_exceeded",
    }),
    { error: "context_overflow", code: "context_length_exceeded" },
  ],
  [
    "429 with retry-after",
    refuse(429, {
      message: "Rate limit reached for requests",
      type: "requests",
      code: "rate_limit_exceeded",
    }),
    { error: "rate_limit", retryAfterMs: 2000 },
  ],
  [
    "401",
    refuse(401, {
      message: `Incorrect API key provided: ${KEY}`,
      type: "invalid_request_error",
      code: "invalid_api_key",
    }),
    { error: "auth", code: "invalid_api_key" },
  ],
];

const official = (url: string) => responsesAt(url);

function run(reply: Reply, req: LlmRequest = ask("gpt-5.4")) {
  return callOnce(official, reply, req, KEY);
}

Deno.test("Responses conformance: each documented stream ⇒ chunks, usage, stop reason, error kind", async (t) => {
  for (const [name, wire, expect] of CASES) {
    for (const piece of Array.isArray(wire) ? [0, 1, 9] : [0]) {
      await t.step(
        `${name} (${piece === 0 ? "whole" : `${piece}-byte`})`,
        async () => {
          const reply = Array.isArray(wire) ? stream(wire, piece) : wire;
          const { chunks } = await run(reply);
          const last = terminal(chunks);
          assert.ok(!JSON.stringify(chunks).includes(KEY), "no key in chunks");
          if ("error" in expect) {
            assert.ok(last.type === "error", JSON.stringify(last));
            assert.equal(last.error.kind, expect.error);
            if (expect.code !== undefined) {
              assert.equal(last.error.code, expect.code);
            }
            if (expect.retryAfterMs !== undefined) {
              assert.equal(last.error.retryAfterMs, expect.retryAfterMs);
            }
            return;
          }
          assert.ok(last.type === "stop", JSON.stringify(last));
          assert.equal(textOf(chunks), expect.text);
          assert.equal(last.stopReason, expect.stop);
          if (expect.usage !== undefined) {
            assert.deepEqual(last.usage, expect.usage);
          }
          assert.equal(last.usageUnknown, expect.usageUnknown);
        },
      );
    }
  }
});

Deno.test("Responses: reasoning items become reasoning with their encrypted content; calls keep their call_id", async () => {
  const text = await run(stream(TEXT, 3));
  const end = text.chunks.find((c) => c.type === "reasoning_end");
  assert.ok(end?.type === "reasoning_end");
  assert.deepEqual(JSON.parse(end.signature ?? "{}"), {
    id: "rs_1",
    encrypted_content: "gAAAAB-encrypted-1",
  });
  assert.ok(
    text.chunks.some((c) =>
      c.type === "reasoning_delta" && c.text === "Thinking about it."
    ),
  );
  const call = await run(stream(CALL, 5));
  assert.deepEqual(
    call.chunks.filter((c) => c.type.startsWith("tool_call")).map((c) =>
      c.type
    ),
    ["tool_call_start", "tool_call_delta", "tool_call_delta", "tool_call_end"],
  );
  assert.equal(argsOf(call.chunks, "call_abc"), '{"path":"notes.txt"}');
});

Deno.test("Responses: the documented request, store false, no temperature beside an effort", async () => {
  const req: LlmRequest = {
    ...ask("gpt-5.4", "Salut"),
    system: "Be brief.",
    maxTokens: 10_000_000,
    temperature: 0.4,
    reasoningEffort: "high",
    tools: [{
      name: "read_file",
      description: "Reads a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    }],
    toolChoice: { name: "read_file" },
  };
  const { requests } = await run(stream(TEXT), req);
  const r = requests[0];
  assert.ok(r !== undefined);
  assert.equal(r.path, "/responses");
  assert.equal(r.headers.get("authorization"), `Bearer ${KEY}`);
  const body = JSON.parse(r.body);
  assert.equal(typeof body.prompt_cache_key, "string");
  delete body.prompt_cache_key;
  assert.deepEqual(body, {
    model: "gpt-5.4",
    input: [{ role: "user", content: "Salut" }],
    instructions: "Be brief.",
    tools: [{
      type: "function",
      name: "read_file",
      description: "Reads a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      strict: false,
    }],
    tool_choice: { type: "function", name: "read_file" },
    reasoning: { effort: "high", summary: "auto" },
    include: ["reasoning.encrypted_content"],
    max_output_tokens: 128_000,
    stream: true,
    store: false,
  });
  // Without an effort, a non-reasoning model samples; a rejecting one never.
  const plain = await run(stream(TEXT), {
    ...ask("gpt-4.1"),
    temperature: 0.4,
  });
  const second = JSON.parse(plain.requests[0]?.body ?? "{}");
  assert.equal(second.temperature, 0.4);
  assert.equal(second.reasoning, undefined);
  assert.equal(second.include, undefined);
});

Deno.test("Responses tool round trip: the server refuses the next request unless the output and the reasoning item come back", async () => {
  let refusal = "";
  const server = serve([
    stream(CALL),
    (_req) => {
      const body = JSON.parse(server.requests[1]?.body ?? "{}");
      const input = body.input as Array<Record<string, unknown>>;
      const reasoning = input.find((i) => i["type"] === "reasoning");
      const call = input.find((i) => i["type"] === "function_call");
      const output = input.find((i) => i["type"] === "function_call_output");
      refusal = reasoning?.["encrypted_content"] !== "gAAAAB-encrypted-2" ||
          reasoning?.["id"] !== "rs_2"
        ? "Reasoning item rs_2 is missing its encrypted content"
        : call?.["call_id"] !== "call_abc"
        ? "No function call call_abc"
        : output?.["call_id"] !== "call_abc" ||
            !String(output?.["output"]).includes("kumquat")
        ? "No tool output found for function call call_abc."
        : input.indexOf(reasoning) > input.indexOf(call)
        ? "The reasoning item must precede its function call"
        : "";
      return refusal === "" ? stream(TEXT)(_req) : new Response(
        JSON.stringify({
          error: { message: refusal, type: "invalid_request_error" },
        }),
        { status: 400 },
      );
    },
  ]);
  try {
    const provider = official(server.url);
    const first = await collect(provider.stream(ask("gpt-5.4"), KEY));
    const end = first.find((c) => c.type === "reasoning_end");
    assert.ok(end?.type === "reasoning_end");
    const history: LlmMessage[] = [
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "",
            ...(end.signature === undefined
              ? {}
              : { signature: end.signature }),
          },
          {
            type: "tool_call",
            id: "call_abc",
            name: "read_file",
            args: { path: "notes.txt" },
          },
        ],
      },
      {
        role: "tool",
        content: [{
          type: "tool_result",
          toolCallId: "call_abc",
          result: { text: "kumquat" },
        }],
      },
    ];
    const second = await collect(
      provider.stream({ model: "gpt-5.4", messages: history }, KEY),
    );
    assert.equal(refusal, "", refusal);
    assert.equal(textOf(second), "Hello there.");
  } finally {
    await server.close();
  }
});

Deno.test("the built-in openai provider sends a reasoning model to /responses, others to /chat/completions", async () => {
  const chat = [
    'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}',
    "data: [DONE]",
    "",
  ].join("\n\n");
  const server = serve([
    stream(TEXT),
    () =>
      new Response(chat, { headers: { "content-type": "text/event-stream" } }),
  ]);
  try {
    const provider = openaiAt(server.url);
    const tools = [{ name: "f", parameters: { type: "object" } }];
    const a = await collect(
      provider.stream({ ...ask("gpt-6.2-sol"), tools }, KEY),
    );
    const b = await collect(provider.stream(ask("gpt-4.1"), KEY));
    assert.equal(terminal(a).type, "stop");
    assert.equal(terminal(b).type, "stop");
    assert.deepEqual(server.requests.map((q) => q.path), [
      "/responses",
      "/chat/completions",
    ]);
  } finally {
    await server.close();
  }
});
