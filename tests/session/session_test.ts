import assert from "node:assert/strict";
import { SessionStateError } from "../../session/errors.ts";
import type { LlmProvider, LlmRequest } from "../../llm/provider.ts";
import type { StreamChunk } from "../../llm/chunk.ts";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { AGENT, harness, reply, resumedSession, toolCall } from "./_harness.ts";
import { CANCELLED, fakeProvider, stoppedWith, terminal } from "./_ctx.ts";

function lastUserText(req: LlmRequest | undefined): string {
  const m = req?.messages.filter((x) => x.role === "user").at(-1);
  return (m?.content ?? []).map((p) => (p.type === "text" ? p.text : "")).join(
    "",
  );
}

Deno.test("AgentSession lifecycle: every transition and SessionStateError code", async (t) => {
  await t.step("sendMessage() before start() is not_started", async () => {
    const h = harness({ script: [], start: false });
    assert.equal(h.session.state, "created");
    await assert.rejects(
      () => h.session.sendMessage("x"),
      (e) => e instanceof SessionStateError && e.code === "not_started",
    );
  });
  await t.step("start() twice is already_started", () => {
    const h = harness({ script: [] });
    assert.equal(h.session.state, "idle");
    assert.throws(
      () => h.session.start(),
      (e) => e instanceof SessionStateError && e.code === "already_started",
    );
  });
  await t.step("sendMessage() while running is not_active", async () => {
    const h = harness({ script: [reply("a")] });
    const first = h.session.sendMessage("one");
    assert.equal(h.session.state, "running");
    await assert.rejects(
      () => h.session.sendMessage("two"),
      (e) => e instanceof SessionStateError && e.code === "not_active",
    );
    await first;
    assert.equal(h.session.state, "idle");
  });
  await t.step(
    "cancel() is terminal, idempotent, then everything is not_active",
    async () => {
      const h = harness({ script: [] });
      h.session.cancel();
      h.session.cancel();
      assert.equal(h.session.state, "cancelled");
      assert.deepEqual(h.types(), ["session:started", "session:cancelled"]);
      await assert.rejects(
        () => h.session.sendMessage("x"),
        (e) => e instanceof SessionStateError && e.code === "not_active",
      );
      assert.throws(
        () => h.session.start(),
        (e) => e instanceof SessionStateError && e.code === "not_active",
      );
      h.session.setTurnPolicy({ advertise: () => false }); // inert, no throw
      h.session.abort(); // no-op
    },
  );
  await t.step(
    "resume() lands idle without session:started; start() is already_started",
    () => {
      const h = harness({ script: [], start: false });
      const { session: resumed } = resumedSession({
        deps: { emit: () => assert.fail("resume must not emit") },
      });
      assert.equal(resumed.state, "idle");
      assert.throws(
        () => resumed.start(),
        (e) => e instanceof SessionStateError && e.code === "already_started",
      );
      assert.equal(h.events.length, 0);
    },
  );
  await t.step("resume() with bad spans is invalid_resume_state", () => {
    const u = {
      role: "user" as const,
      content: [{ type: "text" as const, text: "a" }],
    };
    const a = {
      role: "assistant" as const,
      content: [{ type: "text" as const, text: "b" }],
    };
    const bad = [
      [{ start: 0, end: 3 }],
      [{ start: 1, end: 2 }],
      [{ start: 0, end: 0 }],
      [{ start: 0, end: 2 }, { start: 1, end: 2 }],
      [{ start: -1, end: 1 }],
      [{ start: 0.5, end: 1 }],
    ];
    for (const spans of bad) {
      assert.throws(
        () =>
          resumedSession({
            state: {
              messages: [u, a],
              completedTurnSpans: spans,
              turnCount: 1,
            },
          }),
        (e) =>
          e instanceof SessionStateError && e.code === "invalid_resume_state",
        JSON.stringify(spans),
      );
    }
  });
  await t.step(
    "abort() when idle and after completion is a no-op; the reply is kept",
    async () => {
      const h = harness({ script: [reply("kept")] });
      h.session.abort();
      await h.session.sendMessage("hi");
      h.session.abort();
      assert.equal(h.session.state, "idle");
      const turn = h.lastTurn();
      assert.deepEqual([turn?.userText, turn?.finalText], ["hi", "kept"]);
    },
  );
});

Deno.test("sendMessage() streams tokens and completes with usage", async () => {
  const h = harness({ script: [reply("Hello there", 12, 4)] });
  await h.session.sendMessage("Hi");
  assert.deepEqual(h.types(), [
    "session:started",
    "session:turn_started",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
  ]);
  const done = stoppedWith(h.events, 12, 4);
  assert.equal(done.toolHistory, undefined);
  assert.equal(h.provider.requests[0]?.system, "You help.");
});

Deno.test("sendMessage() with an empty final reply still completes a turn", async () => {
  const h = harness({ script: [reply(""), reply("second")] });
  await h.session.sendMessage("first");
  assert.equal(h.session.turnCount, 1);
  assert.deepEqual(h.session.transcript.spans, [{ start: 0, end: 1 }]);
  await h.session.sendMessage("again");
  assert.deepEqual(h.session.transcript.spans, [{ start: 0, end: 1 }, {
    start: 1,
    end: 3,
  }]);
  // the empty final contributes nothing; adjacent users fold with \n\n
  assert.equal(lastUserText(h.provider.requests[1]), "first\n\nagain");
});

Deno.test("sendMessage() runs a turn with three tool rounds", async () => {
  const tools = createFakeRegistry({
    read_file: (args) => `content of ${(args as { path: string }).path}`,
    list_directory: () => JSON.stringify({ entries: [] }),
  });
  const h = harness({
    tools,
    script: [
      toolCall("c1", "read_file", { path: "a.txt" }),
      toolCall("c2", "list_directory", { path: "." }),
      toolCall("c3", "read_file", { path: "b.txt" }),
      reply("done"),
    ],
  });
  await h.session.sendMessage("look around");
  assert.equal(tools.calls.length, 3);
  assert.deepEqual(tools.calls.map((c) => c.id), [
    "session-tool:1:0",
    "session-tool:1:1",
    "session-tool:1:2",
  ]);
  const done = terminal(h.events);
  assert.equal(done.stopReason, "stop");
  assert.deepEqual(
    done.toolHistory?.map((x) => [x.call.name, x.result.outcome]),
    [
      ["read_file", "ok"],
      ["list_directory", "ok"],
      ["read_file", "ok"],
    ],
  );
  assert.deepEqual(done.tokensUsed, {
    input: 25,
    output: 11,
    model: "gpt-5.4-mini",
  });
  // The fourth request carries all three rounds, each result after its call.
  const last = h.provider.requests[3];
  assert.deepEqual(last?.messages.map((m) => m.role), [
    "user",
    "assistant",
    "tool",
    "assistant",
    "tool",
    "assistant",
    "tool",
  ]);
  const third = last?.messages[6]?.content[0];
  assert.ok(third?.type === "tool_result");
  assert.equal(third.toolCallId, "c3");
  assert.equal(third.result, "content of b.txt");
  // Order within a round: cost:updated → tool_call → tool_result.
  const sig = h.types().filter((t) => t !== "agent:token");
  assert.deepEqual(sig, [
    "session:started",
    "session:turn_started",
    "cost:updated",
    "agent:tool_call",
    "agent:tool_result",
    "cost:updated",
    "agent:tool_call",
    "agent:tool_result",
    "cost:updated",
    "agent:tool_call",
    "agent:tool_result",
    "cost:updated",
    "session:turn_completed",
  ]);
  // The working transcript stays text-only.
  assert.deepEqual(
    h.session.transcript.messages.map((m) => m.content[0]?.text),
    [
      "look around",
      "done",
    ],
  );
});

/** A provider whose first call streams one token and then hangs until aborted. */
function hangingThenScripted(
  rest: StreamChunk[][],
): LlmProvider & { requests: LlmRequest[]; reads: number } {
  const requests: LlmRequest[] = [];
  const state = { reads: 0 };
  return {
    ...fakeProvider(),
    requests,
    get reads(): number {
      return state.reads;
    },
    async *stream(req: LlmRequest): AsyncIterable<StreamChunk> {
      const { signal, ...copy } = req;
      requests.push(structuredClone(copy));
      const n = requests.length - 1;
      if (n === 0) {
        state.reads++;
        yield { type: "text_delta", text: "partial aborted text" };
        await new Promise<void>((resolve) => {
          if (signal?.aborted) resolve();
          signal?.addEventListener("abort", () => resolve(), { once: true });
        });
        yield CANCELLED;
        return;
      }
      for (const c of rest[n - 1] ?? []) yield c;
    },
  };
}

Deno.test("abort() mid-stream ends the turn aborted; the next request omits the aborted text", async () => {
  const provider = hangingThenScripted([reply("fine")]);
  let aborted = false;
  const h = harness({
    script: [],
    provider,
    onEvent: (e, s) => {
      if (e.type === "agent:token" && !aborted) {
        aborted = true;
        queueMicrotask(() => s.abort());
      }
    },
  });
  await h.session.sendMessage("first question");
  const done = terminal(h.events);
  assert.equal(done.stopReason, "aborted");
  assert.equal(done.error, undefined);
  assert.equal(h.session.state, "idle");
  assert.equal(h.session.turnCount, 1, "an engaged aborted turn uses a slot");
  assert.deepEqual(
    h.session.transcript.messages,
    [],
    "pending user rolled back",
  );
  await h.session.sendMessage("second question");
  const req = provider.requests[1];
  const all = JSON.stringify(req?.messages);
  assert.ok(!all.includes("partial aborted text"));
  assert.ok(!all.includes("first question"));
  assert.equal(lastUserText(req), "second question");
  assert.equal(h.events.at(-1)?.type, "session:turn_completed");
});

Deno.test("cancel() during a tool ends the session with session:cancelled only", async () => {
  let release: () => void = () => {};
  const tools = createFakeRegistry({
    read_file: (_args, ctx) =>
      new Promise<string>((resolve) => {
        release = () => resolve("late");
        ctx.signal.addEventListener("abort", () => resolve("aborted"), {
          once: true,
        });
      }),
  });
  const h = harness({
    tools,
    script: [toolCall("c1", "read_file", { path: "a" }), reply("never")],
  });
  const turn = h.session.sendMessage("read it");
  for (let i = 0; i < 50 && tools.calls.length === 0; i++) {
    await Promise.resolve();
  }
  assert.equal(tools.calls.length, 1);
  h.session.cancel();
  release();
  await turn;
  assert.equal(h.session.state, "cancelled");
  assert.equal(h.types().at(-1), "session:cancelled");
  assert.equal(
    h.types().filter((t) => t === "session:turn_completed").length,
    0,
  );
  assert.equal(h.provider.requests.length, 1, "no request after cancel");
});

Deno.test("sendMessage() past maxTurns ends turn_limit with no provider call", async () => {
  const h = harness({
    script: [reply("1"), reply("2")],
    deps: { maxTurns: 2 },
  });
  await h.session.sendMessage("a");
  await h.session.sendMessage("b");
  const before = h.events.length;
  await h.session.sendMessage("c");
  assert.deepEqual(h.events.slice(before).map((e) => e.type), [
    "session:turn_started",
    "session:turn_completed",
  ]);
  const done = terminal(h.events);
  assert.equal(done.stopReason, "error");
  assert.equal(done.error?.code, "turn_limit");
  assert.equal(done.error?.message, "session reached its hard cap of 2 turns");
  assert.deepEqual(done.tokensUsed, { input: 0, output: 0 });
  assert.equal(h.provider.requests.length, 2);
  assert.equal(h.session.turnCount, 2);
});

Deno.test("sendMessage() with an unwired provider fails fast and uses no slot", async () => {
  const h = harness({
    script: [],
    agent: { ...AGENT, provider: "nowhere" },
  });
  await h.session.sendMessage("a");
  await h.session.sendMessage("b");
  const errors = h.events.filter((e) => e.type === "session:turn_completed");
  assert.equal(errors.length, 2);
  for (const e of errors) {
    assert.ok(e.type === "session:turn_completed");
    assert.equal(e.error?.code, "validation");
  }
  assert.equal(h.session.turnCount, 0);
});

Deno.test("events carry gap-free sequenceNumbers over five turns", async () => {
  const h = harness({ script: [1, 2, 3, 4, 5].map((n) => reply(`r${n}`)) });
  for (let i = 0; i < 5; i++) await h.session.sendMessage(`m${i}`);
  h.session.cancel();
  assert.deepEqual(
    h.events.map((e) => e.sequenceNumber),
    h.events.map((_, i) => i),
  );
  assert.ok(h.events.every((e) => e.sessionId === "s1"));
  assert.equal(
    h.types().filter((t) => t === "session:turn_completed").length,
    5,
  );
});

Deno.test("setTurnPolicy() is snapshotted at the next turn start", async () => {
  const tools = createFakeRegistry({
    read_file: () => "x",
    list_directory: () => "y",
  });
  const h = harness({ tools, script: [reply("a"), reply("b")] });
  const policyAdvertise: string[] = [];
  const wrapped = {
    ...tools,
    advertise: (
      g: readonly string[],
      p: { advertise?(id: string): boolean } | undefined,
    ) => {
      const out = tools.advertise(g, undefined).filter((d) =>
        p?.advertise?.(d.name) ?? true
      );
      policyAdvertise.push(out.map((d) => d.name).join(","));
      return out;
    },
  };
  const h2 = harness({ tools: wrapped, script: [reply("a"), reply("b")] });
  const first = h2.session.sendMessage("one");
  h2.session.setTurnPolicy({ advertise: (id) => id === "read_file" });
  await first;
  await h2.session.sendMessage("two");
  assert.deepEqual(policyAdvertise, ["read_file,list_directory", "read_file"]);
  assert.equal(h.session.state, "idle");
});

Deno.test("sendMessage() feeds back unknown tools and ends tool_failed past the correction budget", async () => {
  const h = harness({
    tools: createFakeRegistry({}),
    script: [1, 2, 3, 4].map((n) => toolCall(`c${n}`, "nope", {})),
  });
  await h.session.sendMessage("go");
  const done = terminal(h.events);
  assert.equal(done.error?.code, "tool_failed");
  assert.equal(h.provider.requests.length, 4);
  const results = h.events.filter((e) => e.type === "agent:tool_result");
  assert.equal(results.length, 4);
  assert.ok(results.every((e) => e.type === "agent:tool_result" && !e.success));
});

Deno.test("sendMessage() refuses a response with more than 16 tool calls before dispatch", async () => {
  const chunks: StreamChunk[] = [];
  for (let i = 0; i < 17; i++) {
    chunks.push({ type: "tool_call_start", id: `c${i}`, name: "read_file" });
    chunks.push({ type: "tool_call_end", id: `c${i}` });
  }
  chunks.push({
    type: "stop",
    stopReason: "tool_use",
    usage: { inputTokens: 1, outputTokens: 1 },
  });
  const tools = createFakeRegistry({ read_file: () => "x" });
  const h = harness({ tools, script: [chunks] });
  await h.session.sendMessage("go");
  const done = terminal(h.events);
  assert.equal(done.error?.code, "turn_limit");
  assert.equal(tools.calls.length, 0);
});
