import assert from "node:assert/strict";
import type { ResumeState } from "../../../schema/resume.ts";
import { SessionStateError } from "../../../session/errors.ts";
import { planTrim } from "../../../session/window/trim.ts";
import { AGENT, harness, reply, resumedSession } from "../_harness.ts";
import { routedProvider } from "../_ctx.ts";

const t = (role: "user" | "assistant", text: string) => ({
  role,
  content: [{ type: "text" as const, text }],
});

function resumed(state: ResumeState, memory?: "none" | "window") {
  const p = routedProvider({ window: 100_000 });
  const { session: s, events } = resumedSession({
    agent: memory === undefined
      ? AGENT
      : memory === "none"
      ? { ...AGENT, memory: { type: "none" } }
      : { ...AGENT, memory: { type: "window", window_size: 1 } },
    deps: { resolveProvider: () => p },
    state,
  });
  return { s, events, p };
}

/** [legacy] [u1 a1] [u2] (empty final) [u3 a3] */
const STATE: ResumeState = {
  messages: [
    t("user", "legacy"),
    t("user", "u1"),
    t("assistant", "a1"),
    t("user", "u2"),
    t("user", "u3"),
    t("assistant", "a3"),
  ],
  completedTurnSpans: [{ start: 1, end: 3 }, { start: 3, end: 4 }, {
    start: 4,
    end: 6,
  }],
  turnCount: 3,
  cumulativeCostMicrocents: 0,
  conservativeCostMicrocents: 0,
  compactionSummary: "earlier",
};

Deno.test("trimHistory() snaps to whole turns and keeps the summary", async (t2) => {
  const cases: Array<[number, number, number]> = [
    // n, kept messages, kept slots
    [1, 2, 1], // start 5 is an assistant: snaps back to the last user (u3)
    [2, 2, 1],
    [3, 3, 2], // u2 (empty final) + u3 a3
    [4, 3, 2], // start 2 is a1: snaps forward to u2
    [5, 5, 3],
  ];
  for (const [n, kept, slots] of cases) {
    await t2.step(`n = ${n}`, () => {
      const { s, events } = resumed(STATE);
      const r = s.trimHistory(n);
      assert.deepEqual(r, {
        kind: "trimmed",
        keptMessageCount: kept,
        droppedMessageCount: 6 - kept,
        keptTurnCount: slots,
      });
      assert.deepEqual(events.map((e) => e.type), ["session:trimmed"]);
      const e = events[0];
      assert.ok(e?.type === "session:trimmed");
      assert.equal(e.reason, "manual");
      assert.equal(e.keptTurnCount, slots);
      const after = s.transcript;
      assert.equal(after.messages.length, kept);
      assert.equal(after.messages[0]?.role, "user");
      assert.equal(after.summary, "earlier");
      assert.equal(after.messages.at(-1)?.content[0]?.text, "a3");
      for (const span of after.spans) {
        assert.equal(after.messages[span.start]?.role, "user");
      }
    });
  }
});

Deno.test("trimHistory() with nothing to drop returns nothing_to_trim and emits nothing", () => {
  const { s, events } = resumed(STATE);
  assert.deepEqual(s.trimHistory(6), {
    kind: "nothing_to_trim",
    messageCount: 6,
  });
  assert.deepEqual(s.trimHistory(100), {
    kind: "nothing_to_trim",
    messageCount: 6,
  });
  assert.equal(events.length, 0);
});

Deno.test("trimHistory() refuses a non-positive or fractional bound with a RangeError", () => {
  const { s } = resumed(STATE);
  for (const n of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => s.trimHistory(n), RangeError);
  }
});

Deno.test("trimHistory(): lifecycle before policy; none refuses, window trims", async () => {
  const h = harness({ script: [], start: false });
  assert.throws(
    () => h.session.trimHistory(2),
    (e) => e instanceof SessionStateError && e.code === "not_started",
  );
  const none = resumed(STATE, "none");
  const r = none.s.trimHistory(2);
  assert.ok(r.kind === "policy_refused" && r.memory === "none");
  assert.equal(none.events.length, 0);
  const win = resumed(STATE, "window");
  assert.equal(win.s.trimHistory(2).kind, "trimmed");

  const running = harness({ script: [reply("x")] });
  const turn = running.session.sendMessage("hi");
  assert.throws(
    () => running.session.trimHistory(1),
    (e) => e instanceof SessionStateError && e.code === "not_active",
  );
  await turn;
});

Deno.test("trimHistory() then a turn: the request carries the summary and the kept turns only", async () => {
  const { s, p } = resumed(STATE);
  s.trimHistory(2);
  await s.sendMessage("next");
  const req = p.turns[0];
  assert.equal(req?.messages.length, 3);
  const first = req?.messages[0]?.content;
  assert.ok(first?.[0]?.type === "text" && first[0].text.includes("earlier"));
  assert.deepEqual(first?.[1], { type: "text", text: "u3" });
  assert.ok(!JSON.stringify(req).includes("u1"));
});

Deno.test("planTrim() is pure and counts legacy messages as slots", () => {
  const msgs = [t("user", "a"), t("user", "b"), t("assistant", "c")];
  const plan = planTrim(msgs, [{ start: 1, end: 3 }], 2);
  assert.deepEqual(plan, {
    kind: "trim",
    messages: [t("user", "b"), t("assistant", "c")],
    spans: [{ start: 0, end: 2 }],
    keptMessageCount: 2,
    droppedMessageCount: 1,
    keptTurnCount: 1,
  });
  assert.equal(msgs.length, 3);
});

Deno.test("AgentSession.resume() tells updateCost and restoreConservativeCost once each", () => {
  const told: string[] = [];
  resumedSession({
    deps: {
      emit: () => {},
      updateCost: (c) => told.push(`cost ${c}`),
      restoreConservativeCost: (c) => told.push(`conservative ${c}`),
    },
    state: {
      ...STATE,
      cumulativeCostMicrocents: 12,
      conservativeCostMicrocents: 34,
    },
  });
  assert.deepEqual(told, ["cost 12", "conservative 34"]);
});
