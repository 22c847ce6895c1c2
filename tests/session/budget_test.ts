import assert from "node:assert/strict";
import type { ModelCatalog } from "../../llm/catalog.ts";
import type { SessionEvent } from "../../schema/event.ts";
import type { StreamChunk } from "../../llm/chunk.ts";
import {
  type BudgetNotice,
  createBudgetGovernor,
  projectedSpend,
} from "../../session/budget.ts";
import type { SessionDeps } from "../../session/deps.ts";
import { AGENT, harness, resumedSession } from "./_harness.ts";
import {
  type Answer,
  filler,
  kinds,
  pricedCatalog,
  providerError,
  routedHarness,
  routedProvider,
  summaryReply,
  terminal,
} from "./_ctx.ts";

/** 1 µ¢ per input token, 1,000 µ¢ per output token. */
const CATALOG: ModelCatalog = pricedCatalog(1_000_000, 1_000_000_000);

function session(options: {
  cap: number;
  onExceed?: "fail" | "pause_for_approval" | "warn";
  strict?: boolean;
  catalog?: ModelCatalog;
  window?: number;
  turns?: Answer[];
  summaries?: Answer[];
  defaultTurn?: Parameters<typeof routedProvider>[0]["defaultTurn"];
  deps?: Partial<SessionDeps>;
  maxTokens?: number;
}) {
  const notices: BudgetNotice[] = [];
  const { p, h } = routedHarness({
    window: options.window ?? 10_000,
    ...(options.turns === undefined ? {} : { turns: options.turns }),
    ...(options.summaries === undefined
      ? {}
      : { summaries: options.summaries }),
    ...(options.defaultTurn === undefined
      ? {}
      : { defaultTurn: options.defaultTurn }),
  }, {
    agent: { ...AGENT, max_tokens: options.maxTokens ?? 100 },
    deps: {
      catalog: options.catalog ?? CATALOG,
      budget: {
        maxCostMicrocents: options.cap,
        ...(options.onExceed === undefined
          ? {}
          : { onExceed: options.onExceed }),
        ...(options.strict === undefined
          ? {}
          : { strictCostCap: options.strict }),
        onNotice: (n) => notices.push(n),
      },
      ...options.deps,
    },
  });
  return { p, h, notices };
}

function refusedEvent(events: SessionEvent[]) {
  const e = events.find((x) => x.type === "session:compaction_failed");
  assert.ok(e?.type === "session:compaction_failed");
  return e;
}

Deno.test("budget: a main request over the cap is refused before egress and uses no slot", async (t) => {
  for (const onExceed of ["fail", "pause_for_approval", undefined] as const) {
    await t.step(String(onExceed), async () => {
      const { p, h } = session({
        cap: 50_000,
        ...(onExceed === undefined ? {} : { onExceed }),
      });
      await h.session.sendMessage("hi");
      assert.deepEqual(kinds(h.events, 1), [
        "session:turn_started",
        "session:turn_completed",
      ]);
      const done = terminal(h.events);
      assert.equal(done.stopReason, "error");
      assert.equal(done.error?.code, "budget_exceeded");
      assert.match(done.error?.message ?? "", /cap of 50000 micro-cents/);
      assert.deepEqual(done.tokensUsed, { input: 0, output: 0 });
      assert.equal(p.all.length, 0);
      assert.equal(h.session.turnCount, 0);
      assert.deepEqual(h.session.transcript.messages, []);
    });
  }
});

Deno.test("budget: warn continues with one notice", async () => {
  const { p, h, notices } = session({ cap: 50_000, onExceed: "warn" });
  await h.session.sendMessage("a");
  await h.session.sendMessage("b");
  assert.equal(p.turns.length, 2);
  assert.equal(notices.length, 1);
  assert.equal(notices[0]?.kind, "over_cap");
  assert.match(notices[0]?.message ?? "", /cap of 50000 micro-cents/);
});

Deno.test("budget: an unpriced model is allowed with one notice unless strict", async (t) => {
  const unpriced: ModelCatalog = { lookup: () => undefined };
  await t.step("allowed, noticed once", async () => {
    const { p, h, notices } = session({ cap: 10, catalog: unpriced });
    await h.session.sendMessage("a");
    await h.session.sendMessage("b");
    assert.equal(p.turns.length, 2);
    assert.deepEqual(notices, [{
      kind: "unpriced",
      model: "gpt-5.4-mini",
      message: "cost cap will not apply to gpt-5.4-mini",
    }]);
  });
  await t.step("strict refuses", async () => {
    const { p, h } = session({ cap: 10, catalog: unpriced, strict: true });
    await h.session.sendMessage("a");
    assert.equal(terminal(h.events).error?.code, "budget_exceeded");
    assert.match(
      terminal(h.events).error?.message ?? "",
      /cap of 10 micro-cents/,
    );
    assert.equal(p.all.length, 0);
  });
  await t.step("no cap, no notice", async () => {
    const { p, h, notices } = session({
      cap: 0,
      catalog: unpriced,
      strict: true,
    });
    await h.session.sendMessage("a");
    assert.equal(p.turns.length, 1);
    assert.deepEqual(notices, []);
  });
});

Deno.test("budget: spend survives resume", async () => {
  const p = routedProvider({ window: 10_000 });
  let told = -1;
  const { session: resumed, events } = resumedSession({
    agent: { ...AGENT, max_tokens: 100 },
    deps: {
      resolveProvider: () => p,
      catalog: CATALOG,
      budget: { maxCostMicrocents: 1_000_000, onExceed: "fail" },
      updateCost: (c) => {
        told = c;
      },
    },
    state: { cumulativeCostMicrocents: 950_000 },
  });
  assert.equal(told, 950_000);
  await resumed.sendMessage("hi");
  assert.equal(terminal(events).error?.code, "budget_exceeded");
  assert.equal(p.all.length, 0);
});

/** A 1M µ¢ cap: pass 1's 4,096-token reservation alone exceeds it. */
function pass1Session(
  options: Omit<Parameters<typeof session>[0], "cap">,
) {
  return session({ cap: 1_000_000, ...options });
}

Deno.test("budget refusal matrix, pass 1 (the summariser's 4,096-token reservation does not fit)", async (t) => {
  await t.step(
    "manual: budget_refused, moment not opened, no events",
    async () => {
      const { p, h } = pass1Session({ deps: { autoCompact: false } });
      await h.session.sendMessage("a");
      await h.session.sendMessage("b");
      const start = h.events.length;
      const r = await h.session.compact();
      assert.equal(r.kind, "budget_refused");
      assert.ok(r.kind === "budget_refused" && !r.momentOpened);
      assert.match(
        r.kind === "budget_refused" ? r.message : "",
        /cap of 1000000 micro-cents/,
      );
      assert.equal(h.events.length, start);
      assert.equal(p.summaries.length, 0);
    },
  );
  await t.step("after-turn: a side notice, no trim", async () => {
    const { p, h } = pass1Session({
      defaultTurn: (_r, n) => summaryReply(filler(`reply ${n}`, 12_000), 10, 2),
      deps: { maxMessages: 2 },
    });
    for (const m of ["a", "b", "c"]) await h.session.sendMessage(m);
    const tail = kinds(h.events).slice(-2);
    assert.deepEqual(tail, [
      "session:turn_completed",
      "session:compaction_budget_refused",
    ]);
    const notice = h.events.at(-1);
    assert.ok(notice?.type === "session:compaction_budget_refused");
    assert.equal(notice.reason, "auto-threshold");
    assert.equal(notice.error.code, "budget_exceeded");
    assert.match(notice.error.message, /cap of 1000000 micro-cents/);
    assert.equal(terminal(h.events.slice(0, -1)).stopReason, "stop");
    assert.equal(p.summaries.length, 0);
    assert.equal(h.session.transcript.messages.length, 6, "no trim");
  });
  await t.step(
    "pre-send: no main request, terminal budget_exceeded",
    async () => {
      const { p, h } = pass1Session({ deps: { afterTurnCompaction: false } });
      await h.session.sendMessage(filler("one", 16_000));
      await h.session.sendMessage("two");
      const start = h.events.length;
      await h.session.sendMessage(filler("three", 16_000));
      assert.deepEqual(kinds(h.events, start), [
        "session:turn_started",
        "session:turn_completed",
      ]);
      const done = terminal(h.events);
      assert.equal(done.error?.code, "budget_exceeded");
      assert.deepEqual(done.tokensUsed, { input: 0, output: 0 });
      assert.equal(p.turns.length, 2);
      assert.equal(h.session.turnCount, 2);
    },
  );
  await t.step("recovery: no retry, terminal budget_exceeded", async () => {
    const { p, h } = pass1Session({
      turns: [
        summaryReply("r1", 10, 2),
        summaryReply("r2", 10, 2),
        providerError("context_overflow"),
      ],
    });
    await h.session.sendMessage("one");
    await h.session.sendMessage("two");
    const start = h.events.length;
    await h.session.sendMessage("three");
    assert.deepEqual(kinds(h.events, start), [
      "session:turn_started",
      "session:turn_completed",
    ]);
    assert.equal(terminal(h.events).error?.code, "budget_exceeded");
    assert.equal(p.turns.length, 3, "the overflowed request only");
    assert.equal(p.summaries.length, 0);
  });
});

/** Pass 1 is admitted and reports 10,000 output tokens (10M µ¢): pass 2 is refused. */
const EXPENSIVE_PASS = summaryReply("expensive summary", 100, 10_000);

function expectLaterPassRefusal(events: SessionEvent[], start: number): void {
  const tail = kinds(events, start);
  const i = tail.indexOf("session:compacting");
  assert.ok(i >= 0);
  assert.deepEqual(tail.slice(i, i + 3), [
    "session:compacting",
    "cost:updated",
    "session:compaction_failed",
  ]);
  const failed = refusedEvent(events.slice(start));
  assert.equal(failed.error.code, "budget_exceeded");
  assert.match(failed.error.message, /cap of 10000000 micro-cents/);
}

/** A 10M µ¢ cap whose first pass is `EXPENSIVE_PASS`, after two 4,000-token turns and a small one. */
async function pass2Session(
  options: Omit<Parameters<typeof session>[0], "cap" | "summaries">,
) {
  const { p, h } = session({
    cap: 10_000_000,
    summaries: [EXPENSIVE_PASS],
    ...options,
  });
  await h.session.sendMessage(filler("a", 16_000));
  await h.session.sendMessage(filler("b", 16_000));
  await h.session.sendMessage("c");
  return { p, h, start: h.events.length };
}

/** A pre-send compaction refused in pass 2 ends the turn before any request. */
const REFUSED_IN_TURN = [
  "session:turn_started",
  "session:compacting",
  "cost:updated",
  "session:compaction_failed",
  "session:turn_completed",
];

Deno.test("budget refusal matrix, pass 2 (pass 1's spend exhausts the cap)", async (t) => {
  await t.step(
    "manual: compaction_failed, budget_refused with the moment opened",
    async () => {
      const { p, h, start } = await pass2Session({
        deps: { autoCompact: false },
      });
      const r = await h.session.compact();
      assert.ok(r.kind === "budget_refused" && r.momentOpened);
      assert.deepEqual(kinds(h.events, start), [
        "session:compacting",
        "cost:updated",
        "session:compaction_failed",
      ]);
      expectLaterPassRefusal(h.events, start);
      assert.equal(p.summaries.length, 1);
      assert.equal(
        h.session.transcript.summary,
        undefined,
        "nothing installed",
      );
    },
  );
  await t.step("after-turn: compaction_failed, no trim", async () => {
    const { h } = session({
      cap: 10_000_000,
      summaries: [EXPENSIVE_PASS],
      defaultTurn: (_r, n) => summaryReply(filler(`reply ${n}`, 12_000), 10, 2),
      deps: { compactThreshold: 1, maxMessages: 2 },
    });
    for (const m of ["a", "b", "c"]) await h.session.sendMessage(m);
    const start = h.events.length;
    await h.session.sendMessage("d");
    assert.deepEqual(kinds(h.events, start), [
      "session:turn_started",
      "cost:updated",
      "session:turn_completed",
      "session:compacting",
      "cost:updated",
      "session:compaction_failed",
    ]);
    expectLaterPassRefusal(h.events, start);
    assert.equal(h.session.transcript.messages.length, 8, "no trim");
  });
  await t.step(
    "pre-send: compaction_failed, terminal budget_exceeded",
    async () => {
      const { p, h, start } = await pass2Session({
        deps: { compactThreshold: 1, afterTurnCompaction: false },
      });
      await h.session.sendMessage(filler("d", 8_000));
      assert.deepEqual(kinds(h.events, start), REFUSED_IN_TURN);
      expectLaterPassRefusal(h.events, start);
      const done = terminal(h.events);
      assert.equal(done.error?.code, "budget_exceeded");
      assert.deepEqual(done.tokensUsed, { input: 0, output: 0 });
      assert.equal(p.turns.length, 3, "no main request");
    },
  );
  await t.step(
    "recovery: compaction_failed, terminal budget_exceeded",
    async () => {
      const { p, h, start } = await pass2Session({
        turns: [
          summaryReply("r1", 10, 2),
          summaryReply("r2", 10, 2),
          summaryReply("r3", 10, 2),
          providerError("context_overflow"),
        ],
        deps: { compactThreshold: 1, afterTurnCompaction: false },
      });
      await h.session.sendMessage("d");
      assert.deepEqual(kinds(h.events, start), REFUSED_IN_TURN);
      expectLaterPassRefusal(h.events, start);
      assert.equal(terminal(h.events).error?.code, "budget_exceeded");
      assert.equal(p.turns.length, 4, "no retry");
    },
  );
});

Deno.test("budget: summariser spend is accounted as session spend, never a turn slot", async () => {
  const { h } = session({ cap: 0, deps: { autoCompact: false } });
  await h.session.sendMessage("a");
  await h.session.sendMessage("b");
  const before = h.session.cumulativeCostMicrocents;
  assert.equal((await h.session.compact()).kind, "compacted");
  const cost = h.events.at(-2);
  assert.ok(cost?.type === "cost:updated");
  assert.equal(cost.costMicrocents, 100 + 20 * 1000);
  assert.equal(
    h.session.cumulativeCostMicrocents,
    before + cost.costMicrocents,
  );
  assert.equal(
    cost.cumulativeCostMicrocents,
    h.session.cumulativeCostMicrocents,
  );
  assert.equal(h.session.turnCount, 2);
});

Deno.test("createBudgetGovernor() prices the worst case at the full uncached rate", () => {
  let spent = 0;
  const g = createBudgetGovernor({ maxCostMicrocents: 5000 }, {
    catalog: CATALOG,
    spent: () => spent,
  });
  // 1,000 input tokens at 1 µ¢ + 4 output tokens at 1,000 µ¢ = 5,000.
  assert.deepEqual(
    g.admit({ model: "gpt-5.4-mini", inputTokens: 1000, reservationTokens: 4 }),
    { allow: true },
  );
  spent = 1;
  const r = g.admit({
    model: "gpt-5.4-mini",
    inputTokens: 1000,
    reservationTokens: 4,
  });
  assert.equal(r.allow, false);
  assert.equal(
    projectedSpend(1, { model: "m", inputTokens: 1000, reservationTokens: 4 }, {
      inputPerMtokMicrocents: 1_000_000,
      outputPerMtokMicrocents: 1_000_000_000,
    }),
    5001,
  );
});

Deno.test("AgentSession rejects out-of-range context deps at construction", () => {
  for (
    const deps of [
      { compactThreshold: 0 },
      { compactThreshold: 1.01 },
      { compactThreshold: Number.NaN },
      { maxMessages: 0 },
      { maxTokensEstimate: 1.5 },
      { budget: { maxCostMicrocents: 0.5 } },
    ]
  ) {
    assert.throws(
      () => harness({ script: [], deps, start: false }),
      TypeError,
      JSON.stringify(deps),
    );
  }
  harness({ script: [], deps: { compactThreshold: 1 }, start: false });
});

Deno.test("budget: a reply without token counts is charged its estimate, so the cap still binds", async () => {
  const unknown: StreamChunk[] = [
    { type: "text_delta", text: "answer" },
    {
      type: "stop",
      stopReason: "stop",
      usage: { inputTokens: 0, outputTokens: 0 },
      usageUnknown: true,
    },
  ];
  const { p, h } = session({ cap: 150_000, turns: [unknown, unknown] });
  const first = await h.session.sendMessage("a");
  assert.equal(first.kind, "completed");
  const cost = h.events.find((e) => e.type === "cost:updated");
  assert.ok(cost?.type === "cost:updated");
  assert.equal(cost.usageUnknown, true);
  assert.equal(cost.inputTokens, 0, "the tokens stay unknown, not invented");
  assert.equal(cost.outputTokens, 0);
  // The estimate it was admitted at: the input estimate plus the 100-token
  // output reservation at 1,000 µ¢ a token.
  assert.ok(cost.costMicrocents > 100_000, String(cost.costMicrocents));
  assert.equal(h.session.cumulativeCostMicrocents, cost.costMicrocents);
  await h.session.sendMessage("b");
  assert.equal(terminal(h.events).error?.code, "budget_exceeded");
  assert.equal(p.turns.length, 1, "the second request never left");
});
