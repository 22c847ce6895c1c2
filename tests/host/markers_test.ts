import assert from "node:assert/strict";
import {
  openSession,
  type PersistedSession,
  resumeSession,
} from "../../host/host.ts";
import { createCatalog } from "../../llm/create_catalog.ts";
import type { LlmRequest } from "../../llm/provider.ts";
import type { Agent } from "../../schema/agent.ts";
import { createMemoryStore } from "../../store/memory_store.ts";
import { listBoundaries } from "../../store/markers.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import type { SessionStore } from "../../store/store.ts";
import type { SessionDeps } from "../../session/deps.ts";
import { sequentialIds, steppingClock } from "../_fakes/clock.ts";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { hostParts } from "../_fakes/runtime.ts";
import { delegating, sqliteAt } from "./_stores.ts";
import { AGENT, toolCall } from "../session/_harness.ts";
import {
  filler,
  providerError,
  routedProvider,
  summaryReply,
} from "../session/_ctx.ts";

const CONTEXT = { workingDir: "/work", fsScopeTier: "sandboxed" as const };
type Provider = ReturnType<typeof routedProvider>;
type Step = (live: PersistedSession) => Promise<unknown> | unknown;

function deps(p: Provider, extra: Partial<SessionDeps> = {}) {
  return {
    resolveProvider: (id: string) => (id === "openai" ? p : undefined),
    keyFor: () => "k",
    sleep: () => Promise.resolve(),
    catalog: createCatalog(),
    tools: createFakeRegistry({ read_file: () => "file body" }),
    ...extra,
  };
}

function provider(window: number): Provider {
  return routedProvider({
    window,
    defaultTurn: (req, n) => {
      const last = JSON.stringify(req.messages.at(-1));
      // The second turn of every run uses a tool once.
      if (last.includes("use a tool") && !last.includes("tool_result")) {
        return toolCall(`c${n}`, "read_file", { path: "a" });
      }
      return summaryReply(filler(`reply to ${last.length}`, 300), 40, 9);
    },
    defaultSummary: (req) =>
      summaryReply(`summary of ${JSON.stringify(req.messages).length} chars`),
  });
}

const msg = (n: number) => filler(`message ${n}`, 2000);

/**
 * Runs `steps` uninterrupted on a memory store and, split at `cut`, on
 * SQLite with a fresh handle for the resumed part; returns the request
 * of the last step in both runs.
 */
async function sameNextRequest(
  steps: Step[],
  cut: number,
  options: { window?: number; agent?: Agent; deps?: Partial<SessionDeps> } = {},
): Promise<{
  a: LlmRequest | undefined;
  b: LlmRequest | undefined;
  path: string;
  id: string;
  dir: string;
  boundariesAtCut: number;
}> {
  const window = options.window ?? 100_000;
  const agent = options.agent ?? AGENT;
  const pa = provider(window);
  const a = openSession({
    store: createMemoryStore(),
    agent,
    context: CONTEXT,
    ...hostParts(deps(pa, options.deps), {
      clock: steppingClock(),
      ids: sequentialIds("a"),
    }),
  });
  for (const step of steps) await step(a);

  const dir = await Deno.makeTempDir();
  const path = `${dir}/history.db`;
  const pb = provider(window);
  const store1 = sqliteAt(path, "r");
  const b = openSession({
    store: store1,
    agent,
    context: CONTEXT,
    ...hostParts(deps(pb, options.deps), {
      clock: steppingClock(),
      ids: sequentialIds("b"),
    }),
  });
  for (const step of steps.slice(0, cut)) await step(b);
  assert.equal(b.latched, false);
  const id = b.sessionId;
  const boundariesAtCut =
    listBoundaries(store1.load(id)?.messages ?? []).length;
  b.close(); // releases its writer lease for the resume
  store1.close();

  const pc = provider(window);
  const store2 = sqliteAt(path, "q");
  const resumed = resumeSession({
    store: store2,
    sessionId: id,
    ...hostParts(deps(pc, options.deps), {
      clock: steppingClock(),
      ids: sequentialIds("c"),
    }),
  });
  assert.ok(resumed.ok);
  for (const step of steps.slice(cut)) await step(resumed.value);
  resumed.value.close();
  store2.close();
  return {
    a: pa.turns.at(-1),
    b: pc.turns.at(-1),
    path,
    id,
    dir,
    boundariesAtCut,
  };
}

const send = (text: string): Step => (live) => live.session.sendMessage(text);
const compact: Step = async (live) => {
  const r = await live.session.compact();
  assert.equal(r.kind, "compacted");
};
const trim = (n: number): Step => (live) => {
  assert.equal(live.session.trimHistory(n).kind, "trimmed");
};

Deno.test("resume after a manual compaction sends the uninterrupted session's next request", async () => {
  const { a, b, dir, boundariesAtCut } = await sameNextRequest(
    [send(msg(1)), send("use a tool"), send(msg(3)), compact, send("four")],
    4,
  );
  assert.equal(boundariesAtCut, 1);
  try {
    assert.ok(a !== undefined);
    assert.match(JSON.stringify(a.messages[0]), /summary of/);
    assert.deepEqual(b, a);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resume after a trim sends the uninterrupted session's next request", async () => {
  const { a, b, dir } = await sameNextRequest(
    [send(msg(1)), send("use a tool"), send(msg(3)), trim(2), send("four")],
    4,
  );
  try {
    assert.equal(a?.messages.length, 3);
    assert.deepEqual(b, a);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resume after compaction, trim and compaction again (markers stack)", async () => {
  const steps = [
    send(msg(1)),
    send("use a tool"),
    send(msg(3)),
    compact,
    send(msg(4)),
    send(""),
    trim(3),
    send(msg(6)),
    compact,
    send("last"),
  ];
  const { a, b, path, id, dir } = await sameNextRequest(steps, 9);
  try {
    assert.deepEqual(b, a);
    const store = openSqliteStore(path, {
      clock: steppingClock(),
      ids: sequentialIds("z"),
    });
    const loaded = store.load(id);
    store.close();
    assert.ok(loaded);
    const list = listBoundaries(loaded.messages);
    assert.deepEqual(list.map((x) => x.kind), [
      "compaction",
      "trim",
      "compaction",
    ]);
    assert.ok(
      list.every((x, i) =>
        x.droppedFromSequence <= x.droppedThroughSequence &&
        (i === 0 ||
          x.droppedFromSequence ===
            (list[i - 1]?.droppedThroughSequence ?? 0) + 1)
      ),
    );
    assert.match(list[2]?.summary ?? "", /summary of/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resume after automatic (after-turn and pre-send) compactions sends the same next request", async (t) => {
  await t.step("after-turn", async () => {
    const steps = [1, 2, 3, 4, 5, 6, 7].map((n) => send(msg(n)));
    const { a, b, dir, boundariesAtCut } = await sameNextRequest(steps, 5, {
      window: 6_000,
    });
    try {
      assert.ok(boundariesAtCut > 0, "compacted before the interruption");
      assert.match(JSON.stringify(a?.messages[0]), /summary of/);
      assert.deepEqual(b, a);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
  await t.step("pre-send", async () => {
    const steps = [
      send(filler("one", 12_000)),
      send(filler("two", 12_000)),
      send("three"),
      send(filler("four", 1000)),
      send("five"),
    ];
    const { a, b, dir, boundariesAtCut } = await sameNextRequest(steps, 4, {
      window: 10_000,
      deps: { afterTurnCompaction: false },
    });
    try {
      assert.equal(boundariesAtCut, 1, "the pre-send marker precedes the turn");
      assert.match(JSON.stringify(a?.messages[0]), /summary of/);
      assert.deepEqual(b, a);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

for (const kind of ["memory", "sqlite"] as const) {
  Deno.test(`${kind} store: a compaction marker row, summariser tokens and spend`, async () => {
    const dir = kind === "sqlite" ? await Deno.makeTempDir() : undefined;
    const store: SessionStore = dir === undefined
      ? createMemoryStore({ clock: steppingClock(), ids: sequentialIds("m") })
      : openSqliteStore(`${dir}/history.db`, {
        clock: steppingClock(),
        ids: sequentialIds("m"),
      });
    try {
      const p = provider(100_000);
      const live = openSession({
        store,
        agent: AGENT,
        context: CONTEXT,
        ...hostParts(deps(p), {
          clock: steppingClock(),
          ids: sequentialIds("s"),
        }),
      });
      await live.session.sendMessage("one");
      await live.session.sendMessage("use a tool");
      await live.session.sendMessage("three");
      const before = store.load(live.sessionId);
      assert.ok(before);
      const r = await live.session.compact();
      assert.ok(r.kind === "compacted");
      const after = store.load(live.sessionId);
      assert.ok(after);
      assert.equal(after.messages.length, before.messages.length + 1);
      const marker = after.messages.at(-1);
      // Rows: u a | u a(call) tool a | u a | marker. Kept: the last turn.
      assert.deepEqual(after.messages.map((m) => m.role), [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "system",
      ]);
      assert.equal(marker?.role, "system");
      assert.deepEqual(marker?.content, [{ type: "text", text: r.summary }]);
      assert.deepEqual(marker?.compaction, { droppedThroughSequence: 5 });
      assert.equal(
        after.record.totalInputTokens,
        before.record.totalInputTokens + r.summaryTokens.input,
      );
      assert.equal(
        after.record.totalOutputTokens,
        before.record.totalOutputTokens + r.summaryTokens.output,
      );
      assert.equal(
        after.record.totalCostMicrocents,
        live.session.cumulativeCostMicrocents,
      );
      assert.ok(
        after.record.totalCostMicrocents > before.record.totalCostMicrocents,
      );
      if (kind === "memory") {
        const costs = (store as ReturnType<typeof createMemoryStore>).costsOf(
          live.sessionId,
        );
        assert.equal(
          costs.reduce((s, c) => s + c.costMicrocents, 0),
          after.record.totalCostMicrocents,
        );
        assert.equal(
          costs[0]?.callCount,
          5,
          "4 turn attempts + 1 summariser pass",
        );
      }
      assert.equal(live.session.trimHistory(1).kind, "nothing_to_trim");
      live.close();
    } finally {
      store.close();
      if (dir !== undefined) await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("summariser spend of a failed compaction outside a turn is written at its close", async () => {
  const store = createMemoryStore();
  const p = routedProvider({
    window: 10_000,
    summaries: [
      summaryReply("pass one", 100, 20),
      providerError("bad_request"),
    ],
  });
  const live = openSession({
    store,
    agent: AGENT,
    context: CONTEXT,
    ...hostParts(deps(p, { autoCompact: false }), {
      clock: steppingClock(),
      ids: sequentialIds("s"),
    }),
  });
  await live.session.sendMessage(filler("a", 16_000));
  await live.session.sendMessage(filler("b", 16_000));
  await live.session.sendMessage("c");
  const before = store.load(live.sessionId);
  assert.ok(before);
  const r = await live.session.compact();
  assert.equal(r.kind, "failed");
  const after = store.load(live.sessionId);
  assert.ok(after);
  assert.equal(after.messages.length, before.messages.length, "no marker");
  assert.equal(after.record.totalInputTokens, before.record.totalInputTokens);
  assert.ok(
    after.record.totalCostMicrocents > before.record.totalCostMicrocents,
  );
  assert.equal(
    after.record.totalCostMicrocents,
    live.session.cumulativeCostMicrocents,
  );
  live.close();
});

Deno.test("a store without appendMarker latches the session at the first boundary", async () => {
  const inner = createMemoryStore();
  const store: SessionStore = delegating(inner);
  const p = provider(100_000);
  const live = openSession({
    store,
    agent: AGENT,
    context: CONTEXT,
    ...hostParts(deps(p), { clock: steppingClock(), ids: sequentialIds("s") }),
  });
  await live.session.sendMessage("one");
  await live.session.sendMessage("two");
  assert.equal(live.session.trimHistory(1).kind, "trimmed");
  assert.equal(live.latched, true);
  assert.match(String(live.latchError), /appendMarker/);
  await live.session.sendMessage("three");
  assert.equal(p.turns.length, 2, "no egress after the latch");
  live.close();
});
