/**
 * Usage coverage through the engine: every admitted provider attempt
 * (turn round or summariser pass) is told to the host before it leaves
 * and settled after it, exactly once; the host's refusal to journal sends
 * nothing; an unsettled attempt and adopted calls show on `cost:updated`.
 */
import assert from "node:assert/strict";
import type { SessionDeps } from "../../session/deps.ts";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { AGENT, harness, reply, resumedSession, toolCall } from "./_harness.ts";
import { filler, pricedCatalog, providerError, routedHarness } from "./_ctx.ts";

type Started = Parameters<NonNullable<SessionDeps["invocationStarted"]>>[0];
type Settled = Parameters<NonNullable<SessionDeps["invocationSettled"]>>[0];

function journal(): {
  log: string[];
  started: Started[];
  settled: Settled[];
  deps: Pick<SessionDeps, "invocationStarted" | "invocationSettled">;
} {
  const log: string[] = [];
  const started: Started[] = [];
  const settled: Settled[] = [];
  return {
    log,
    started,
    settled,
    deps: {
      invocationStarted(i) {
        log.push(`start ${i.purpose} ${i.provider}/${i.model}`);
        started.push(i);
      },
      invocationSettled(s) {
        log.push(`settle ${s.coverage} ${s.costMicrocents}`);
        settled.push(s);
      },
    },
  };
}

const CATALOG = pricedCatalog(1_000_000, 1_000_000_000);

Deno.test("sendMessage() journals each attempt before it leaves and settles it with its money", async () => {
  const j = journal();
  let sentBeforeStart = -1;
  const h = harness({
    script: [reply("hello", 10, 2)],
    deps: {
      catalog: CATALOG,
      ...j.deps,
      invocationStarted(i) {
        sentBeforeStart = h.provider.calls;
        j.deps.invocationStarted?.(i);
      },
    },
  });
  const r = await h.session.sendMessage("hi");
  assert.equal(r.kind, "completed");
  assert.equal(sentBeforeStart, 0, "journaled before the request left");
  assert.deepEqual(j.log, [
    "start turn openai/gpt-5.4-mini",
    "settle priced 2010",
  ]);
  assert.equal(j.started[0]?.id, j.settled[0]?.id);
  assert.deepEqual(j.settled[0], {
    id: j.started[0]?.id,
    coverage: "priced",
    inputTokens: 10,
    outputTokens: 2,
    costMicrocents: 2010,
  });
  const cost = h.events.find((e) => e.type === "cost:updated");
  assert.ok(cost?.type === "cost:updated");
  assert.equal(
    "unaccountedCalls" in cost,
    false,
    "a fresh session is complete",
  );
});

Deno.test("sendMessage(): each tool round's call is its own invocation", async () => {
  const j = journal();
  const h = harness({
    script: [toolCall("c1", "read_file", { path: "a.txt" }), reply("done")],
    tools: createFakeRegistry({ read_file: () => "body" }),
    deps: { catalog: CATALOG, ...j.deps },
  });
  const r = await h.session.sendMessage("read it");
  assert.equal(r.kind, "completed");
  assert.deepEqual(j.log, [
    "start turn openai/gpt-5.4-mini",
    "settle priced 3005",
    "start turn openai/gpt-5.4-mini",
    "settle priced 2010",
  ]);
});

Deno.test("sendMessage(): a turn's calls carry its number among the session's engaged turns", async () => {
  const j = journal();
  const h = harness({
    script: [
      toolCall("c1", "read_file", { path: "a.txt" }),
      reply("done"),
      reply("again"),
    ],
    tools: createFakeRegistry({ read_file: () => "body" }),
    deps: { catalog: CATALOG, ...j.deps },
  });
  assert.equal((await h.session.sendMessage("read it")).kind, "completed");
  assert.equal((await h.session.sendMessage("more")).kind, "completed");
  assert.deepEqual(
    j.started.map((i) => [i.purpose, i.turnNumber]),
    [["turn", 1], ["turn", 1], ["turn", 2]],
    "both rounds of the first turn are turn 1",
  );
});

Deno.test("sendMessage(): a failed attempt settles as no_usage, a retry as its own invocation", async () => {
  const j = journal();
  const h = harness({
    script: [providerError("overloaded"), reply("ok")],
    deps: { ...j.deps },
  });
  const r = await h.session.sendMessage("hi");
  assert.equal(r.kind, "completed");
  assert.deepEqual(j.log, [
    "start turn openai/gpt-5.4-mini",
    "settle no_usage 0",
    "start turn openai/gpt-5.4-mini",
    "settle unpriced 0",
  ]);
  assert.notEqual(j.started[0]?.id, j.started[1]?.id);
});

Deno.test("sendMessage(): an attempt without a key settles as not_sent", async () => {
  const j = journal();
  const h = harness({
    script: [reply("never")],
    deps: { ...j.deps, keyFor: () => Promise.reject(new Error("no key")) },
  });
  const r = await h.session.sendMessage("hi");
  assert.equal(r.kind, "failed");
  assert.deepEqual(j.log, [
    "start turn openai/gpt-5.4-mini",
    "settle not_sent 0",
  ]);
  assert.equal(h.provider.calls, 0);
});

Deno.test("sendMessage(): a host that cannot journal the call refuses it, and nothing is sent", async () => {
  const h = harness({
    script: [reply("never")],
    deps: {
      invocationStarted() {
        throw new Error("disk full");
      },
      invocationSettled() {
        assert.fail("nothing to settle");
      },
    },
  });
  const r = await h.session.sendMessage("hi");
  assert.equal(r.kind, "failed");
  assert.equal(r.kind === "failed" ? r.error.code : "", "internal");
  assert.equal(h.provider.calls, 0);
  assert.equal(h.session.state, "idle");
});

Deno.test("cost:updated counts adopted and unsettled calls as unaccounted", async () => {
  let failSettle = false;
  const provider = harness({ script: [reply("one"), reply("two")] }).provider;
  const { session, events } = resumedSession({
    deps: {
      resolveProvider: () => provider,
      catalog: CATALOG,
      invocationStarted() {},
      invocationSettled() {
        if (failSettle) throw new Error("disk full");
      },
    },
    state: { unaccountedCalls: 2 },
  });
  await session.sendMessage("a");
  failSettle = true;
  await session.sendMessage("b");
  const counts = events.flatMap((e) =>
    e.type === "cost:updated" ? [e.unaccountedCalls] : []
  );
  assert.deepEqual(
    counts,
    [2, 3],
    "adopted on resume, then one more unsettled",
  );
});

Deno.test("compact(): each summariser pass is journaled as a summary invocation", async () => {
  const j = journal();
  const { h } = routedHarness({ window: 100_000 }, {
    agent: AGENT,
    deps: { ...j.deps },
  });
  await h.session.sendMessage(filler("first", 2000));
  await h.session.sendMessage("second");
  j.log.length = 0;
  const r = await h.session.compact();
  assert.equal(r.kind, "compacted");
  assert.deepEqual(j.log, [
    "start summary openai/gpt-5.4-mini",
    "settle unpriced 0",
  ]);
});
