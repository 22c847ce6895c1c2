import assert from "node:assert/strict";
import {
  type AttemptReport,
  type ChainOptions,
  createChain,
  type PlanEntry,
} from "../../llm/chain.ts";
import type { ChainEvent } from "../../llm/chain_event.ts";
import { statusKind } from "../../llm/_http_errors.ts";
import { toSessionError } from "../../llm/errors.ts";
import {
  createScriptedProvider,
  type LlmErrorKind,
  type LlmProvider,
  LlmProviderError,
  type LlmRequest,
  makeLlmError,
  type StreamChunk,
} from "../../llm/mod.ts";
import {
  collect,
  errorReply,
  manualClock,
  recordingSleep,
  textReply,
  types,
  userRequest,
} from "./_helpers.ts";

function setup(plan: PlanEntry[], extra: Partial<ChainOptions> = {}): {
  options: ChainOptions;
  waits: number[];
  reports: AttemptReport[];
} {
  const { waits, sleep } = recordingSleep();
  const reports: AttemptReport[] = [];
  const options: ChainOptions = {
    plan,
    keyFor: (id) => `key-${id}`,
    sleep,
    onAttempt: (r) => reports.push(r),
    ...extra,
  };
  return { options, waits, reports };
}

function last(events: ChainEvent[]): ChainEvent {
  const e = events[events.length - 1];
  assert.ok(e !== undefined, "no events");
  return e;
}

function servedBy(events: ChainEvent[]): string | undefined {
  const e = last(events);
  return e.type === "done" ? e.provider : undefined;
}

function failedKind(events: ChainEvent[]): LlmErrorKind | undefined {
  const e = last(events);
  return e.type === "failed" ? e.error?.kind : undefined;
}

const signal = (): AbortSignal => new AbortController().signal;

Deno.test("createChain() streams one successful call", async () => {
  const p = createScriptedProvider({ id: "openai", script: [textReply("Hi")] });
  const { options, reports } = setup([{
    provider: p,
    model: "gpt",
    maxAttempts: 3,
  }]);
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  assert.deepEqual(types(events), ["attempt_start", "chunk", "done"]);
  assert.deepEqual(last(events), {
    type: "done",
    attemptNumber: 1,
    provider: "openai",
    model: "gpt",
    stopReason: "stop",
    usage: { inputTokens: 10, outputTokens: 2 },
  });
  assert.equal(p.requests[0]?.model, "gpt");
  assert.deepEqual(p.keys, ["key-openai"]);
  assert.deepEqual(reports, [{
    attemptNumber: 1,
    provider: "openai",
    model: "gpt",
    outcome: "succeeded",
    usage: { inputTokens: 10, outputTokens: 2 },
    usageKnown: true,
  }]);
});

Deno.test("createChain() retries a retryable error with exponential backoff", async () => {
  const p = createScriptedProvider({
    script: [
      errorReply("overloaded"),
      errorReply("transport"),
      textReply("ok"),
    ],
  });
  const { options, waits, reports } = setup([{
    provider: p,
    model: "m",
    maxAttempts: 3,
  }]);
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  assert.deepEqual(types(events), [
    "attempt_start",
    "attempt_start",
    "attempt_start",
    "chunk",
    "done",
  ]);
  assert.deepEqual(
    waits,
    [125, 250],
    "half the base: the test clock adds no jitter",
  );
  assert.deepEqual(
    reports.map((r) => [r.attemptNumber, r.outcome, r.error?.kind]),
    [
      [1, "failed", "overloaded"],
      [2, "failed", "transport"],
      [3, "succeeded", undefined],
    ],
  );
});

Deno.test("createChain() waits retry-after up to 20 s on rate_limit, then retries", async () => {
  const clock = manualClock();
  const p = createScriptedProvider({
    script: [
      errorReply("rate_limit", "scripted", { retryAfterMs: 5000 }),
      textReply("ok"),
      textReply("again"),
    ],
  });
  const { options, waits } = setup([{
    provider: p,
    model: "m",
    maxAttempts: 3,
  }], { now: clock.now });
  const chain = createChain(options);
  const first = await collect(chain.stream(userRequest(), signal()));
  assert.equal(last(first).type, "done");
  assert.deepEqual(waits, [5000]);
  // A success clears the cooldown: the next round uses the provider again.
  const second = await collect(chain.stream(userRequest(), signal()));
  assert.equal(last(second).type, "done");
  assert.equal(p.calls, 3);
});

Deno.test("createChain() parks a provider whose retry-after exceeds 20 s and advances", async () => {
  const clock = manualClock();
  const a = createScriptedProvider({
    id: "a",
    script: [
      errorReply("rate_limit", "a", { retryAfterMs: 45_000 }),
      textReply("a-back"),
    ],
  });
  const b = createScriptedProvider({
    id: "b",
    script: [textReply("b1"), textReply("b2")],
  });
  const { options, waits, reports } = setup([
    { provider: a, model: "ma", maxAttempts: 3 },
    { provider: b, model: "mb", maxAttempts: 1 },
  ], { now: clock.now });
  const chain = createChain(options);
  const first = await collect(chain.stream(userRequest(), signal()));
  assert.deepEqual(waits, []);
  assert.equal(servedBy(first), "b");
  // Later calls of this chain skip the parked provider.
  clock.advance(30_000);
  const second = await collect(chain.stream(userRequest(), signal()));
  assert.equal(servedBy(second), "b");
  assert.deepEqual(
    reports.map((r) => [r.attemptNumber, r.provider, r.outcome, r.skipReason]),
    [
      [1, "a", "failed", undefined],
      [2, "b", "succeeded", undefined],
      [3, "a", "skipped", "cooldown"],
      [3, "b", "succeeded", undefined],
    ],
  );
  // Once the 45 s have passed the provider is tried again.
  clock.advance(15_001);
  const third = await collect(chain.stream(userRequest(), signal()));
  assert.equal(servedBy(third), "a");
});

Deno.test("createChain() fails over after exhausting overloaded retries", async () => {
  const a = createScriptedProvider({
    id: "anthropic",
    script: [
      errorReply("overloaded", "anthropic"),
      errorReply("overloaded", "anthropic"),
      errorReply("overloaded", "anthropic"),
    ],
  });
  const b = createScriptedProvider({
    id: "openai",
    script: [textReply("fallback")],
  });
  const { options, waits } = setup([
    { provider: a, model: "claude", maxAttempts: 3 },
    { provider: b, model: "gpt", maxAttempts: 1 },
  ]);
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  assert.deepEqual(
    waits,
    [125, 250],
    "half the base: the test clock adds no jitter",
  );
  assert.deepEqual(last(events), {
    type: "done",
    attemptNumber: 4,
    provider: "openai",
    model: "gpt",
    stopReason: "stop",
    usage: { inputTokens: 10, outputTokens: 2 },
  });
});

Deno.test("createChain() reports the last error when every entry is exhausted", async () => {
  const a = createScriptedProvider({
    id: "a",
    script: [errorReply("timeout", "a")],
  });
  const b = createScriptedProvider({
    id: "b",
    script: [errorReply("overloaded", "b")],
  });
  const { options } = setup([
    { provider: a, model: "ma", maxAttempts: 1 },
    { provider: b, model: "mb", maxAttempts: 1 },
  ]);
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  const end = last(events);
  assert.equal(end.type, "failed");
  if (end.type === "failed") {
    assert.equal(end.error?.kind, "overloaded");
    assert.equal(end.error?.provider, "b");
    assert.equal(end.engaged, true);
  }
});

Deno.test("createChain() stops the chain on fatal kinds", async (t) => {
  const fatal: LlmErrorKind[] = [
    "auth",
    "bad_request",
    "content_filter",
    "unknown",
    "context_overflow",
  ];
  for (const kind of fatal) {
    await t.step(kind, async () => {
      const a = createScriptedProvider({
        id: "a",
        script: [errorReply(kind, "a")],
      });
      const b = createScriptedProvider({
        id: "b",
        script: [textReply("never")],
      });
      const { options, waits } = setup([
        { provider: a, model: "ma", maxAttempts: 3 },
        { provider: b, model: "mb", maxAttempts: 1 },
      ]);
      const events = await collect(
        createChain(options).stream(userRequest(), signal()),
      );
      assert.equal(failedKind(events), kind);
      assert.equal(a.calls, 1);
      assert.equal(b.calls, 0);
      assert.deepEqual(waits, []);
    });
  }
});

Deno.test("createChain() never retries or fails over after the first forwarded chunk", async () => {
  const a = createScriptedProvider({
    id: "a",
    script: [[
      { type: "text_delta", text: "partial" },
      ...errorReply("overloaded", "a"),
    ]],
  });
  const b = createScriptedProvider({ id: "b", script: [textReply("never")] });
  const { options } = setup([
    { provider: a, model: "ma", maxAttempts: 3 },
    { provider: b, model: "mb", maxAttempts: 1 },
  ]);
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  assert.deepEqual(types(events), ["attempt_start", "chunk", "failed"]);
  assert.equal(failedKind(events), "overloaded");
  assert.equal(a.calls, 1);
  assert.equal(b.calls, 0);
});

Deno.test("createChain() turns a truncated stream into a transport error", async (t) => {
  await t.step("after a chunk: surfaced, no retry", async () => {
    const p = createScriptedProvider({
      script: [[{ type: "text_delta", text: "cut" }], textReply("never")],
    });
    const { options } = setup([{ provider: p, model: "m", maxAttempts: 3 }]);
    const events = await collect(
      createChain(options).stream(userRequest(), signal()),
    );
    assert.equal(failedKind(events), "transport");
    assert.equal(p.calls, 1);
  });
  await t.step("before any chunk: retried", async () => {
    const p = createScriptedProvider({ script: [[], textReply("ok")] });
    const { options, waits } = setup([{
      provider: p,
      model: "m",
      maxAttempts: 3,
    }]);
    const events = await collect(
      createChain(options).stream(userRequest(), signal()),
    );
    assert.equal(last(events).type, "done");
    assert.deepEqual(waits, [125]);
  });
});

Deno.test("createChain() skips entries lacking tools or streaming", async () => {
  const noTools = createScriptedProvider({
    id: "a",
    script: [textReply("x")],
    supports: { tools: false },
  });
  const noStream = createScriptedProvider({
    id: "b",
    script: [textReply("x")],
    supports: { streaming: false },
  });
  const ok = createScriptedProvider({ id: "c", script: [textReply("x")] });
  const { options, reports } = setup([
    { provider: noTools, model: "ma", maxAttempts: 3 },
    { provider: noStream, model: "mb", maxAttempts: 1 },
    { provider: ok, model: "mc", maxAttempts: 1 },
  ]);
  const req = userRequest("hi", {
    tools: [{ name: "read_file", parameters: { type: "object" } }],
  });
  const events = await collect(createChain(options).stream(req, signal()));
  assert.deepEqual(types(events), ["attempt_start", "chunk", "done"]);
  assert.deepEqual(
    reports.map((r) => [r.attemptNumber, r.provider, r.outcome, r.skipReason]),
    [
      [1, "a", "skipped", "no_tools"],
      [1, "b", "skipped", "no_streaming"],
      [1, "c", "succeeded", undefined],
    ],
  );
  assert.equal(noTools.calls + noStream.calls, 0);
});

Deno.test("createChain() fails with unknown when every entry is skipped", async () => {
  const p = createScriptedProvider({
    id: "a",
    script: [],
    supports: { streaming: false },
  });
  const { options } = setup([{ provider: p, model: "m", maxAttempts: 3 }]);
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  assert.deepEqual(events, [{
    type: "failed",
    error: {
      kind: "unknown",
      retryable: false,
      provider: "a",
      message: "fallback chain exhausted",
    },
    engaged: false,
  }]);
});

const REASONING_HISTORY: LlmRequest = {
  model: "",
  messages: [
    { role: "user", content: [{ type: "text", text: "q" }] },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "think", signature: "sig" },
        { type: "tool_call", id: "c1", name: "read_file", args: {} },
      ],
    },
    {
      role: "tool",
      content: [{ type: "tool_result", toolCallId: "c1", result: "x" }],
    },
    {
      role: "assistant",
      content: [{ type: "reasoning", text: "only thoughts" }],
    },
    { role: "user", content: [{ type: "text", text: "more" }] },
  ],
};

const STRIPPED = [
  { role: "user", content: [{ type: "text", text: "q" }] },
  {
    role: "assistant",
    content: [{ type: "tool_call", id: "c1", name: "read_file", args: {} }],
  },
  {
    role: "tool",
    content: [{ type: "tool_result", toolCallId: "c1", result: "x" }],
  },
  { role: "user", content: [{ type: "text", text: "more" }] },
];

Deno.test("createChain() strips reasoning only when another provider serves the carried output", async () => {
  const a = createScriptedProvider({
    id: "a",
    script: [
      textReply("round 1"),
      errorReply("overloaded", "a"),
      errorReply("overloaded", "a"),
    ],
  });
  const b = createScriptedProvider({
    id: "b",
    script: [textReply("round 2"), textReply("round 3")],
  });
  const { options } = setup([
    { provider: a, model: "ma", maxAttempts: 1 },
    { provider: b, model: "mb", maxAttempts: 1 },
  ]);
  const chain = createChain(options);
  await collect(chain.stream(userRequest(), signal()));
  // Round 2 carries a's output: a gets it verbatim, b gets it stripped.
  await collect(chain.stream(REASONING_HISTORY, signal()));
  assert.deepEqual(a.requests[1]?.messages, REASONING_HISTORY.messages);
  assert.deepEqual(b.requests[0]?.messages, STRIPPED);
  // Round 3 carries output of both a and b: every provider gets it stripped.
  await collect(chain.stream(REASONING_HISTORY, signal()));
  assert.deepEqual(a.requests[2]?.messages, STRIPPED);
  assert.deepEqual(b.requests[1]?.messages, STRIPPED);
});

Deno.test("createChain() keeps reasoning for the provider that produced it", async () => {
  const a = createScriptedProvider({
    id: "a",
    script: [textReply("1"), textReply("2")],
  });
  const { options } = setup([{ provider: a, model: "ma", maxAttempts: 1 }]);
  const chain = createChain(options);
  await collect(chain.stream(userRequest(), signal()));
  await collect(chain.stream(REASONING_HISTORY, signal()));
  assert.deepEqual(a.requests[1]?.messages, REASONING_HISTORY.messages);
});

Deno.test("createChain() refuses without egress when admission says no", async () => {
  const p = createScriptedProvider({
    script: [errorReply("overloaded"), textReply("never")],
  });
  const refusal = {
    code: "budget_exceeded" as const,
    message: "Cost cap reached: 100",
    retryable: false,
  };
  await (async () => {
    const { options } = setup([{ provider: p, model: "m", maxAttempts: 3 }], {
      admit: () => ({ allow: false, error: refusal }),
    });
    const events = await collect(
      createChain(options).stream(userRequest(), signal()),
    );
    assert.deepEqual(events, [{ type: "failed", refusal, engaged: false }]);
    assert.equal(p.calls, 0);
  })();
  // A refusal of a retry still reports that the call engaged.
  let admitted = 0;
  const { options } = setup([{ provider: p, model: "m", maxAttempts: 3 }], {
    admit: () =>
      admitted++ === 0 ? { allow: true } : { allow: false, error: refusal },
  });
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  assert.deepEqual(last(events), { type: "failed", refusal, engaged: true });
  assert.equal(p.calls, 1);
});

Deno.test("createChain() fails auth, not engaged, when the key cannot be resolved", async () => {
  const p = createScriptedProvider({
    id: "openai",
    script: [textReply("never")],
  });
  const { options, reports } = setup([{
    provider: p,
    model: "m",
    maxAttempts: 3,
  }], {
    keyFor: () => Promise.reject(new Error("no OPENAI_API_KEY")),
  });
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  assert.deepEqual(events, [{
    type: "failed",
    error: {
      kind: "auth",
      retryable: false,
      provider: "openai",
      message: "credential resolution failed for provider openai",
    },
    engaged: false,
  }]);
  assert.equal(p.calls, 0);
  assert.deepEqual(
    reports.map((r) => [r.attemptNumber, r.outcome, r.skipReason]),
    [[1, "skipped", "no_key"]],
    "the admitted attempt is reported as never sent",
  );
});

Deno.test("createChain() reports an admitted attempt cancelled before it left as skipped", async () => {
  const p = createScriptedProvider({
    id: "openai",
    script: [textReply("never")],
  });
  const controller = new AbortController();
  const admitted: string[] = [];
  const { options, reports } = setup([{
    provider: p,
    model: "m",
    maxAttempts: 1,
  }], {
    admit: (entry) => {
      admitted.push(entry.model);
      return { allow: true };
    },
    keyFor: () => {
      controller.abort();
      return "k";
    },
  });
  const events = await collect(
    createChain(options).stream(userRequest(), controller.signal),
  );
  assert.equal(last(events).type, "failed");
  assert.equal(p.calls, 0);
  assert.deepEqual(admitted, ["m"]);
  assert.deepEqual(
    reports.map((r) => [r.outcome, r.skipReason]),
    [["skipped", "cancelled"]],
  );
});

const NO_EXTRAS = {
  parallelToolCalls: false,
  reasoning: false,
  promptCache: false,
};

function endlessProvider(
  reads: { count: number },
  hangAfter = Infinity,
): LlmProvider {
  return {
    id: "endless",
    kind: "openai-compatible",
    customEndpoint: false,
    // Tools and streaming; nothing else.
    supports: { ...NO_EXTRAS, tools: true, streaming: true },
    async *stream(): AsyncGenerator<StreamChunk> {
      while (true) {
        reads.count++;
        if (reads.count > hangAfter) await new Promise(() => {});
        yield { type: "text_delta", text: "x" };
      }
    },
  };
}

Deno.test("createChain() stops reading at once when aborted mid-stream", async (t) => {
  await t.step("between chunks", async () => {
    const reads = { count: 0 };
    const { options, reports } = setup([{
      provider: endlessProvider(reads),
      model: "m",
      maxAttempts: 3,
    }]);
    const ac = new AbortController();
    const events: ChainEvent[] = [];
    for await (
      const e of createChain(options).stream(userRequest(), ac.signal)
    ) {
      events.push(e);
      if (e.type === "chunk") ac.abort();
    }
    assert.deepEqual(types(events), ["attempt_start", "chunk", "failed"]);
    assert.equal(failedKind(events), "cancelled");
    assert.equal(reads.count, 1);
    assert.equal(reports[0]?.error?.kind, "cancelled");
  });
  await t.step("while a read is pending", async () => {
    const reads = { count: 0 };
    const { options } = setup([{
      provider: endlessProvider(reads, 1),
      model: "m",
      maxAttempts: 3,
    }]);
    const ac = new AbortController();
    const it = createChain(options).stream(userRequest(), ac.signal)
      [Symbol.asyncIterator]();
    assert.equal((await it.next()).value?.type, "attempt_start");
    assert.equal((await it.next()).value?.type, "chunk");
    const pending = it.next();
    await new Promise((r) => setTimeout(r, 0));
    ac.abort();
    const end = await pending;
    assert.equal(
      end.value?.type === "failed" && end.value.error?.kind,
      "cancelled",
    );
    assert.equal((await it.next()).done, true);
    assert.equal(reads.count, 2);
  });
  await t.step(
    "a hand-written iterator: plain results are read, and a read failing after the abort is ignored",
    async () => {
      let failPending: (error: Error) => void = () => {};
      let reads = 0;
      const iterator: AsyncIterator<StreamChunk> = {
        // Not a promise: a loose provider's synchronous result.
        next: (() => {
          reads++;
          if (reads === 1) {
            return { done: false, value: { type: "text_delta", text: "x" } };
          }
          return new Promise((_, reject) => (failPending = reject));
        }) as unknown as AsyncIterator<StreamChunk>["next"],
      };
      const { options } = setup([{
        provider: {
          ...endlessProvider({ count: 0 }),
          stream: () => ({ [Symbol.asyncIterator]: () => iterator }),
        },
        model: "m",
        maxAttempts: 1,
      }]);
      const ac = new AbortController();
      const events: ChainEvent[] = [];
      for await (
        const e of createChain(options).stream(userRequest(), ac.signal)
      ) {
        events.push(e);
        if (e.type === "chunk") setTimeout(() => ac.abort(), 0);
      }
      assert.deepEqual(types(events), ["attempt_start", "chunk", "failed"]);
      assert.equal(failedKind(events), "cancelled");
      // The abandoned read now fails: nothing is left to hear it, and no
      // rejection goes unhandled (the test would fail on one).
      failPending(new Error("late failure"));
      await new Promise((r) => setTimeout(r, 0));
      assert.equal(reads, 2);
    },
  );
});

Deno.test("createChain() reports cancelled when aborted during backoff", async () => {
  const p = createScriptedProvider({
    script: [errorReply("overloaded"), textReply("never")],
  });
  const ac = new AbortController();
  const { options } = setup([{ provider: p, model: "m", maxAttempts: 3 }], {
    sleep: (_ms, s) => {
      ac.abort();
      return Promise.reject(s.reason);
    },
  });
  const events = await collect(
    createChain(options).stream(userRequest(), ac.signal),
  );
  assert.equal(failedKind(events), "cancelled");
  assert.equal(p.calls, 1);
});

Deno.test("createChain() tolerates a throwing provider", async (t) => {
  function throwing(thrown: unknown, lazy: boolean): LlmProvider {
    const base = createScriptedProvider({ id: "t", script: [] });
    return {
      ...base,
      id: "t",
      supports: base.supports,
      stream(): AsyncIterable<StreamChunk> {
        if (!lazy) throw thrown;
        return {
          [Symbol.asyncIterator]: () => ({
            next: () => Promise.reject(thrown),
          }),
        };
      },
    };
  }
  await t.step("plain error ⇒ unknown, fatal", async () => {
    const { options } = setup([{
      provider: throwing(new Error("boom"), false),
      model: "m",
      maxAttempts: 3,
    }]);
    const events = await collect(
      createChain(options).stream(userRequest(), signal()),
    );
    assert.equal(failedKind(events), "unknown");
  });
  await t.step("LlmProviderError keeps its kind", async () => {
    const thrown = new LlmProviderError(makeLlmError("auth", "t", "nope"));
    const { options } = setup([{
      provider: throwing(thrown, true),
      model: "m",
      maxAttempts: 3,
    }]);
    const events = await collect(
      createChain(options).stream(userRequest(), signal()),
    );
    assert.equal(failedKind(events), "auth");
  });
});

Deno.test("createChain() numbers attempts across the calls of one chain", async () => {
  const p = createScriptedProvider({
    script: [errorReply("timeout"), textReply("1"), textReply("2")],
  });
  const { options, reports } = setup([{
    provider: p,
    model: "m",
    maxAttempts: 3,
  }]);
  const chain = createChain(options);
  await collect(chain.stream(userRequest(), signal()));
  const second = await collect(chain.stream(userRequest(), signal()));
  assert.deepEqual(reports.map((r) => r.attemptNumber), [1, 2, 3]);
  assert.equal(
    second[0]?.type === "attempt_start" && second[0].attemptNumber,
    3,
  );
});

Deno.test("createChain() normalises and scrubs provider errors", async () => {
  const p = createScriptedProvider({
    script: [[{
      type: "error",
      error: {
        kind: "auth",
        retryable: true,
        provider: "scripted",
        message: "bad key sk-abcdefghijklmnopqrstuv",
      },
    }]],
  });
  const { options } = setup([{ provider: p, model: "m", maxAttempts: 3 }]);
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  const end = last(events);
  assert.ok(end.type === "failed");
  assert.deepEqual(end.error, {
    kind: "auth",
    retryable: false,
    provider: "scripted",
    message: "bad key [redacted]",
  });
});

Deno.test("createChain() is single-flight", async () => {
  const p = createScriptedProvider({
    script: [textReply("1"), textReply("2")],
  });
  const { options } = setup([{ provider: p, model: "m", maxAttempts: 1 }]);
  const chain = createChain(options);
  const first = chain.stream(userRequest(), signal())[Symbol.asyncIterator]();
  await first.next();
  await assert.rejects(
    collect(chain.stream(userRequest(), signal())),
    TypeError,
  );
  await collect({ [Symbol.asyncIterator]: () => first });
  assert.equal(
    last(await collect(chain.stream(userRequest(), signal()))).type,
    "done",
  );
});

Deno.test("createChain() is free again once a consumer stops reading early", async () => {
  const p = createScriptedProvider({
    script: [textReply("1"), textReply("2")],
  });
  const { options } = setup([{ provider: p, model: "m", maxAttempts: 1 }]);
  const chain = createChain(options);
  const first = chain.stream(userRequest(), signal())[Symbol.asyncIterator]();
  assert.equal((await first.next()).value?.type, "attempt_start");
  assert.deepEqual(await first.return?.(undefined), {
    done: true,
    value: undefined,
  });
  const events = await collect(chain.stream(userRequest(), signal()));
  assert.equal(last(events).type, "done");
  // The abandoned call stopped before its request left.
  assert.equal(p.requests.length, 1);
});

Deno.test("createChain() passes contextExceeded and drops effort for non-reasoning providers", async () => {
  const p = createScriptedProvider({
    script: [[{
      type: "stop",
      stopReason: "length",
      usage: { inputTokens: 5, outputTokens: 5 },
      contextExceeded: true,
    }]],
  });
  const { options } = setup([{ provider: p, model: "m", maxAttempts: 1 }]);
  const events = await collect(
    createChain(options).stream(
      userRequest("x", { reasoningEffort: "high" }),
      signal(),
    ),
  );
  const end = last(events);
  assert.ok(end.type === "done");
  assert.equal(end.contextExceeded, true);
  assert.equal(p.requests[0]?.reasoningEffort, undefined);
});

Deno.test("createChain() skips a fallback entry whose key cannot be resolved", async () => {
  const primary = createScriptedProvider({
    id: "anthropic",
    script: [errorReply("overloaded", "anthropic")],
  });
  const keyless = createScriptedProvider({
    id: "openai",
    script: [textReply("never")],
  });
  const third = createScriptedProvider({
    id: "deepseek",
    script: [textReply("served")],
  });
  const { options, reports } = setup([
    { provider: primary, model: "a", maxAttempts: 1 },
    { provider: keyless, model: "b", maxAttempts: 2 },
    { provider: third, model: "c", maxAttempts: 1 },
  ], {
    keyFor: (id) =>
      id === "openai" ? Promise.reject(new Error("no key")) : `key-${id}`,
  });
  const events = await collect(
    createChain(options).stream(userRequest(), signal()),
  );
  assert.equal(servedBy(events), "deepseek");
  assert.equal(keyless.calls, 0);
  assert.deepEqual(
    reports.map((r) => [r.provider, r.outcome, r.skipReason]),
    [["anthropic", "failed", undefined], ["openai", "skipped", "no_key"], [
      "deepseek",
      "succeeded",
      undefined,
    ]],
  );
});

Deno.test("createChain() jitters its backoff: half the base plus up to the other half, from the clock's milliseconds", async () => {
  for (
    const [at, expected] of [[1_000_000, [125, 250]], [1_000_500, [188, 375]], [
      1_000_999,
      [250, 500],
    ]] as const
  ) {
    const p = createScriptedProvider({
      script: [
        errorReply("overloaded"),
        errorReply("overloaded"),
        textReply("ok"),
      ],
    });
    const waits: number[] = [];
    const chain = createChain({
      plan: [{ provider: p, model: "m", maxAttempts: 3 }],
      keyFor: () => "k",
      now: () => at,
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    await collect(chain.stream(userRequest(), signal()));
    assert.deepEqual(waits, expected, `at ${at}`);
  }
});

Deno.test("a 409 is retried (a transient conflict); a rate limit asking to wait past the bound says how long", () => {
  assert.equal(statusKind(409), "overloaded");
  assert.equal(
    toSessionError(
      makeLlmError("rate_limit", "openai", "slow down", {
        retryAfterMs: 45_500,
      }),
    ).message,
    "The provider is rate limiting requests (openai): slow down; it asks to wait 46 s before the next request",
  );
});
