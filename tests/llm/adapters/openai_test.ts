import assert from "node:assert/strict";
import { openaiAt, wireKit } from "./_adapters.ts";
import type { LlmRequest } from "../../../llm/mod.ts";
import {
  createOpenAiProvider,
  type OpenAiProviderOptions,
} from "../../../llm/openai/provider.ts";
import {
  argsOf,
  ask,
  collect,
  http,
  serve,
  sse,
  terminal,
  textOf,
} from "./_server.ts";

const KEY = "sk-proj-PLANTEDkey0123456789abcdefghijXYZ";
/**
 * A model the official endpoint serves through Chat Completions (not a
 * reasoning model: those go to the Responses API).
 */
const CHAT_MODEL = "gpt-4.1";
/** An OpenAI provider on a loopback server, treated as the official endpoint. */
const official = openaiAt;
const { fx, once, failure } = wireKit("openai", CHAT_MODEL, KEY, official);

Deno.test("createOpenAiProvider() streams plain text and sends the documented request", async () => {
  const req: LlmRequest = {
    ...ask(CHAT_MODEL, "Salut"),
    system: "Be brief.",
    maxTokens: 300,
    temperature: 0.2,
    stopSequences: ["END"],
  };
  const { chunks, requests } = await once("text.sse", req);
  assert.equal(textOf(chunks), "Bonjour ! Ça va très bien 😊.");
  assert.deepEqual(terminal(chunks), {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 19, outputTokens: 10 },
  });
  const r = requests[0];
  assert.ok(r !== undefined);
  assert.equal(r.path, "/chat/completions");
  assert.equal(r.headers.get("authorization"), `Bearer ${KEY}`);
  assert.equal(r.headers.get("content-type"), "application/json");
  assert.deepEqual(JSON.parse(r.body), {
    model: CHAT_MODEL,
    messages: [{ role: "system", content: "Be brief." }, {
      role: "user",
      content: "Salut",
    }],
    temperature: 0.2,
    stop: ["END"],
    max_completion_tokens: 300,
    stream: true,
    stream_options: { include_usage: true },
  });
});

Deno.test("createOpenAiProvider() sends max_tokens on compatible servers and as configured", async () => {
  const req: LlmRequest = { ...ask("llama3.2"), maxTokens: 64 };
  const server = serve([sse(fx("text.sse")), sse(fx("text.sse"))]);
  try {
    const local = createOpenAiProvider({
      id: "ollama",
      fetch,
      baseUrl: `${server.url}/`,
    });
    assert.equal(local.customEndpoint, true);
    terminal(await collect(local.stream(req, "")));
    const forced = official(server.url, { maxTokensParam: "max_tokens" });
    terminal(await collect(forced.stream(req, KEY)));
    const [a, b] = server.requests.map((r) => JSON.parse(r.body));
    assert.equal(a.max_tokens, 64);
    assert.equal(a.max_completion_tokens, undefined);
    assert.equal(b.max_tokens, 64);
    assert.equal(
      server.requests[0]?.headers.has("authorization"),
      false,
      "no key, no auth header",
    );
  } finally {
    await server.close();
  }
});

Deno.test("createOpenAiProvider() accumulates parallel tool calls by index", async () => {
  const { chunks } = await once("parallel_tools.sse");
  const a = "call_A1b2C3d4E5f6G7h8I9j0K1l2";
  const b = "call_M3n4O5p6Q7r8S9t0U1v2W3x4";
  assert.deepEqual(
    chunks.flatMap((c) => c.type === "tool_call_end" ? [c.id] : []),
    [a, b],
  );
  assert.deepEqual(JSON.parse(argsOf(chunks, a)), { location: "Paris" });
  assert.deepEqual(JSON.parse(argsOf(chunks, b)), { timezone: "Europe/Paris" });
  assert.deepEqual(terminal(chunks), {
    type: "stop",
    stopReason: "tool_use",
    usage: { inputTokens: 96, outputTokens: 44 },
  });
});

Deno.test("createOpenAiProvider() tolerates whole calls in one fragment, reused indexes and missing ids", async () => {
  const { chunks } = await once("compat_tool_calls.sse");
  assert.deepEqual(
    chunks.flatMap((c) => c.type === "tool_call_start" ? [[c.id, c.name]] : []),
    [
      ["call_k3n1x9", "get_weather"],
      ["call_p0q2z7", "get_time"],
      ["call_2", "lookup"],
    ],
  );
  assert.deepEqual(JSON.parse(argsOf(chunks, "call_k3n1x9")), {
    city: "Paris",
  });
  assert.deepEqual(JSON.parse(argsOf(chunks, "call_p0q2z7")), { tz: "CET" });
  assert.deepEqual(JSON.parse(argsOf(chunks, "call_2")), { q: 1 });
  // No usage chunk: the zeros are marked unknown, never measured.
  assert.deepEqual(terminal(chunks), {
    type: "stop",
    stopReason: "tool_use",
    usage: { inputTokens: 0, outputTokens: 0 },
    usageUnknown: true,
  });
});

Deno.test("createOpenAiProvider() streams DeepSeek reasoning_content and cache-hit usage", async () => {
  const { chunks, requests } = await once("deepseek_reasoning.sse", {
    ...ask("deepseek-reasoner"),
    reasoningEffort: "off",
  }, { id: "deepseek", dialect: "deepseek" });
  assert.deepEqual(chunks.slice(0, 3), [
    { type: "reasoning_start", id: "reasoning_0" },
    { type: "reasoning_delta", id: "reasoning_0", text: "The user" },
    {
      type: "reasoning_delta",
      id: "reasoning_0",
      text: " asks about 9.11 vs 9.8.",
    },
  ]);
  assert.equal(textOf(chunks), "9.8 is greater.");
  assert.deepEqual(chunks.slice(-2), [
    { type: "reasoning_end", id: "reasoning_0" },
    {
      type: "stop",
      stopReason: "stop",
      usage: {
        inputTokens: 118,
        outputTokens: 61,
        cacheReadTokens: 256,
        reasoningTokens: 17,
      },
    },
  ]);
  const body = JSON.parse(requests[0]?.body ?? "{}");
  assert.deepEqual(body.thinking, { type: "disabled" });
  assert.equal(body.reasoning_effort, undefined);
});

Deno.test("createOpenAiProvider() replays DeepSeek reasoning with its tool calls and drops it for OpenAI", async () => {
  const { chunks } = await once(
    "deepseek_tool_call.sse",
    ask("deepseek-reasoner"),
    { id: "deepseek", dialect: "deepseek" },
  );
  const last = terminal(chunks);
  assert.ok(last.type === "stop" && last.stopReason === "tool_use");
  const id = "call_00_IhCAliIHtM9gKpgfqbBV9873";
  const loop: LlmRequest = {
    model: "deepseek-reasoner",
    messages: [
      {
        role: "user",
        content: [{ type: "text", text: "Weather in Hangzhou?" }],
      },
      {
        role: "assistant",
        content: [{ type: "reasoning", text: "Use the weather tool." }, {
          type: "tool_call",
          id,
          name: "get_weather",
          args: { location: "Hangzhou" },
        }],
      },
      {
        role: "tool",
        content: [{
          type: "tool_result",
          toolCallId: id,
          result: { temp: 24 },
        }],
      },
    ],
  };
  const ds = await once("text.sse", loop, {
    id: "deepseek",
    dialect: "deepseek",
  });
  const oa = await once("text.sse", { ...loop, model: CHAT_MODEL });
  const expected = {
    role: "assistant",
    content: null,
    tool_calls: [{
      id,
      type: "function",
      function: { name: "get_weather", arguments: '{"location":"Hangzhou"}' },
    }],
  };
  const dsMessages = JSON.parse(ds.requests[0]?.body ?? "{}").messages;
  assert.deepEqual(dsMessages[1], {
    ...expected,
    reasoning_content: "Use the weather tool.",
  });
  assert.deepEqual(dsMessages[2], {
    role: "tool",
    tool_call_id: id,
    content: '{"temp":24}',
  });
  assert.deepEqual(
    JSON.parse(oa.requests[0]?.body ?? "{}").messages[1],
    expected,
  );
});

Deno.test("createOpenAiProvider() subtracts cached tokens from input", async () => {
  const { chunks } = await once("cache_usage.sse");
  assert.deepEqual(terminal(chunks), {
    type: "stop",
    stopReason: "stop",
    usage: {
      inputTokens: 86,
      outputTokens: 300,
      cacheReadTokens: 1920,
      reasoningTokens: 128,
    },
  });
});

Deno.test("createOpenAiProvider() maps every finish reason and refusals", async (t) => {
  const cases: [string, string][] = [
    ["text.sse", "stop"],
    ["stop_length.sse", "length"],
    ["stop_content_filter.sse", "content_filter"],
    ["tool_split_args.sse", "tool_use"],
    ["stop_function_call.sse", "tool_use"],
    ["refusal.sse", "content_filter"],
    ["eof_after_finish.sse", "stop"],
  ];
  for (const [name, reason] of cases) {
    await t.step(name, async () => {
      const last = terminal((await once(name)).chunks);
      assert.ok(last.type === "stop");
      assert.equal(last.stopReason, reason);
    });
  }
  await t.step("refusal text is not forwarded as model text", async () => {
    assert.equal(textOf((await once("refusal.sse")).chunks), "");
  });
  await t.step(
    "end of stream after a finish reason keeps the usage",
    async () => {
      const last = terminal((await once("eof_after_finish.sse")).chunks);
      assert.deepEqual(last, {
        type: "stop",
        stopReason: "stop",
        usage: { inputTokens: 7, outputTokens: 4 },
      });
    },
  );
});

Deno.test("createOpenAiProvider() treats a stream without finish_reason as truncated", async () => {
  for (const name of ["truncated.sse", "done_without_finish.sse"]) {
    const last = terminal((await once(name)).chunks);
    assert.ok(last.type === "error" && last.error.kind === "transport", name);
  }
});

Deno.test("createOpenAiProvider() classifies overflow per dialect and downgrades it on custom endpoints", async (t) => {
  await t.step("OpenAI: code context_length_exceeded", async () => {
    assert.equal(
      (await failure("error_400_overflow.http")).kind,
      "context_overflow",
    );
  });
  await t.step("DeepSeek: maximum context length", async () => {
    const e = await failure("deepseek_400_overflow.http", {
      id: "deepseek",
      dialect: "deepseek",
    });
    assert.equal(e.kind, "context_overflow");
    assert.equal(e.provider, "deepseek");
    assert.equal(
      (await failure("deepseek_400_overflow.http")).kind,
      "bad_request",
      "not an OpenAI signal",
    );
  });
  await t.step("custom endpoint: stays bad_request with a hint", async () => {
    for (
      const name of ["error_400_overflow.http", "compat_400_overflow.http"]
    ) {
      const e = await failure(name, { id: "llamacpp", customEndpoint: true });
      assert.equal(e.kind, "bad_request", name);
      assert.equal(e.code, "possible_context_overflow", name);
    }
    const plain = await failure("error_400_bad.http", { customEndpoint: true });
    assert.equal(plain.code, "unsupported_parameter");
  });
});

Deno.test("createOpenAiProvider() sends reasoning effort per model family", async () => {
  const cases: [string, "off" | "medium" | "high" | "max", unknown][] = [
    ["gpt-5.4-mini", "off", "none"],
    ["gpt-5.4", "max", "xhigh"],
    ["o3", "medium", "medium"],
    ["gpt-4.1", "high", undefined],
  ];
  for (const [model, effort, wire] of cases) {
    // A Chat Completions endpoint of its own, declared to reason.
    const { requests } = await once("text.sse", {
      ...ask(model),
      reasoningEffort: effort,
    }, { customEndpoint: true, supports: { reasoning: true } });
    assert.equal(
      JSON.parse(requests[0]?.body ?? "{}").reasoning_effort,
      wire,
      model,
    );
  }
});

Deno.test("createOpenAiProvider() knows the window and capabilities only on official endpoints", () => {
  const make = (id: string, extra: Partial<OpenAiProviderOptions> = {}) =>
    createOpenAiProvider({ id, fetch, ...extra });
  const openai = make("openai");
  assert.equal(openai.customEndpoint, false);
  assert.equal(openai.contextLimit?.("gpt-5.4-mini"), 400_000);
  const deepseek = make("deepseek", { dialect: "deepseek" });
  assert.equal(deepseek.customEndpoint, false);
  assert.equal(deepseek.contextLimit?.("deepseek-chat"), 128_000);
  const override = make("openai", { baseUrl: "https://proxy.example.com/v1" });
  assert.equal(override.customEndpoint, true);
  assert.equal(override.contextLimit?.("gpt-5.4-mini"), undefined);
  const ollama = make("ollama", { baseUrl: "http://localhost:11434/v1" });
  assert.deepEqual(ollama.supports, {
    tools: true,
    streaming: true,
    parallelToolCalls: true,
    reasoning: false,
    promptCache: false,
  });
  assert.equal(ollama.kind, "openai-compatible");
  assert.throws(() => createOpenAiProvider({ id: "", fetch }), TypeError);
});

Deno.test("createOpenAiProvider() reads an HTTP-date retry-after with the injected clock", async () => {
  const at = Date.UTC(2026, 0, 1, 12, 0, 0);
  const server = serve([
    http(fx("error_429.http"), {
      "retry-after": "Thu, 01 Jan 2026 12:00:07 GMT",
    }),
    http(fx("error_429.http"), {
      "retry-after": "Thu, 01 Jan 2026 12:00:07 GMT",
    }),
  ]);
  try {
    const withClock = official(server.url, { now: () => at });
    const a = terminal(
      await collect(withClock.stream(ask(CHAT_MODEL), KEY)),
    );
    assert.ok(a.type === "error" && a.error.retryAfterMs === 7000);
    const without = official(server.url);
    const b = terminal(await collect(without.stream(ask(CHAT_MODEL), KEY)));
    assert.ok(
      b.type === "error" && b.error.kind === "rate_limit" &&
        b.error.retryAfterMs === undefined,
    );
  } finally {
    await server.close();
  }
});

Deno.test("createOpenAiProvider() reports an empty 200 body as truncated and a refused fetch as transport", async () => {
  const server = serve([
    () =>
      new Response("", { headers: { "content-type": "text/event-stream" } }),
  ]);
  try {
    const last = terminal(
      await collect(official(server.url).stream(ask(CHAT_MODEL), KEY)),
    );
    assert.ok(last.type === "error" && last.error.kind === "transport");
  } finally {
    await server.close();
  }
  const refused = createOpenAiProvider({
    id: "openai",
    fetch: () =>
      Promise.reject(
        new TypeError(
          `error sending request for url (https://u:p@x.test/?api_key=${KEY})`,
        ),
      ),
  });
  const chunks = await collect(refused.stream(ask(CHAT_MODEL), KEY));
  const last = terminal(chunks);
  assert.ok(
    last.type === "error" && last.error.kind === "transport" &&
      last.error.retryable,
  );
  assert.ok(
    !JSON.stringify(chunks).includes(KEY) &&
      !JSON.stringify(chunks).includes("u:p@"),
  );
});
