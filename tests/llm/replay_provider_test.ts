import assert from "node:assert/strict";
import {
  type Cassette,
  type LlmProvider,
  type LlmRequest,
  parseCassette,
  type StreamChunk,
} from "../../llm/mod.ts";
import { resolvePlan } from "../../llm/plan.ts";
import { createChain } from "../../llm/chain.ts";
import { createReplay } from "../../llm/replay_provider.ts";
import { collect, recordingSleep } from "./_helpers.ts";

const FIXTURES = new URL("../fixtures/cassettes/", import.meta.url);
function load(name: string): Cassette {
  const r = parseCassette(Deno.readTextFileSync(new URL(name, FIXTURES)), name);
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
}

async function drain(p: LlmProvider, req: LlmRequest): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const c of p.stream(req, "replay")) out.push(c);
  return out;
}

function provider(r: ReturnType<typeof createReplay>, id: string): LlmProvider {
  const p = r.resolveProvider(id);
  assert.ok(p);
  return p;
}

const req = (extra: Partial<LlmRequest> = {}): LlmRequest => ({
  model: "m",
  messages: [{
    role: "user",
    content: [{ type: "text", text: "hello there" }],
  }],
  ...extra,
});

Deno.test("createReplay() v1.0: one counter across every provider id", async () => {
  const r = createReplay(load("v1_0_tool_round.json"), {
    primaryProvider: "anthropic",
  });
  assert.equal(r.checkPrimary().ok, true);
  const a = provider(r, "anthropic");
  const b = provider(r, "openai");
  assert.equal(a, provider(r, "anthropic"));
  assert.deepEqual(a.supports, {
    tools: true,
    streaming: true,
    parallelToolCalls: false,
    reasoning: false,
    promptCache: false,
  });
  assert.equal(a.kind, "anthropic");
  assert.equal(a.customEndpoint, false);
  assert.equal(a.generate, undefined);
  assert.equal((await drain(a, req()))[0]?.type, "tool_call_start");
  assert.equal(r.unconsumed(), 1);
  assert.equal((await drain(b, req()))[0]?.type, "text_delta");
  assert.equal(r.unconsumed(), 0);
  assert.deepEqual(r.faults(), []);
});

Deno.test("createReplay() v1.0: an extra call fails loudly and records a fault", async () => {
  const r = createReplay(load("v1_0_tool_round.json"), {
    primaryProvider: "anthropic",
  });
  const p = provider(r, "anthropic");
  await drain(p, req());
  await drain(p, req());
  const extra = await drain(p, req());
  assert.deepEqual(extra, [{
    type: "error",
    error: {
      kind: "unknown",
      retryable: false,
      provider: "anthropic",
      message: "unexpected stream call #3 (only 2 recorded)",
    },
  }]);
  assert.deepEqual(r.faults(), [
    "v1_0_tool_round.json: calls: unexpected stream call #3 (only 2 recorded)",
  ]);
});

Deno.test("createReplay() v1.0: the cassette provider must be the agent's primary", () => {
  const r = createReplay(load("v1_0_tool_round.json"), {
    primaryProvider: "openai",
  });
  assert.deepEqual(r.checkPrimary(), {
    ok: false,
    error: {
      file: "v1_0_tool_round.json",
      issues: [{
        path: "provider",
        message:
          'must equal the agent\'s primary provider "openai", got "anthropic"',
      }],
    },
  });
});

Deno.test("createReplay() checks expectations and names the difference", async () => {
  const r = createReplay(load("v1_1_expect.json"), {
    primaryProvider: "openai",
  });
  const p = provider(r, "openai");
  const tools = [{ name: "read_file", parameters: {} }, {
    name: "list_directory",
    parameters: {},
  }];
  const out = await drain(p, req({ model: "gpt-4o", tools }));
  assert.equal(out.length, 1);
  assert.equal(out[0]?.type, "error");
  assert.deepEqual(r.faults(), [
    'v1_1_expect.json: calls call #1: expect.model: wanted "gpt-5.4-mini", got "gpt-4o"; ' +
    "expect.maxTokens: wanted 1024, got none; " +
    'expect.tools: wanted ["read_file"], got ["list_directory","read_file"]',
  ]);
});

Deno.test("createReplay() passes matching expectations and replays a recorded cut as its error chunk", async () => {
  const r = createReplay(load("v1_1_expect.json"), {
    primaryProvider: "openai",
  });
  const p = provider(r, "openai");
  const first = await drain(
    p,
    req({
      model: "gpt-5.4-mini",
      maxTokens: 1024,
      tools: [{ name: "read_file", parameters: {} }],
    }),
  );
  assert.equal(first.at(-1)?.type, "stop");
  const missing = await drain(p, req());
  assert.equal(missing[0]?.type, "error");
  assert.deepEqual(r.faults(), [
    'v1_1_expect.json: calls call #2: expect.toolResultFor: no tool_result for "call-1" in the request',
  ]);
  const truncated = await drain(p, req());
  assert.deepEqual(truncated.map((c) => c.type), ["text_delta", "error"]);
});

Deno.test("createReplay() strict: unconsumed calls become a final fault", async () => {
  const r = createReplay(load("v1_1_expect.json"), {
    primaryProvider: "openai",
  });
  assert.deepEqual(r.finalFaults(), [
    "v1_1_expect.json: 3 recorded call(s) not consumed (strict)",
  ]);
  assert.deepEqual(r.faults(), []);
  const lax = createReplay(load("v1_0_tool_round.json"), {
    primaryProvider: "anthropic",
  });
  assert.equal(lax.unconsumed(), 2);
  assert.deepEqual(lax.finalFaults(), []);
  await drain(
    provider(r, "openai"),
    req({
      model: "gpt-5.4-mini",
      maxTokens: 1024,
      tools: [{ name: "read_file", parameters: {} }],
    }),
  );
  assert.equal(r.unconsumed(), 2);
});

Deno.test("createReplay() v1.1 providers map drives a real failover", async () => {
  const r = createReplay(load("v1_1_fallback.json"), {
    primaryProvider: "anthropic",
  });
  assert.equal(r.checkPrimary().ok, true);
  const plan = resolvePlan({
    provider: "anthropic",
    model: "claude-haiku-4-5",
    fallback_chain: [{
      provider: "openai",
      model: "gpt-5.4-mini",
      max_attempts: 1,
    }],
  }, (id) => r.resolveProvider(id));
  assert.ok(plan.ok);
  const { sleep, waits } = recordingSleep();
  const chain = createChain({
    plan: plan.value,
    keyFor: () => "replay",
    sleep,
    now: () => 0,
  });
  const events = await collect(
    chain.stream(req(), new AbortController().signal),
  );
  assert.deepEqual(waits, []);
  const end = events.at(-1);
  assert.equal(end?.type === "done" ? end.provider : end?.type, "openai");
  assert.deepEqual(r.finalFaults(), []);
});

Deno.test("createReplay() v1.1: an id without a queue yields an error and a fault", async () => {
  const r = createReplay(load("v1_1_fallback.json"), {
    primaryProvider: "anthropic",
  });
  const out = await drain(provider(r, "deepseek"), req());
  assert.deepEqual(out, [{
    type: "error",
    error: {
      kind: "unknown",
      retryable: false,
      provider: "deepseek",
      message: "no cassette queue for provider deepseek",
    },
  }]);
  assert.deepEqual(r.faults(), [
    "v1_1_fallback.json: no cassette queue for provider deepseek",
  ]);
});

Deno.test("createReplay() stops yielding when the request aborts", async () => {
  const r = createReplay(load("v1_0_tool_round.json"), {
    primaryProvider: "anthropic",
  });
  const ac = new AbortController();
  const seen: StreamChunk[] = [];
  for await (
    const c of provider(r, "anthropic").stream(req({ signal: ac.signal }), "k")
  ) {
    seen.push(c);
    ac.abort();
  }
  assert.equal(seen.length, 1);
});

Deno.test("createReplay() lastUserIncludes matches the last user message only", async () => {
  const r = createReplay(load("v1_1_fallback.json"), {
    primaryProvider: "anthropic",
  });
  const p = provider(r, "openai");
  const out = await drain(p, {
    model: "gpt-5.4-mini",
    messages: [
      { role: "user", content: [{ type: "text", text: "hello" }] },
      { role: "assistant", content: [{ type: "text", text: "hi" }] },
      { role: "user", content: [{ type: "text", text: "bye" }] },
    ],
  });
  assert.equal(out[0]?.type, "error");
  assert.deepEqual(r.faults(), [
    'v1_1_fallback.json: providers.openai call #1: expect.lastUserIncludes: "hello" not found in the last user message',
  ]);
});

Deno.test("createReplay() messagesInclude finds each substring in some request message", async (t) => {
  const cassette = (needles: string[]): string =>
    JSON.stringify({
      schema_version: "1.1",
      provider: "openai",
      calls: [{
        expect: { messagesInclude: needles },
        chunks: [{
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 1, outputTokens: 1 },
        }],
      }],
    });
  const request = {
    model: "m",
    messages: [
      {
        role: "user" as const,
        content: [{ type: "text" as const, text: "first question" }],
      },
      {
        role: "assistant" as const,
        content: [{ type: "text" as const, text: "first answer" }],
      },
      {
        role: "user" as const,
        content: [{ type: "text" as const, text: "second" }],
      },
    ],
  };
  /** Replays a cassette whose call expects `texts`: the replay, the chunks. */
  const replayOf = async (texts: string[]) => {
    const parsed = parseCassette(cassette(texts), "c.json");
    assert.ok(parsed.ok);
    const r = createReplay(parsed.value, { primaryProvider: "openai" });
    return { r, out: await drain(provider(r, "openai"), request) };
  };
  await t.step("all found", async () => {
    const { r, out } = await replayOf(["first question", "first answer"]);
    assert.equal(out.at(-1)?.type, "stop");
    assert.deepEqual(r.faults(), []);
  });
  await t.step("one missing is a named fault", async () => {
    const { r, out } = await replayOf(["first answer", "never said"]);
    assert.equal(out[0]?.type, "error");
    assert.deepEqual(r.faults(), [
      'c.json: calls call #1: expect.messagesInclude[1]: "never said" not found in any request message',
    ]);
  });
  await t.step("refused in a 1.0 file", () => {
    const text = cassette(["x"]).replace('"1.1"', '"1.0"');
    assert.equal(parseCassette(text, "c.json").ok, false);
  });
});

Deno.test("createReplay() declares a v1.1 context_window on every replayed provider", async (t) => {
  const doc = (extra: Record<string, unknown>, version = "1.1"): string =>
    JSON.stringify({
      schema_version: version,
      provider: "anthropic",
      calls: [],
      ...extra,
    });
  await t.step("declared", () => {
    const parsed = parseCassette(doc({ context_window: 8000 }), "c.json");
    assert.ok(parsed.ok);
    assert.equal(parsed.value.contextWindow, 8000);
    const r = createReplay(parsed.value, { primaryProvider: "anthropic" });
    assert.equal(r.resolveProvider("anthropic")?.contextLimit?.("any"), 8000);
  });
  await t.step("absent: unknown", () => {
    const parsed = parseCassette(doc({}), "c.json");
    assert.ok(parsed.ok);
    const r = createReplay(parsed.value, { primaryProvider: "anthropic" });
    assert.equal(r.resolveProvider("anthropic")?.contextLimit, undefined);
  });
  await t.step("refused when not a positive integer, or in a 1.0 file", () => {
    for (
      const [extra, version] of [[{ context_window: 0 }, "1.1"], [{
        context_window: 1.5,
      }, "1.1"], [{ context_window: 10 }, "1.0"]] as const
    ) {
      const parsed = parseCassette(doc(extra, version), "c.json");
      assert.equal(parsed.ok, false);
      if (!parsed.ok) {
        assert.equal(parsed.error.issues[0]?.path, "context_window");
      }
    }
  });
});
