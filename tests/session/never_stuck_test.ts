import assert from "node:assert/strict";
import type { LlmProvider, LlmRequest } from "../../llm/provider.ts";
import { createCatalog } from "../../llm/create_catalog.ts";
import type { SessionEvent } from "../../schema/event.ts";
import { AgentSession } from "../../session/session.ts";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { sequentialIds, steppingClock } from "../_fakes/clock.ts";
import { AGENT, harness, reply, resumedSession, toolCall } from "./_harness.ts";

class Boom extends Error {
  constructor(where: string) {
    super(`boom at ${where}`);
  }
}

function terminals(events: readonly SessionEvent[]) {
  return events.filter((e) => e.type === "session:turn_completed");
}

Deno.test("a sink that throws on session:turn_started: the call rejects with that error, one terminal, idle, and the next turn runs", async () => {
  let armed = true;
  const h = harness({
    script: [reply("second")],
    onEvent: (e) => {
      if (armed && e.type === "session:turn_started") {
        armed = false;
        throw new Boom("turn_started");
      }
    },
  });
  await assert.rejects(h.session.sendMessage("one"), /boom at turn_started/);
  assert.equal(h.session.state, "idle");
  const ends = terminals(h.events);
  assert.equal(ends.length, 1);
  assert.equal(
    ends[0]?.type === "session:turn_completed" && ends[0].error?.code,
    "internal",
  );
  assert.equal(h.session.turnCount, 0, "nothing engaged, no slot");
  const next = await h.session.sendMessage("two");
  assert.equal(next.kind, "completed");
  assert.equal(next.text, "second");
});

Deno.test("a resolveProvider that throws: rejects with its error, turn_started has its terminal, idle, not memoised", async () => {
  let fail = true;
  const provider = harness({ script: [reply("ok")] }).provider;
  const h = harness({
    script: [],
    deps: {
      resolveProvider: (id) => {
        if (fail) throw new Boom("resolveProvider");
        return id === "openai" ? provider : undefined;
      },
    },
  });
  await assert.rejects(h.session.sendMessage("one"), /boom at resolveProvider/);
  assert.equal(h.session.state, "idle");
  assert.deepEqual(
    h.types().filter((t) => t.startsWith("session:turn")),
    ["session:turn_started", "session:turn_completed"],
  );
  fail = false;
  const next = await h.session.sendMessage("two");
  assert.equal(next.kind, "completed");
});

Deno.test("compact() whose tools.advertise throws rejects and lands idle", async () => {
  let advertiseFails = false;
  const tools = createFakeRegistry({ read_file: () => "x" });
  const advertise = tools.advertise.bind(tools);
  tools.advertise = (granted, policy) => {
    if (advertiseFails) throw new Boom("advertise");
    return advertise(granted, policy);
  };
  const h = harness({
    script: [reply("a"), reply("b"), reply("summary")],
    tools,
  });
  await h.session.sendMessage("one");
  await h.session.sendMessage("two");
  advertiseFails = true;
  await assert.rejects(h.session.compact(), /boom at advertise/);
  assert.equal(h.session.state, "idle");
});

Deno.test("a sink that throws mid-stream, after the provider was engaged: the turn keeps its slot", async () => {
  const h = harness({
    script: [reply("hello", 40, 7), reply("next")],
    onEvent: (e) => {
      if (e.type === "agent:token") throw new Boom("token");
    },
  });
  await assert.rejects(h.session.sendMessage("one"), /boom at token/);
  assert.equal(h.session.state, "idle");
  assert.equal(h.session.turnCount, 1, "the engaged turn took its slot");
  const end = terminals(h.events)[0];
  assert.ok(end?.type === "session:turn_completed");
  assert.equal(end.stopReason, "error");
});

Deno.test("a sink that throws on cost:updated: the settled attempt's real usage and spend are kept", async () => {
  const h = harness({
    script: [reply("hello", 40, 7)],
    deps: { catalog: createCatalog() },
    onEvent: (e) => {
      if (e.type === "cost:updated") throw new Boom("cost");
    },
  });
  await assert.rejects(h.session.sendMessage("one"), /boom at cost/);
  assert.equal(h.session.state, "idle");
  assert.equal(h.session.turnCount, 1);
  const end = terminals(h.events)[0];
  assert.ok(end?.type === "session:turn_completed");
  assert.deepEqual(
    [end.tokensUsed.input, end.tokensUsed.output],
    [40, 7],
    "the attempt's usage is reported, not zero",
  );
  const spend = h.committed.find((w) => w.kind === "spend");
  assert.ok(spend?.kind === "spend");
  assert.equal(spend.costs.length, 1);
});

Deno.test("an updateCost that throws: the slot, the usage and the spend of the turn survive", async () => {
  const h = harness({
    script: [reply("hello", 65, 21)],
    deps: {
      catalog: createCatalog(),
      updateCost: () => {
        throw new Boom("updateCost");
      },
    },
  });
  await assert.rejects(h.session.sendMessage("one"), /boom at updateCost/);
  assert.equal(h.session.state, "idle");
  assert.equal(h.session.turnCount, 1);
  const end = terminals(h.events)[0];
  assert.ok(end?.type === "session:turn_completed");
  assert.equal(end.tokensUsed.input, 65);
  const spend = h.committed.find((w) => w.kind === "spend");
  assert.ok(spend?.kind === "spend", "the failed turn's spend is handed over");
  assert.equal(spend.costs[0]?.costMicrocents, 14_325);
  assert.equal(spend.turnsUsed, 1);
});

Deno.test("cancel() during the budget flush: the engaged turn keeps its slot and its spend is handed over at the end", async () => {
  let cancel = (): void => {};
  const h = harness({
    script: [reply("hello", 65, 21)],
    deps: {
      catalog: createCatalog(),
      flushBudgetCommitments: () => {
        cancel();
        return Promise.resolve();
      },
    },
  });
  cancel = () => h.session.cancel();
  const result = await h.session.sendMessage("one");
  assert.equal(result.kind, "cancelled");
  assert.equal(h.session.state, "cancelled");
  assert.equal(h.session.turnCount, 1);
  const ended = h.committed.at(-1);
  assert.ok(ended?.kind === "ended");
  assert.equal(ended.turnsUsed, 1);
  assert.deepEqual(ended.costs.map((c) => c.costMicrocents), [14_325]);
});

Deno.test("a provider without a stream method is a configuration error that takes no slot", async () => {
  const broken = {
    id: "openai",
    kind: "openai-compatible",
  } as unknown as LlmProvider;
  const h = harness({ script: [], provider: broken });
  const result = await h.session.sendMessage("one");
  assert.equal(result.kind, "failed");
  if (result.kind !== "failed") return;
  assert.equal(result.error.code, "validation");
  assert.match(result.error.message, /no stream method/);
  assert.equal(h.session.turnCount, 0);
  assert.equal(h.session.state, "idle");
});

Deno.test("a commit hook that throws: the turn is still counted and terminated, and the call rejects once idle", async () => {
  const h = harness({
    script: [reply("hello")],
    deps: {
      commit: () => {
        throw new Boom("commit");
      },
    },
  });
  await assert.rejects(h.session.sendMessage("one"), /boom at commit/);
  assert.equal(h.session.state, "idle");
  assert.equal(h.session.turnCount, 1);
  assert.equal(terminals(h.events)[0]?.type, "session:turn_completed");
});

Deno.test("the finished turn is handed over as a value before its terminal: user text, tool rounds, final text, usage, model, costs", async () => {
  const tools = createFakeRegistry({ read_file: () => "file body" });
  const seenAtTerminal: number[] = [];
  const h = harness({
    script: [
      toolCall("c1", "read_file", { path: "a.md" }),
      reply("done", 20, 4),
    ],
    tools,
    deps: { catalog: createCatalog() },
    onEvent: (e) => {
      if (e.type === "session:turn_completed") {
        seenAtTerminal.push(h.committed.length);
      }
    },
  });
  const result = await h.session.sendMessage("read it");
  assert.equal(result.kind, "completed");
  assert.deepEqual(seenAtTerminal, [1], "committed before the terminal");
  const work = h.committed[0];
  assert.ok(work?.kind === "turn");
  const turn = work.turn;
  assert.equal(turn.userText, "read it");
  assert.equal(turn.finalText, "done");
  assert.equal(turn.modelId, "gpt-5.4-mini");
  assert.deepEqual(turn.tokensUsed, { input: 25, output: 7 });
  assert.equal(turn.rounds.length, 1);
  assert.equal(turn.rounds[0]?.calls[0]?.name, "read_file");
  assert.equal(turn.rounds[0]?.results[0]?.outcome, "ok");
  assert.equal(turn.costs.length, 2, "one row per priced attempt");
  assert.equal(work.turnsUsed, 1);
});

Deno.test("requests share frozen tool-round messages instead of copying the transcript", async () => {
  const tools = createFakeRegistry({ read_file: () => "file body" });
  const inner = harness({
    script: [toolCall("c1", "read_file", { path: "a.md" }), reply("done")],
  }).provider;
  const raw: LlmRequest[] = [];
  const capturing: LlmProvider = {
    ...inner,
    stream(request, key) {
      raw.push(request);
      return inner.stream(request, key);
    },
  };
  const h = harness({ script: [], tools, provider: capturing });
  await h.session.sendMessage("read it");
  assert.notEqual(
    raw[0]?.messages,
    raw[1]?.messages,
    "each request owns its array",
  );
  const second = raw[1];
  assert.ok(second !== undefined);
  const fed = second.messages.slice(-2);
  assert.deepEqual(fed.map((m) => m.role), ["assistant", "tool"]);
  for (const m of fed) {
    assert.ok(Object.isFrozen(m) && Object.isFrozen(m.content));
  }
  assert.throws(() => {
    (fed[1]?.content as unknown[]).push({ type: "text", text: "x" });
  }, TypeError);
});

Deno.test("the constructor refuses what openSession refuses: an invalid agent or context, naming the field", () => {
  const effects = {
    clock: steppingClock(),
    ids: sequentialIds(),
    resolveProvider: () => undefined,
    keyFor: () => "",
    sleep: () => Promise.resolve(),
  };
  const base = {
    sessionId: "s",
    agentRef: "helper",
    context: { workingDir: "/work", fsScopeTier: "sandboxed" as const },
    effects,
    hooks: { emit: () => {} },
  };
  const { system_prompt: _drop, ...noPrompt } = AGENT;
  assert.throws(
    () => new AgentSession({ ...base, agent: noPrompt as typeof AGENT }),
    (e: unknown) => e instanceof TypeError && /system_prompt/.test(e.message),
  );
  assert.throws(
    () =>
      new AgentSession({
        ...base,
        agent: {
          ...AGENT,
          fallback_chain: [{ provider: "anthropic", model: "m" }],
        } as unknown as typeof AGENT,
      }),
    (e: unknown) => e instanceof TypeError && /max_attempts/.test(e.message),
    "a fallback entry without max_attempts is refused, never skipped",
  );
  assert.throws(
    () =>
      new AgentSession({
        ...base,
        agent: AGENT,
        context: { workingDir: "/work", fsScopeTier: "everything" } as never,
      }),
    (e: unknown) => e instanceof TypeError && /fsScopeTier/.test(e.message),
  );
});

Deno.test("settings are copied at construction: changing the object later changes nothing", async () => {
  const settings: { maxTurns: number; maxTokensEstimate?: number } = {
    maxTurns: 1,
  };
  const h = harness({ script: [reply("a"), reply("b")], deps: settings });
  settings.maxTurns = 5;
  settings.maxTokensEstimate = 1;
  await h.session.sendMessage("one");
  const second = await h.session.sendMessage("two");
  assert.equal(second.kind, "failed");
  if (second.kind === "failed") assert.equal(second.error.code, "turn_limit");
});

Deno.test("the hard cap counts the session's whole life: compaction and resume never lower it", async () => {
  const h = harness({
    script: [reply("a"), reply("b"), reply("summary"), reply("c"), reply("d")],
    deps: { maxTurns: 3 },
  });
  await h.session.sendMessage("one");
  await h.session.sendMessage("two");
  const compacted = await h.session.compact();
  assert.equal(compacted.kind, "compacted");
  assert.equal(h.session.turnCount, 2, "compaction does not lower the count");
  const boundary = h.committed.find((w) => w.kind === "boundary");
  assert.ok(boundary?.kind === "boundary");
  assert.equal(boundary.turnsUsed, 2);
  const t = h.session.transcript;
  const { session: resumed } = resumedSession({
    deps: {
      resolveProvider: () => h.provider,
      maxTurns: 3,
      emit: () => {},
    },
    state: {
      messages: t.messages,
      completedTurnSpans: t.spans,
      turnCount: t.spans.length,
      turnsUsed: 2,
      ...(t.summary === undefined ? {} : { compactionSummary: t.summary }),
    },
  });
  assert.equal(resumed.turnCount, 2);
  assert.equal((await resumed.sendMessage("three")).kind, "completed");
  const fourth = await resumed.sendMessage("four");
  assert.equal(fourth.kind, "failed");
  if (fourth.kind === "failed") assert.equal(fourth.error.code, "turn_limit");
});

Deno.test("trimHistory() whose sink throws on session:trimmed: the boundary is handed over, the call throws, the session stays usable", async () => {
  let armed = false;
  const h = harness({
    script: [reply("a"), reply("b"), reply("c")],
    onEvent: (e) => {
      if (armed && e.type === "session:trimmed") throw new Boom("trimmed");
    },
  });
  await h.session.sendMessage("one");
  await h.session.sendMessage("two");
  armed = true;
  assert.throws(() => h.session.trimHistory(2), /boom at trimmed/);
  assert.equal(h.session.state, "idle");
  const boundary = h.committed.at(-1);
  assert.ok(boundary?.kind === "boundary");
  assert.equal(boundary.marker.keptTurnCount, 1);
  assert.equal((await h.session.sendMessage("three")).kind, "completed");
});
