/**
 * The host holds a session's writer lease from open or resume until
 * close, refuses a second writer naming the holder, takes over from a
 * gone one, journals every provider call in the store, and a resume
 * adopts the calls an earlier run left pending.
 */
import assert from "node:assert/strict";
import { openSession, resumeSession } from "../../host/host.ts";
import { leaseHeldMessage } from "../../host/lease.ts";
import { createScriptedProvider } from "../../llm/scripted_provider.ts";
import { createMemoryStore } from "../../store/memory_store.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import type { SessionStore } from "../../store/store.ts";
import type { TurnResult } from "../../session/turn_result.ts";
import { sequentialIds } from "../_fakes/clock.ts";
import { hostParts } from "../_fakes/runtime.ts";
import { AGENT, reply } from "../session/_harness.ts";

function parts(
  replies: string[],
  options: {
    ids?: string;
    process?: { pid: number; hostname: string; isAlive(pid: number): boolean };
  } = {},
) {
  const provider = createScriptedProvider({
    id: "openai",
    script: replies.map((r) => reply(r)),
  });
  const p = hostParts({
    resolveProvider: (id) => (id === "openai" ? provider : undefined),
  }, { ids: sequentialIds(options.ids ?? "h") });
  if (options.process !== undefined) p.runtime.process = options.process;
  return p;
}

function userTexts(store: SessionStore, id: string): string[] {
  return (store.load(id)?.messages ?? []).flatMap((m) =>
    m.role === "user" && m.content[0]?.type === "text"
      ? [m.content[0].text]
      : []
  );
}

/** Another writer releases the session's lease (held by "h-1") and takes it. */
function takeOver(store: SessionStore, sessionId: string): void {
  assert.equal(store.clearLease?.(sessionId)?.holderId, "h-1");
  assert.ok(
    store.acquireLease?.(sessionId, {
      holderId: "other",
      pid: 4242,
      hostname: "elsewhere",
    }).ok,
  );
}

/** A turn refused because {@linkcode takeOver}'s writer holds the lease. */
function refusedAsTakenOver(result: TurnResult, sessionId: string): void {
  assert.equal(result.kind, "failed");
  if (result.kind === "failed") {
    assert.equal(result.error.code, "internal");
    assert.match(
      result.error.message,
      new RegExp(
        `^Session ${sessionId}: this chat's writer lease was taken over by process 4242 on host "elsewhere", since .+; nothing more is sent or written here`,
      ),
    );
  }
}

Deno.test("resumeSession() is refused while another writer holds the session, and allowed after it closes", async () => {
  const store = createMemoryStore();
  const first = openSession({ store, agent: AGENT, ...parts(["a", "b"]) });
  await first.session.sendMessage("one");
  const refused = resumeSession({
    store,
    sessionId: first.sessionId,
    ...parts(["never"], { ids: "r" }),
  });
  assert.ok(!refused.ok);
  assert.equal(refused.error.kind, "held");
  if (refused.error.kind === "held") {
    assert.equal(refused.error.heldBy.holderId, "h-1");
    assert.match(
      refused.error.message,
      new RegExp(
        `^Session ${first.sessionId} is open in another writer \\(holder h-1, since .+\\): close that chat first`,
      ),
    );
  }
  await first.session.sendMessage("two");
  first.close();
  const resumed = resumeSession({
    store,
    sessionId: first.sessionId,
    ...parts(["three"], { ids: "r" }),
  });
  assert.ok(resumed.ok);
  using live = resumed.value;
  await live.session.sendMessage("three");
  assert.deepEqual(userTexts(store, first.sessionId), ["one", "two", "three"]);
});

Deno.test("resumeSession() takes over the lease of a gone process of this host", async () => {
  const store = createMemoryStore();
  const here = (pid: number, alive: number[]) => ({
    pid,
    hostname: "box",
    isAlive: (p: number) => alive.includes(p),
  });
  const first = openSession({
    store,
    agent: AGENT,
    ...parts(["a"], { process: here(41, [41]) }),
  });
  await first.session.sendMessage("one");
  // The first process "dies" without closing: its pid is gone.
  const resumed = resumeSession({
    store,
    sessionId: first.sessionId,
    ...parts(["b"], { ids: "r", process: here(42, [42]) }),
  });
  assert.ok(resumed.ok, JSON.stringify(resumed));
  resumed.value.close();
});

Deno.test("openSession() journals each provider call; resumeSession() adopts calls left pending", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/history.db`;
    const store = openSqliteStore(path);
    const first = openSession({ store, agent: AGENT, ...parts(["a"]) });
    await first.session.sendMessage("one");
    assert.deepEqual(store.coverage?.(first.sessionId), {
      pending: [],
      unrecordedMicrocents: 0,
    });
    // A crash mid-call leaves a pending invocation behind.
    store.beginInvocation?.(first.sessionId, {
      purpose: "turn",
      provider: "openai",
      model: AGENT.model,
    });
    first.close();
    store.close();

    const again = openSqliteStore(path);
    const resumed = resumeSession({
      store: again,
      sessionId: first.sessionId,
      ...parts(["b"], { ids: "r" }),
    });
    assert.ok(resumed.ok);
    const live = resumed.value;
    await live.session.sendMessage("two");
    live.close();
    const costs = [];
    for await (const e of live.events) {
      if (e.type === "cost:updated") costs.push(e.unaccountedCalls);
    }
    assert.deepEqual(costs, [1], "the adopted call is reported");
    assert.equal(again.coverage?.(first.sessionId).pending.length, 1);
    again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a session whose lease another writer took over refuses its next call naming the holder; the store keeps only the first turn", async () => {
  const store = createMemoryStore();
  const provider = createScriptedProvider({
    id: "openai",
    script: [reply("a"), reply("never")],
  });
  const p = hostParts({
    resolveProvider: (id) => (id === "openai" ? provider : undefined),
  }, { ids: sequentialIds("h") });
  using live = openSession({ store, agent: AGENT, ...p });
  await live.session.sendMessage("one");
  // Another writer releases the stuck lease and takes the session.
  takeOver(store, live.sessionId);
  refusedAsTakenOver(await live.session.sendMessage("two"), live.sessionId);
  assert.equal(provider.calls, 1, "nothing more was sent");
  assert.deepEqual(userTexts(store, live.sessionId), ["one"]);
});

Deno.test("on SQLite, a lease taken over by another connection or on the same handle refuses the next call naming the holder; nothing more is sent", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    for (const via of ["another connection", "the same handle"] as const) {
      await t.step(via, async () => {
        const path = `${dir}/${via.replaceAll(" ", "_")}.db`;
        const store = openSqliteStore(path);
        const provider = createScriptedProvider({
          id: "openai",
          script: [reply("a"), reply("never")],
        });
        const p = hostParts({
          resolveProvider: (id) => (id === "openai" ? provider : undefined),
        }, { ids: sequentialIds("h") });
        const live = openSession({ store, agent: AGENT, ...p });
        await live.session.sendMessage("one");
        const other = via === "the same handle" ? store : openSqliteStore(path);
        takeOver(other, live.sessionId);
        if (other !== store) other.close();
        refusedAsTakenOver(
          await live.session.sendMessage("two"),
          live.sessionId,
        );
        assert.equal(provider.calls, 1, "nothing more was sent");
        assert.deepEqual(userTexts(store, live.sessionId), ["one"]);
        assert.equal(
          store.coverage?.(live.sessionId).pending.length,
          0,
          "nothing journaled for the refused call",
        );
        live.close();
        store.close();
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resumeSession() names a lease dated in the future and a damaged one with chat-release", () => {
  const store = createMemoryStore();
  store.create({
    id: "s",
    agentSlug: "mini",
    agentSnapshot: AGENT,
    context: { workingDir: "/w", fsScopeTier: "sandboxed" },
  });
  const p = parts([]);
  const future = p.runtime.clock.now() + 86_400_000;
  const held = {
    holderId: "x",
    pid: 7,
    hostname: "far",
    acquiredAt: new Date(future).toISOString(),
    heartbeatAt: new Date(future).toISOString(),
  };
  assert.match(
    leaseHeldMessage("s", held, p.runtime.clock.now()),
    /^Session s is open in another writer \(process 7 on host "far", since .+\) whose heartbeat is dated in the future \(.+\), so its lease never expires on its own: .*run 'relavium chat-release s'/,
  );
  assert.match(
    leaseHeldMessage("s", {
      ...held,
      acquiredAt: "",
      damaged: "relavium_session_leases.acquired_at",
    }),
    /^Session s is held by a damaged lease row \(relavium_session_leases\.acquired_at is invalid, process 7 on host "far"\): .*'relavium chat-release s' to clear it/,
  );
});
