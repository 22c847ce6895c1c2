import assert from "node:assert/strict";
import type { StreamChunk } from "../../llm/chunk.ts";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { toolCall } from "./_harness.ts";
import {
  type Answer,
  FAILED_IN_TURN,
  hang,
  interruptSummary,
  kinds,
  providerError,
  routedHarness,
  stoppedWith,
  summaryReply,
  terminal,
  textOfMessage,
} from "./_ctx.ts";

const OVERFLOW = providerError("context_overflow");

/** Two small turns, then a third turn whose first request overflows. */
async function overflowSession(
  third: Answer[],
  options: {
    summaries?: Answer[];
    customEndpoint?: boolean;
    tools?: boolean;
    run?: boolean;
  } = {},
) {
  const { p, h } = routedHarness({
    window: 100_000,
    turns: [
      summaryReply("reply 1", 10, 2),
      summaryReply("reply 2", 10, 2),
      ...third,
    ],
    ...(options.summaries === undefined
      ? {}
      : { summaries: options.summaries }),
    ...(options.customEndpoint === undefined
      ? {}
      : { customEndpoint: options.customEndpoint }),
  }, {
    ...(options.tools === true
      ? { tools: createFakeRegistry({ read_file: () => "body" }) }
      : {}),
  });
  await h.session.sendMessage("one");
  await h.session.sendMessage("two");
  const start = h.events.length;
  const turn = h.session.sendMessage("three");
  if (options.run !== false) await turn;
  return { p, h, start, turn };
}

Deno.test("overflow: one recovery compacts and retries once in the same turn, counted once", async () => {
  const { p, h, start } = await overflowSession([
    OVERFLOW,
    summaryReply("answer", 11, 5),
  ]);
  assert.deepEqual(kinds(h.events, start), [
    "session:turn_started",
    "session:compacting",
    "cost:updated",
    "session:compacted",
    "cost:updated",
    "session:turn_completed",
  ]);
  const compacted = h.events.find((e) => e.type === "session:compacted");
  assert.ok(compacted?.type === "session:compacted");
  assert.equal(compacted.reason, "overflow-recovery");
  assert.equal(compacted.keptMessageCount, 3);
  stoppedWith(h.events, 11, 5);
  assert.equal(h.session.turnCount, 3, "the recovered turn counts once");
  const retry = p.turns[3];
  assert.match(textOfMessage(retry, 0), /summary 1/);
  assert.equal(textOfMessage(retry, 2), "three");
  const turn = h.lastTurn();
  assert.deepEqual([turn?.userText, turn?.finalText], ["three", "answer"]);
});

Deno.test("overflow: a second overflow on the retry is final", async () => {
  const { p, h } = await overflowSession([OVERFLOW, OVERFLOW]);
  const done = terminal(h.events);
  assert.equal(done.error?.code, "context_overflow");
  assert.equal(p.summaries.length, 1);
  assert.equal(p.turns.length, 4);
  assert.match(done.error?.message ?? "", /gpt-5\.4-mini/);
  assert.match(done.error?.message ?? "", /100000 tokens/);
  assert.ok(!(done.error?.message ?? "").includes("sk-ant-api03"));
  assert.equal(h.session.turnCount, 3);
});

Deno.test("overflow: no recovery after a tool round in this invocation", async () => {
  const call: StreamChunk[] = toolCall("c1", "read_file", { path: "a" });
  const { p, h } = await overflowSession([call, OVERFLOW], { tools: true });
  const done = terminal(h.events);
  assert.equal(done.error?.code, "context_overflow");
  assert.match(done.error?.message ?? "", /tools had already run/);
  assert.equal(p.summaries.length, 0);
  assert.deepEqual(done.tokensUsed, {
    input: 5,
    output: 3,
    model: "gpt-5.4-mini",
  });
});

Deno.test("overflow: under a custom endpoint it stays validation and is never recovered", async (t) => {
  await t.step("downgraded overflow", async () => {
    const { p, h } = await overflowSession([
      providerError("bad_request", "possible_context_overflow"),
    ], { customEndpoint: true });
    const done = terminal(h.events);
    assert.equal(done.error?.code, "validation");
    assert.equal(p.summaries.length, 0);
  });
  await t.step("a custom endpoint claiming overflow", async () => {
    const { p, h } = await overflowSession([OVERFLOW], {
      customEndpoint: true,
    });
    const done = terminal(h.events);
    assert.equal(done.error?.code, "context_overflow");
    assert.equal(p.summaries.length, 0, "its window is not authoritative");
  });
});

Deno.test("overflow: a failed recovery compaction ends with the original context_overflow", async () => {
  const { p, h, start } = await overflowSession([OVERFLOW], {
    summaries: [providerError("bad_request")],
  });
  assert.deepEqual(kinds(h.events, start), FAILED_IN_TURN);
  const done = terminal(h.events);
  assert.equal(done.error?.code, "context_overflow");
  assert.equal(p.turns.length, 3);
});

Deno.test("overflow: nothing to fold ends with the original context_overflow", async () => {
  const { h } = routedHarness({ window: 100_000, turns: [OVERFLOW] });
  await h.session.sendMessage("first ever");
  assert.deepEqual(kinds(h.events, 1), [
    "session:turn_started",
    "session:turn_completed",
  ]);
  const done = terminal(h.events);
  assert.equal(done.error?.code, "context_overflow");
  assert.deepEqual(h.session.transcript.messages, [], "pending rolled back");
});

Deno.test("overflow: Esc during the recovery ends the turn aborted", async () => {
  const { p, h, turn } = await overflowSession([OVERFLOW], {
    summaries: [hang],
    run: false,
  });
  await interruptSummary(p, h, turn, "abort");
  const tail = kinds(h.events).slice(-2);
  assert.deepEqual(tail, [
    "session:compaction_failed",
    "session:turn_completed",
  ]);
  const done = terminal(h.events);
  assert.equal(done.stopReason, "aborted");
  assert.equal(done.error, undefined);
  assert.equal(p.turns.length, 3, "no retry");
});

Deno.test("overflow: cancel during the recovery emits only session:cancelled", async () => {
  const { p, h, turn } = await overflowSession([OVERFLOW], {
    summaries: [hang],
    run: false,
  });
  await interruptSummary(p, h, turn, "cancel");
  assert.deepEqual(kinds(h.events).slice(-2), [
    "session:compacting",
    "session:cancelled",
  ]);
});

Deno.test("overflow: autoCompact false means no recovery", async () => {
  const { p, h } = routedHarness({
    window: 100_000,
    turns: [summaryReply("r1", 1, 1), OVERFLOW],
  }, { deps: { autoCompact: false } });
  await h.session.sendMessage("one");
  await h.session.sendMessage("two");
  const done = terminal(h.events);
  assert.equal(done.error?.code, "context_overflow");
  assert.equal(p.summaries.length, 0);
});
