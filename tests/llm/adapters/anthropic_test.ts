import assert from "node:assert/strict";
import { anthropicAt, wireKit } from "./_adapters.ts";
import type { LlmMessage, LlmRequest, StreamChunk } from "../../../llm/mod.ts";
import { createAnthropicProvider } from "../../../llm/anthropic/provider.ts";
import {
  argsOf,
  ask,
  collect,
  serve,
  sse,
  terminal,
  textOf,
} from "./_server.ts";

const KEY = "sk-ant-api03-PLANTEDkey0123456789abcdefXYZ";
const kit = wireKit("anthropic", "claude-sonnet-4-6", KEY, anthropicAt);
const fx = kit.fx;

/**
 * An Anthropic provider on a loopback server, treated as the official
 * endpoint; without cache breakpoints, so the bodies below stay exact.
 */
function official(url: string, extra: { id?: string } = {}) {
  return anthropicAt(url, { promptCaching: false, ...extra });
}

/** One call on the SSE fixture `name`, without cache breakpoints. */
function once(name: string, req?: LlmRequest) {
  return kit.once(name, req, { promptCaching: false });
}

/** The error of one call on the HTTP fixture `name`. */
function failure(name: string, customEndpoint = false) {
  return kit.failure(name, { customEndpoint });
}

Deno.test("createAnthropicProvider() streams plain text and sends the documented request", async () => {
  const req: LlmRequest = {
    ...ask("claude-sonnet-4-6", "Salut"),
    system: "Be brief.",
  };
  const { chunks, requests } = await once("text.sse", req);
  const last = terminal(chunks);
  assert.equal(textOf(chunks), "Bonjour ! Ça va très bien, merci 😊.");
  assert.deepEqual(last, {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 24, outputTokens: 14 },
  });
  const r = requests[0];
  assert.ok(r !== undefined);
  assert.equal(r.method, "POST");
  assert.equal(r.path, "/v1/messages");
  assert.equal(r.headers.get("x-api-key"), KEY);
  assert.equal(r.headers.get("anthropic-version"), "2023-06-01");
  assert.equal(r.headers.get("content-type"), "application/json");
  assert.deepEqual(JSON.parse(r.body), {
    model: "claude-sonnet-4-6",
    max_tokens: 32_000,
    system: "Be brief.",
    messages: [{ role: "user", content: [{ type: "text", text: "Salut" }] }],
    stream: true,
  });
});

Deno.test("createAnthropicProvider() streams parallel tool calls in start order", async () => {
  const { chunks } = await once("parallel_tools.sse");
  const starts = chunks.flatMap((c) =>
    c.type === "tool_call_start" ? [c.name] : []
  );
  const ends = chunks.flatMap((c) => c.type === "tool_call_end" ? [c.id] : []);
  assert.deepEqual(starts, ["get_weather", "get_time"]);
  assert.deepEqual(ends, [
    "toolu_01A09q90qw90lq917835lq9",
    "toolu_01B09q90qw90lq917835lq9",
  ]);
  assert.deepEqual(
    JSON.parse(argsOf(chunks, "toolu_01B09q90qw90lq917835lq9")),
    { timezone: "Europe/Paris" },
  );
  assert.equal(terminal(chunks).type, "stop");
});

const SIGNATURE =
  "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds2yQ6Zcs4Zp7s1N1kQ/a5BYZ4QmXwnG9KnFbGPwrHs7Xo3PkXZBn4sHtGEN6KWNTbLyUTgqIhI5dDSwi1HGPFFsu6zcWqk/fSfAb4xYyGAE=";

Deno.test("createAnthropicProvider() keeps the thinking signature and replays it verbatim in the tool loop", async () => {
  const server = serve([
    sse(fx("thinking_signature.sse")),
    sse(fx("text.sse")),
  ]);
  try {
    const provider = official(server.url);
    const first: LlmRequest = {
      ...ask("claude-sonnet-4-6", "Weather in Paris?"),
      reasoningEffort: "high",
      temperature: 0.3,
      toolChoice: "required",
      tools: [{
        name: "get_weather",
        description: "Weather",
        parameters: { type: "object" },
      }],
    };
    const chunks = await collect(provider.stream(first, KEY));
    terminal(chunks);
    assert.deepEqual(chunks.slice(0, 4), [
      { type: "reasoning_start", id: "thinking_0" },
      {
        type: "reasoning_delta",
        id: "thinking_0",
        text: "The user wants the weather in Paris.",
      },
      {
        type: "reasoning_delta",
        id: "thinking_0",
        text: " I should call get_weather.",
      },
      { type: "reasoning_end", id: "thinking_0", signature: SIGNATURE },
    ]);
    const sent = JSON.parse(server.requests[0]?.body ?? "{}");
    assert.deepEqual(sent.thinking, { type: "adaptive" });
    assert.deepEqual(sent.output_config, { effort: "high" });
    assert.equal(
      sent.temperature,
      undefined,
      "thinking runs at the default temperature",
    );
    assert.deepEqual(
      sent.tool_choice,
      { type: "auto" },
      "thinking allows auto/none only",
    );
    // The session folds the response and appends the tool result.
    const assistant: LlmMessage = {
      role: "assistant",
      content: [
        {
          type: "reasoning",
          text:
            "The user wants the weather in Paris. I should call get_weather.",
          signature: SIGNATURE,
        },
        { type: "text", text: "Let me look that up." },
        {
          type: "tool_call",
          id: "toolu_01Xb9FwPc2mGHsDoZMPX4Y3N",
          name: "get_weather",
          args: { location: "Paris" },
        },
      ],
    };
    const second: LlmRequest = {
      ...first,
      messages: [
        ...first.messages,
        assistant,
        {
          role: "tool",
          content: [{
            type: "tool_result",
            toolCallId: "toolu_01Xb9FwPc2mGHsDoZMPX4Y3N",
            result: "21°C",
          }],
        },
      ],
    };
    terminal(await collect(provider.stream(second, KEY)));
    const replay = JSON.parse(server.requests[1]?.body ?? "{}");
    assert.deepEqual(replay.messages.slice(1), [
      {
        role: "assistant",
        content: [
          {
            type: "thinking",
            thinking:
              "The user wants the weather in Paris. I should call get_weather.",
            signature: SIGNATURE,
          },
          { type: "text", text: "Let me look that up." },
          {
            type: "tool_use",
            id: "toolu_01Xb9FwPc2mGHsDoZMPX4Y3N",
            name: "get_weather",
            input: { location: "Paris" },
          },
        ],
      },
      {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "toolu_01Xb9FwPc2mGHsDoZMPX4Y3N",
          content: "21°C",
        }],
      },
    ]);
  } finally {
    await server.close();
  }
});

const REDACTED_DATA =
  "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pLmN/f2U6DELCYJcnyVADgfYANEKt";

Deno.test("createAnthropicProvider() captures redacted thinking's data and sends it back unchanged, in place", async () => {
  const { chunks } = await once("redacted_thinking.sse");
  assert.deepEqual(chunks.slice(0, 2), [
    { type: "reasoning_start", id: "thinking_0" },
    {
      type: "reasoning_end",
      id: "thinking_0",
      redacted: true,
      signature: REDACTED_DATA,
    },
  ]);
  assert.equal(textOf(chunks), "Here is my answer.");
  const req: LlmRequest = {
    model: "claude-sonnet-4-6",
    messages: [
      { role: "user", content: [{ type: "text", text: "q" }] },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "",
            redacted: true,
            signature: REDACTED_DATA,
          },
          { type: "text", text: "a" },
          // Redacted thinking without its data cannot be replayed.
          { type: "reasoning", text: "", redacted: true },
        ],
      },
      { role: "user", content: [{ type: "text", text: "more" }] },
    ],
  };
  const { requests } = await once("text.sse", req);
  assert.deepEqual(JSON.parse(requests[0]?.body ?? "{}").messages[1], {
    role: "assistant",
    content: [
      { type: "redacted_thinking", data: REDACTED_DATA },
      { type: "text", text: "a" },
    ],
  });
});

Deno.test("createAnthropicProvider() reports cache read and write tokens", async () => {
  const { chunks } = await once("cache_usage.sse");
  assert.deepEqual(terminal(chunks), {
    type: "stop",
    stopReason: "stop",
    usage: {
      inputTokens: 5,
      outputTokens: 40,
      cacheReadTokens: 12000,
      cacheWriteTokens: 1800,
    },
  });
});

Deno.test("createAnthropicProvider() maps every stop reason", async (t) => {
  const cases: [string, string, boolean][] = [
    ["text.sse", "stop", false],
    ["stop_stop_sequence.sse", "stop", false],
    ["stop_pause_turn.sse", "stop", false],
    ["stop_null.sse", "stop", false],
    ["stop_unknown.sse", "stop", false],
    ["stop_max_tokens.sse", "length", false],
    ["stop_model_context_window_exceeded.sse", "length", true],
    ["tool_split_args.sse", "tool_use", false],
    ["stop_refusal.sse", "content_filter", false],
  ];
  for (const [name, reason, exceeded] of cases) {
    await t.step(name, async () => {
      const last = terminal((await once(name)).chunks);
      assert.ok(last.type === "stop");
      assert.equal(last.stopReason, reason);
      assert.equal(last.contextExceeded === true, exceeded);
    });
  }
});

Deno.test("createAnthropicProvider() classifies a prompt-too-long 400 as context_overflow on the official endpoint only", async () => {
  const e = await failure("error_400_overflow.http");
  assert.equal(e.kind, "context_overflow");
  assert.equal(e.retryable, false);
  const custom = await failure("error_400_overflow.http", true);
  assert.equal(custom.kind, "bad_request");
  assert.equal(custom.code, "possible_context_overflow");
  const plain = await failure("error_400_bad.http", true);
  assert.equal(plain.code, "invalid_request_error");
});

Deno.test("createAnthropicProvider() treats end of stream before message_delta as truncation", async () => {
  const last = terminal((await once("truncated.sse")).chunks);
  assert.ok(last.type === "error" && last.error.kind === "transport");
  const tolerated = terminal((await once("no_message_stop.sse")).chunks);
  assert.deepEqual(tolerated, {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 24, outputTokens: 3 },
  });
});

Deno.test("createAnthropicProvider() ignores ping, unknown events, deltas and blocks", async () => {
  const { chunks } = await once("unknown_events.sse");
  assert.deepEqual(chunks.map((c) => c.type), ["text_delta", "stop"]);
  assert.equal(textOf(chunks), "Still fine");
});

Deno.test("createAnthropicProvider() makes no read after abort and cancels the body", async () => {
  const bytes = fx("text.sse");
  let pulls = 0;
  let cancelled = false;
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller): void {
      pulls++;
      controller.enqueue(bytes.slice(offset, offset + 200));
      offset += 200;
    },
    cancel(): void {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  const controller = new AbortController();
  const provider = createAnthropicProvider({
    fetch: () => Promise.resolve(new Response(body)),
  });
  const seen: StreamChunk[] = [];
  let pullsAtAbort = -1;
  for await (
    const c of provider.stream({
      ...ask("claude-sonnet-4-6"),
      signal: controller.signal,
    }, KEY)
  ) {
    seen.push(c);
    if (c.type === "text_delta" && pullsAtAbort < 0) {
      pullsAtAbort = pulls;
      controller.abort();
    }
  }
  assert.deepEqual(
    seen.map((c) => c.type),
    ["text_delta", "error"],
    "nothing but the cancellation after the abort",
  );
  const last = terminal(seen);
  assert.ok(last.type === "error" && last.error.kind === "cancelled");
  assert.equal(pulls, pullsAtAbort, "no read after the abort");
  assert.equal(cancelled, true, "the body was cancelled");
});

Deno.test("createAnthropicProvider() refuses temperature above 1 locally", async () => {
  const server = serve([]);
  try {
    const chunks = await collect(
      official(server.url).stream({
        ...ask("claude-sonnet-4-6"),
        temperature: 1.2,
      }, KEY),
    );
    const last = terminal(chunks);
    assert.ok(last.type === "error" && last.error.kind === "bad_request");
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("createAnthropicProvider() sends no x-api-key for an empty key and clamps max_tokens", async () => {
  const req: LlmRequest = { ...ask("claude-haiku-4-5"), maxTokens: 90_000 };
  const server = serve([sse(fx("text.sse"))]);
  try {
    terminal(await collect(official(server.url).stream(req, "")));
    const r = server.requests[0];
    assert.equal(r?.headers.has("x-api-key"), false);
    assert.equal(JSON.parse(r?.body ?? "{}").max_tokens, 64_000);
  } finally {
    await server.close();
  }
});

Deno.test("createAnthropicProvider() fails a stream past the SSE bounds as transport", async () => {
  const server = serve([sse(fx("text.sse"))]);
  try {
    const provider = createAnthropicProvider({
      fetch,
      baseUrl: server.url,
      sse: { maxLineLength: 64 },
    });
    const last = terminal(
      await collect(provider.stream(ask("claude-sonnet-4-6"), KEY)),
    );
    assert.ok(last.type === "error" && last.error.kind === "transport");
  } finally {
    await server.close();
  }
});

Deno.test("createAnthropicProvider() knows the window only on the official endpoint", () => {
  const builtIn = createAnthropicProvider({ fetch });
  assert.equal(builtIn.customEndpoint, false);
  assert.equal(builtIn.contextLimit?.("claude-sonnet-4-6"), 1_000_000);
  assert.equal(builtIn.contextLimit?.("claude-unknown"), undefined);
  const gateway = createAnthropicProvider({
    fetch,
    baseUrl: "https://gateway.example.com/",
  });
  assert.equal(gateway.customEndpoint, true);
  assert.equal(gateway.contextLimit?.("claude-sonnet-4-6"), undefined);
  assert.equal(
    createAnthropicProvider({ fetch, baseUrl: "https://api.anthropic.com/" })
      .customEndpoint,
    false,
  );
  assert.deepEqual(builtIn.supports, {
    tools: true,
    streaming: true,
    parallelToolCalls: true,
    reasoning: true,
    promptCache: true,
  });
  assert.throws(
    () => createAnthropicProvider({ fetch, baseUrl: "not a url" }),
    TypeError,
  );
});

Deno.test("createAnthropicProvider() merges consecutive tool results into one user message, results first", async () => {
  const req: LlmRequest = {
    model: "claude-sonnet-4-6",
    messages: [
      {
        role: "assistant",
        content: [{ type: "text", text: "" }, {
          type: "tool_call",
          id: "t1",
          name: "a",
          args: "not an object",
        }, { type: "tool_call", id: "t2", name: "b", args: { x: 1 } }],
      },
      {
        role: "tool",
        content: [{ type: "tool_result", toolCallId: "t1", result: "one" }],
      },
      {
        role: "tool",
        content: [{
          type: "tool_result",
          toolCallId: "t2",
          result: { ok: false },
          isError: true,
        }],
      },
      { role: "user", content: [{ type: "text", text: "and?" }] },
    ],
    tools: [{ name: "a", parameters: { type: "object" } }],
    toolChoice: { name: "a" },
    stopSequences: ["END"],
    providerOptions: {
      metadata: { user_id: "u1" },
      model: "ignored",
      stream: false,
    },
  };
  const { requests } = await once("text.sse", req);
  const body = JSON.parse(requests[0]?.body ?? "{}");
  assert.deepEqual(body.messages, [
    {
      role: "user",
      content: [{ type: "text", text: "(conversation continues)" }],
    },
    {
      role: "assistant",
      content: [
        { type: "tool_use", id: "t1", name: "a", input: {} },
        { type: "tool_use", id: "t2", name: "b", input: { x: 1 } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: "one" },
        {
          type: "tool_result",
          tool_use_id: "t2",
          content: '{"ok":false}',
          is_error: true,
        },
        { type: "text", text: "and?" },
      ],
    },
  ]);
  assert.deepEqual(body.tools, [{
    name: "a",
    input_schema: { type: "object" },
  }]);
  assert.deepEqual(body.tool_choice, { type: "tool", name: "a" });
  assert.deepEqual(body.stop_sequences, ["END"]);
  assert.equal(
    body.model,
    "claude-sonnet-4-6",
    "canonical fields win over providerOptions",
  );
  assert.equal(body.stream, true);
  assert.deepEqual(body.metadata, { user_id: "u1" });
});

Deno.test("createAnthropicProvider() sends a legacy thinking budget on top of the answer and disables thinking for off", async () => {
  const legacy = await once("text.sse", {
    ...ask("claude-haiku-4-5"),
    reasoningEffort: "medium",
    maxTokens: 2048,
  });
  const legacyBody = JSON.parse(legacy.requests[0]?.body ?? "{}");
  assert.deepEqual(legacyBody.thinking, {
    type: "enabled",
    budget_tokens: 4096,
  });
  assert.equal(legacyBody.max_tokens, 2048 + 4096);
  const off = await once("text.sse", {
    ...ask("claude-opus-4-8"),
    reasoningEffort: "off",
    temperature: 0.5,
  });
  const body = JSON.parse(off.requests[0]?.body ?? "{}");
  assert.deepEqual(body.thinking, { type: "disabled" });
  assert.equal(body.temperature, undefined, "Opus 4.8 refuses sampling");
  const max = await once("text.sse", {
    ...ask("claude-opus-4-8"),
    reasoningEffort: "max",
  });
  assert.deepEqual(JSON.parse(max.requests[0]?.body ?? "{}").output_config, {
    effort: "max",
  });
});
