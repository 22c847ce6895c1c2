import assert from "node:assert/strict";
import { SessionStateError } from "../../../session/errors.ts";
import {
  COMPACTION_SYSTEM_PROMPT,
  cutHeadAndTail,
  omittedMarker,
  planPass,
  splitForCompaction,
} from "../../../session/window/compaction.ts";
import { SUMMARY_CLOSING_SENTENCE } from "../../../session/window/projection.ts";
import type { SessionEvent } from "../../../schema/event.ts";
import { AGENT, harness } from "../_harness.ts";
import {
  type Answer,
  estimateOf,
  filler,
  hang,
  kinds,
  providerError,
  routedHarness,
  routedProvider,
  summaryReply,
  textOfMessage,
  until,
} from "../_ctx.ts";

function compacted(events: SessionEvent[]) {
  return events.filter((e) => e.type === "session:compacted");
}

Deno.test("compact() folds everything before the latest turn into one summary", async () => {
  const { p, h } = routedHarness({ window: 100_000 });
  await h.session.sendMessage(filler("first", 2000));
  await h.session.sendMessage(filler("second", 2000));
  await h.session.sendMessage("third");
  const before = h.events.length;
  const r = await h.session.compact();
  assert.deepEqual(r, {
    kind: "compacted",
    reason: "manual",
    summary: "summary 1",
    keptMessageCount: 2,
    keptTurnCount: 1,
    tokensBefore: r.kind === "compacted" ? r.tokensBefore : -1,
    tokensAfter: r.kind === "compacted" ? r.tokensAfter : -1,
    summaryTokens: { input: 100, output: 20 },
  });
  assert.ok(r.kind === "compacted" && r.tokensAfter < r.tokensBefore);
  assert.deepEqual(kinds(h.events, before), [
    "session:compacting",
    "cost:updated",
    "session:compacted",
  ]);
  const done = compacted(h.events)[0];
  assert.ok(done?.type === "session:compacted");
  assert.deepEqual(done.tokensUsed, { input: 100, output: 20 });
  assert.equal(done.summary, "summary 1");
  const req = p.summaries[0];
  assert.equal(req?.system, COMPACTION_SYSTEM_PROMPT);
  assert.equal(req?.maxTokens, 4096);
  assert.equal(req?.tools, undefined);
  assert.equal(req?.messages.length, 1);
  const folded = textOfMessage(req, 0);
  for (const s of ["first", "reply 1", "second", "reply 2"]) {
    assert.ok(folded.includes(s), s);
  }
  assert.ok(!folded.includes("third"));
  assert.deepEqual(h.session.transcript, {
    messages: [
      { role: "user", content: [{ type: "text", text: "third" }] },
      { role: "assistant", content: [{ type: "text", text: "reply 3" }] },
    ],
    spans: [{ start: 0, end: 2 }],
    summary: "summary 1",
  });
  await h.session.sendMessage("fourth");
  const next = p.turns[3];
  const first = next?.messages[0]?.content;
  assert.equal(first?.length, 2);
  assert.ok(
    first?.[0]?.type === "text" &&
      first[0].text.endsWith(`${SUMMARY_CLOSING_SENTENCE}\n\n`) &&
      first[0].text.includes("summary 1"),
  );
  assert.deepEqual(first?.[1], { type: "text", text: "third" });
  assert.equal(textOfMessage(next, 1), "reply 3");
  assert.equal(textOfMessage(next, 2), "fourth");
  assert.equal(h.session.turnCount, 4, "the summariser used no turn slot");
});

Deno.test("compact() with nothing foldable returns nothing_to_compact and emits nothing", async () => {
  const { p, h } = routedHarness({ window: 100_000 });
  assert.deepEqual(await h.session.compact(), { kind: "nothing_to_compact" });
  await h.session.sendMessage("only");
  const before = h.events.length;
  assert.deepEqual(await h.session.compact(), { kind: "nothing_to_compact" });
  assert.equal(h.events.length, before);
  assert.equal(p.summaries.length, 0);
});

Deno.test("compact() and trimHistory(): lifecycle errors come before memory-policy refusals", async (t) => {
  const none = { ...AGENT, memory: { type: "none" as const } };
  const window = {
    ...AGENT,
    memory: { type: "window" as const, window_size: 2 },
  };
  await t.step("not_started before policy_refused", async () => {
    const h = harness({ script: [], agent: none, start: false });
    await assert.rejects(
      () => h.session.compact(),
      (e) => e instanceof SessionStateError && e.code === "not_started",
    );
    assert.throws(
      () => h.session.trimHistory(2),
      (e) => e instanceof SessionStateError && e.code === "not_started",
    );
  });
  await t.step("not_active after cancel", async () => {
    const h = harness({ script: [], agent: none });
    h.session.cancel();
    await assert.rejects(
      () => h.session.compact(),
      (e) => e instanceof SessionStateError && e.code === "not_active",
    );
  });
  await t.step("none refuses compact and trim; getters agree", async () => {
    const h = harness({ script: [], agent: none });
    const r = await h.session.compact();
    assert.equal(r.kind, "policy_refused");
    assert.ok(r.kind === "policy_refused" && r.memory === "none");
    assert.deepEqual(h.session.compactionRefusal, r);
    const t2 = h.session.trimHistory(2);
    assert.ok(t2.kind === "policy_refused" && t2.memory === "none");
    assert.deepEqual(h.session.trimRefusal, t2);
    assert.equal(h.session.automaticCompactionAllowed, false);
    assert.deepEqual(h.types(), ["session:started"]);
  });
  await t.step("window refuses compact, allows trim", async () => {
    const h = harness({ script: [], agent: window });
    const r = await h.session.compact();
    assert.ok(r.kind === "policy_refused" && r.memory === "window");
    assert.equal(h.session.trimRefusal, undefined);
    assert.deepEqual(h.session.trimHistory(2), {
      kind: "nothing_to_trim",
      messageCount: 0,
    });
    assert.equal(h.session.automaticCompactionAllowed, false);
    assert.deepEqual(h.session.memoryPolicy, {
      type: "window",
      window_size: 2,
    });
  });
  await t.step("omitted and summary allow both", () => {
    const h = harness({ script: [], deps: { autoCompact: false } });
    assert.equal(h.session.compactionRefusal, undefined);
    assert.equal(h.session.automaticCompactionAllowed, false);
    const s = harness({
      script: [],
      agent: { ...AGENT, memory: { type: "summary" } },
      deps: { autoCompact: false },
    });
    assert.equal(s.session.automaticCompactionAllowed, true);
  });
});

Deno.test("compact() over an unknown window discloses it before any request and bounds each pass to 16,384 tokens", async () => {
  const p = routedProvider({});
  const seen: Array<{ type: string; summaries: number }> = [];
  const h = harness({
    script: [],
    provider: p,
    onEvent: (e) => seen.push({ type: e.type, summaries: p.summaries.length }),
  });
  await h.session.sendMessage(filler("one", 40_000));
  await h.session.sendMessage(filler("two", 40_000));
  await h.session.sendMessage("three");
  const r = await h.session.compact();
  assert.equal(r.kind, "compacted");
  const opening = h.events.find((e) => e.type === "session:compacting");
  assert.ok(opening?.type === "session:compacting");
  assert.equal(opening.windowUnknown, true);
  assert.equal(
    seen.find((s) => s.type === "session:compacting")?.summaries,
    0,
    "disclosed before any summariser request",
  );
  assert.equal(p.summaries.length, 2);
  for (const req of p.summaries) assert.ok(estimateOf(req) <= 16_384);
});

Deno.test("compact() stops after exactly 4 summariser passes, fails, and installs nothing", async () => {
  const { p, h } = routedHarness({ window: 10_000 }, {
    deps: { autoCompact: false },
  });
  for (let i = 0; i < 6; i++) {
    await h.session.sendMessage(filler(`turn${i}`, 20_000));
  }
  const before = h.session.transcript;
  const start = h.events.length;
  const r = await h.session.compact();
  assert.equal(r.kind, "failed");
  assert.ok(r.kind === "failed" && /4 passes/.test(r.message));
  assert.equal(p.summaries.length, 4);
  assert.deepEqual(kinds(h.events, start), [
    "session:compacting",
    "cost:updated",
    "cost:updated",
    "cost:updated",
    "cost:updated",
    "session:compaction_failed",
  ]);
  assert.deepEqual(h.session.transcript, before);
  assert.equal(h.session.state, "idle");
  for (const req of p.summaries) assert.ok(estimateOf(req) + 4096 <= 10_000);
});

Deno.test("compact() cuts an oversized single message head and tail with the fixed marker", async () => {
  const { p, h } = routedHarness({ window: 10_000 }, {
    deps: { autoCompact: false },
  });
  const big = "H".repeat(50_000) + "T".repeat(50_000);
  await h.session.sendMessage(big);
  await h.session.sendMessage("small");
  const r = await h.session.compact();
  assert.equal(r.kind, "compacted");
  assert.equal(p.summaries.length, 2, "the cut message, then its reply");
  const text = textOfMessage(p.summaries[0], 0);
  const m = /\[engine: omitted (\d+) character\(s\) from this message\]/.exec(
    text,
  );
  assert.ok(m !== null);
  const heads = (text.match(/H/g) ?? []).length;
  const tails = (text.match(/T/g) ?? []).length;
  assert.ok(heads > 1000 && tails > 1000);
  assert.equal(heads + tails + Number(m[1]), 100_000);
  assert.ok(text.indexOf("H") < m.index && text.lastIndexOf("T") > m.index);
  assert.ok(estimateOf(p.summaries[0]) <= 10_000 - 4096);
  assert.ok(!textOfMessage(p.summaries[0], 0).includes("reply 1"));
});

Deno.test("every summariser request fits every attemptable window of the plan", async () => {
  const primary = routedProvider({ id: "openai", window: 50_000 });
  const backup = routedProvider({ id: "backup", window: 9_000 });
  const h = harness({
    script: [],
    provider: primary,
    agent: {
      ...AGENT,
      fallback_chain: [{ provider: "backup", model: "b", max_attempts: 1 }],
    },
    deps: {
      autoCompact: false,
      resolveProvider: (id) =>
        id === "openai" ? primary : id === "backup" ? backup : undefined,
    },
  });
  await h.session.sendMessage(filler("a", 20_000));
  await h.session.sendMessage(filler("b", 20_000));
  await h.session.sendMessage("c");
  assert.equal((await h.session.compact()).kind, "compacted");
  assert.ok(primary.summaries.length >= 3);
  for (const req of primary.summaries) {
    assert.ok(estimateOf(req) + 4096 <= 9_000, String(estimateOf(req)));
  }
});

Deno.test("compact() fails on an empty summary or a provider error, installing nothing", async (t) => {
  for (
    const [name, answer] of [
      ["empty", summaryReply("  ")],
      ["error", providerError("bad_request")],
    ] as const
  ) {
    await t.step(name, async () => {
      const { h } = routedHarness({ window: 100_000, summaries: [answer] });
      await h.session.sendMessage("a");
      await h.session.sendMessage("b");
      const before = h.session.transcript;
      const r = await h.session.compact();
      assert.equal(r.kind, "failed");
      assert.equal(h.types().at(-1), "session:compaction_failed");
      assert.deepEqual(h.session.transcript, before);
      const seen = JSON.stringify(h.events);
      assert.ok(!seen.includes("sk-ant-api03"), "a key never reaches an event");
      if (name === "error") {
        assert.match(
          seen,
          /the provider's own words/,
          "the provider's text does",
        );
      }
    });
  }
});

Deno.test("compact() orders the moment: pass-1 admission, compacting, observer, egress", async () => {
  const order: string[] = [];
  const { h } = routedHarness({
    window: 10_000,
    defaultSummary: (_r, n) => {
      order.push(`egress ${n}`);
      return summaryReply(`s${n}`);
    },
  }, {
    deps: {
      autoCompact: false,
      preEgress: (a) => {
        if (a.kind === "provider" && a.purpose === "summary") {
          order.push("admit");
        }
        return { allow: true };
      },
      onCompactionStart: (s) => {
        order.push(`observer ${s.reason} ${s.windowUnknown}`);
      },
    },
    onEvent: (e) => {
      if (e.type.startsWith("session:compact")) order.push(e.type);
    },
  });
  await h.session.sendMessage(filler("a", 20_000));
  await h.session.sendMessage(filler("b", 20_000));
  await h.session.sendMessage("c");
  assert.equal((await h.session.compact()).kind, "compacted");
  assert.deepEqual(order, [
    "admit",
    "session:compacting",
    "observer manual false",
    "egress 1",
    "admit",
    "egress 2",
    "session:compacted",
  ]);
  assert.ok(
    !h.events.some((e) =>
      e.type === "agent:token" &&
      h.events.indexOf(e) >
        h.events.findIndex((x) => x.type === "session:compacting")
    ),
    "summariser tokens are not forwarded",
  );
});

Deno.test("compact(): a throwing observer closes the moment and nothing is sent", async () => {
  const { p, h } = routedHarness({ window: 100_000 }, {
    deps: {
      onCompactionStart: () => {
        throw new Error("observer broke");
      },
    },
  });
  await h.session.sendMessage("a");
  await h.session.sendMessage("b");
  const start = h.events.length;
  const r = await h.session.compact();
  assert.ok(r.kind === "failed" && /observer/.test(r.message));
  assert.deepEqual(kinds(h.events, start), [
    "session:compacting",
    "session:compaction_failed",
  ]);
  assert.equal(p.summaries.length, 0);
});

async function twoPassSession(
  summaries: Answer[],
  deps: Parameters<typeof harness>[0]["deps"] = {},
) {
  const { p, h } = routedHarness({ window: 10_000, summaries }, {
    deps: { autoCompact: false, ...deps },
  });
  await h.session.sendMessage(filler("a", 16_000));
  await h.session.sendMessage(filler("b", 16_000));
  await h.session.sendMessage("c");
  return { p, h };
}

Deno.test("compact(): Esc at each pass ends the moment with compaction_failed and returns cancelled", async (t) => {
  for (const pass of [1, 2]) {
    await t.step(`pass ${pass}`, async () => {
      const { p, h } = await twoPassSession(
        pass === 1 ? [hang] : [summaryReply("s1"), hang],
      );
      const before = h.session.transcript;
      const start = h.events.length;
      const running = h.session.compact();
      await until(() => p.summaries.length === pass);
      h.session.abort();
      assert.deepEqual(await running, { kind: "cancelled" });
      const tail = kinds(h.events, start);
      assert.equal(tail[0], "session:compacting");
      assert.equal(tail.at(-1), "session:compaction_failed");
      const failed = h.events.at(-1);
      assert.ok(failed?.type === "session:compaction_failed");
      assert.equal(failed.error.code, "cancelled");
      assert.deepEqual(h.session.transcript, before);
      assert.equal(h.session.state, "idle");
    });
  }
  await t.step("while the observer is pending", async () => {
    const { p, h } = await twoPassSession([], {
      onCompactionStart: () => new Promise<void>(() => {}),
    });
    const running = h.session.compact();
    await until(() => h.types().includes("session:compacting"));
    h.session.abort();
    assert.deepEqual(await running, { kind: "cancelled" });
    assert.equal(h.types().at(-1), "session:compaction_failed");
    assert.equal(p.summaries.length, 0);
  });
});

Deno.test("compact(): cancel at each pass emits only session:cancelled and installs nothing", async (t) => {
  for (const pass of [1, 2, 0]) {
    await t.step(
      pass === 0 ? "while the observer is pending" : `pass ${pass}`,
      async () => {
        const { p, h } = await twoPassSession(
          pass === 1 ? [hang] : [summaryReply("s1"), hang],
          pass === 0
            ? { onCompactionStart: () => new Promise<void>(() => {}) }
            : {},
        );
        const before = h.session.transcript;
        const start = h.events.length;
        const running = h.session.compact();
        await until(() =>
          pass === 0
            ? h.types().includes("session:compacting")
            : p.summaries.length === pass
        );
        h.session.cancel();
        assert.deepEqual(await running, { kind: "cancelled" });
        const tail = kinds(h.events, start).filter((t) => t !== "cost:updated");
        assert.deepEqual(tail, ["session:compacting", "session:cancelled"]);
        assert.deepEqual(h.session.transcript, before);
        assert.equal(h.session.state, "cancelled");
      },
    );
  }
});

Deno.test("compaction policy helpers", async (t) => {
  const u = (text: string) => ({
    role: "user" as const,
    content: [{ type: "text" as const, text }],
  });
  await t.step("legacy text before the latest span is foldable", () => {
    const split = splitForCompaction(
      [u("legacy"), u("q"), u("pending-less legacy after")],
      [{ start: 1, end: 2 }],
    );
    assert.equal(split?.foldable.length, 1);
    assert.equal(split?.kept.length, 2);
    assert.equal(split?.keptTurnCount, 2);
  });
  await t.step("cutHeadAndTail never splits a surrogate pair", () => {
    const text = "😀".repeat(200);
    for (let max = 60; max < 120; max++) {
      const cut = cutHeadAndTail(text, max);
      assert.ok(cut !== undefined && cut.length <= max);
      assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(cut), String(max));
      assert.ok(!/(?<![\ud800-\udbff])[\udc00-\udfff]/.test(cut), String(max));
    }
    assert.equal(cutHeadAndTail("x".repeat(100), 10), undefined);
  });
  await t.step("the running summary is never cut", () => {
    assert.equal(
      planPass({
        system: "s",
        prior: "p".repeat(400),
        remaining: [u("x".repeat(10))],
        maxTokens: 50,
      }),
      undefined,
    );
    assert.equal(
      omittedMarker(1),
      "[engine: omitted 1 character(s) from this message]",
    );
  });
});
