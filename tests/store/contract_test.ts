/**
 * The store contract, one suite run against memory, SQLite and Postgres
 * (through the asynchronous face), plus what only a shared store shows:
 * two handles on one database, a lease taken over after staleness, and a
 * write under the old lease refused with nothing written; on Postgres, an
 * older schema brought up to date on open and a newer one refused before
 * anything changes. Postgres comes from `tests/store/_pg.ts` (in CI never
 * skipped).
 */
import assert from "node:assert/strict";
import {
  SessionMessageBoundaryError,
  SessionNotFoundError,
} from "../../store/errors.ts";
import { reconstructSessionState } from "../../store/projection.ts";
import type { AsyncSessionStore, CostEntry } from "../../store/store.ts";
import { postgresEventTable } from "../../store/postgres/events.ts";
import { CONTRACT_FACTORIES, type ContractStore } from "./_contract.ts";
import { cost, newSession, turn } from "./_harness.ts";

let noted = false;

for (const factory of CONTRACT_FACTORIES) {
  if (factory.skip !== undefined && !noted) {
    noted = true;
    // The one line saying how to run the skipped tests.
    // deno-lint-ignore no-console
    console.log(factory.skip);
  }
  const test = (name: string, fn: (s: ContractStore) => Promise<void>) =>
    Deno.test({
      name: `contract: ${name} [${factory.name}]`,
      ignore: factory.skip !== undefined,
      async fn() {
        await using s = await factory.open();
        await fn(s);
      },
    });
  // What only a database several handles share can show.
  const shared = (
    name: string,
    fn: (
      s: ContractStore & Required<Pick<ContractStore, "second" | "raw">>,
    ) => Promise<void>,
  ) => {
    if (!factory.shared) return;
    test(name, async (s) => {
      assert.ok(s.second && s.raw, "a shared store has a second handle");
      await fn({ ...s, second: s.second, raw: s.raw });
    });
  };

  test("turns are appended whole, in sequence", async ({ store }) => {
    await store.create(newSession());
    await store.commitTurn("s1", turn("one", { rounds: 1 }));
    await store.commitTurn("s1", turn("two"));
    const loaded = await store.load("s1");
    assert.deepEqual(loaded?.messages.map((m) => [m.sequenceNumber, m.role]), [
      [0, "user"],
      [1, "assistant"],
      [2, "tool"],
      [3, "assistant"],
      [4, "user"],
      [5, "assistant"],
    ]);
    assert.equal(loaded?.record.title, "one");
    assert.deepEqual(loaded?.messages[4]?.content, [{
      type: "text",
      text: "two",
    }]);
  });

  test("a turn that cannot be stored writes nothing", async ({ store }) => {
    await store.create(newSession());
    await store.commitTurn("s1", turn("one"));
    const bad = turn("two", { rounds: 1 });
    const round = bad.rounds[0];
    assert.ok(round);
    // A round whose result answers no call of it.
    bad.rounds = [{ calls: round.calls, results: [] }];
    await assert.rejects(
      store.commitTurn("s1", bad),
      SessionMessageBoundaryError,
    );
    const loaded = await store.load("s1");
    assert.equal(loaded?.messages.length, 2);
    assert.equal(loaded?.record.totalInputTokens, 10);
  });

  test("resume projection of a stored session", async ({ store }) => {
    await store.create(newSession());
    await store.commitTurn("s1", { ...turn("one"), turnsUsed: 1 });
    await store.commitTurn("s1", {
      ...turn("two", { rounds: 1 }),
      turnsUsed: 2,
    });
    const loaded = await store.load("s1");
    assert.ok(loaded);
    const state = reconstructSessionState(loaded.record, loaded.messages);
    assert.equal(state.turnCount, 2);
    assert.equal(state.completedTurnSpans.length, 2);
    assert.equal(state.turnsUsed, 2);
  });

  test("boundary markers drop whole turns, rows kept", async ({ store }) => {
    await store.create(newSession());
    for (const t of ["one", "two", "three"]) {
      await store.commitTurn("s1", turn(t));
    }
    assert.ok(store.appendMarker);
    const d = await store.appendMarker("s1", {
      summary: "earlier turns",
      keptTurnCount: 1,
      tokensUsed: { input: 5, output: 1 },
      costs: [cost("gpt-5.4-mini", 70)],
    });
    assert.equal(d, 3);
    const loaded = await store.load("s1");
    assert.equal(loaded?.messages.length, 7);
    const marker = loaded?.messages[6];
    assert.equal(marker?.role, "system");
    assert.equal(marker?.compaction?.droppedThroughSequence, 3);
    assert.equal(loaded?.record.totalInputTokens, 35);
    assert.equal(loaded?.record.totalCostMicrocents, 70);
  });

  test("costs: per model, in first-recorded order", async ({ store }) => {
    await store.create(newSession());
    await store.commitTurn(
      "s1",
      turn("one", { costs: [cost("m-b", 100), cost("m-a", 5, false)] }),
    );
    await store.recordCosts("s1", [cost("m-b", 50)], 3);
    const totals = await store.costs?.("s1");
    assert.deepEqual(
      totals?.map((
        c,
      ) => [c.model, c.costMicrocents, c.callCount, c.unpricedCalls]),
      [["m-b", 150, 2, 0], ["m-a", 5, 1, 1]],
    );
    const record = (await store.load("s1"))?.record;
    assert.equal(record?.totalCostMicrocents, 155);
    assert.equal(record?.turnsUsed, 3);
  });

  test("turnUsage: each turn's figures by number", async ({ store }) => {
    await store.create(newSession());
    const spend = (input: number, output: number, money: number) => ({
      ...cost("m", money),
      inputTokens: input,
      outputTokens: output,
    });
    const commit = (turnsUsed: number, costs: CostEntry[]) =>
      store.commitTurn("s1", {
        ...turn(`u${turnsUsed}`, { costs }),
        turnsUsed,
      });
    await commit(1, [spend(10, 2, 100)]);
    // A failed turn's spend (a fallback's attempt too).
    await store.recordCosts("s1", [spend(5, 0, 40), spend(6, 1, 50)], 2);
    // Spend-less: no row.
    await store.recordCosts("s1", [], 3);
    // Spend without a turn number (a compaction's): in no turn.
    await store.recordCosts("s1", [spend(7, 7, 7)]);
    await commit(4, [spend(3, 3, 30)]);
    // A completed turn with nothing recorded still has its row.
    await commit(5, []);
    // A turn committed without a number is in no turn either.
    await store.commitTurn(
      "s1",
      turn("unnumbered", { costs: [spend(1, 1, 1)] }),
    );
    assert.ok(store.turnUsage);
    assert.deepEqual(await store.turnUsage("s1"), [
      { turnNumber: 1, inputTokens: 10, outputTokens: 2, costMicrocents: 100 },
      { turnNumber: 2, inputTokens: 11, outputTokens: 1, costMicrocents: 90 },
      { turnNumber: 4, inputTokens: 3, outputTokens: 3, costMicrocents: 30 },
      { turnNumber: 5, inputTokens: 0, outputTokens: 0, costMicrocents: 0 },
    ]);
    assert.deepEqual(await store.turnUsage("unknown"), []);
  });

  test("journal: pending, settled, then recorded", async ({ store }) => {
    await store.create(newSession());
    assert.ok(
      store.beginInvocation && store.settleInvocation && store.coverage,
    );
    const id = await store.beginInvocation("s1", {
      purpose: "turn",
      provider: "openai",
      model: "gpt-5.4-mini",
      turnNumber: 1,
    });
    const open = await store.coverage("s1");
    assert.deepEqual(open.pending.map((p) => [p.id, p.purpose]), [[
      id,
      "turn",
    ]]);
    assert.equal((await store.load("s1"))?.record.turnsUsed, 1);
    await store.settleInvocation("s1", {
      id,
      coverage: "priced",
      inputTokens: 10,
      outputTokens: 2,
      costMicrocents: 40,
    });
    await store.recordCosts("s1", []);
    const settled = await store.coverage("s1");
    assert.deepEqual(settled, { pending: [], unrecordedMicrocents: 40 });
    await store.commitTurn(
      "s1",
      turn("one", { costs: [cost("gpt-5.4-mini", 40)] }),
    );
    assert.deepEqual(await store.coverage("s1"), {
      pending: [],
      unrecordedMicrocents: 0,
    });
  });

  test("leases: one holder, renewed, released", async ({ store }) => {
    await store.create(newSession());
    const { acquireLease, renewLease, releaseLease, readLease } = store;
    assert.ok(acquireLease && renewLease && releaseLease && readLease);
    const a = await acquireLease.call(store, "s1", { holderId: "h1", pid: 7 });
    assert.deepEqual(a, { ok: true });
    const b = await acquireLease.call(store, "s1", { holderId: "h2" });
    assert.equal(b.ok, false);
    assert.equal(!b.ok && b.heldBy.holderId, "h1");
    assert.equal(await renewLease.call(store, "s1", "h1"), true);
    assert.equal((await readLease.call(store, "s1"))?.pid, 7);
    await releaseLease.call(store, "s1", "h1");
    assert.equal(await readLease.call(store, "s1"), undefined);
    const c = await acquireLease.call(store, "s1", { holderId: "h2" });
    assert.equal(c.ok, true);
    await assert.rejects(
      acquireLease.call(store, "nope", { holderId: "h3" }),
      SessionNotFoundError,
    );
  });

  test("soft delete hides a session from reads and writes", async ({ store }) => {
    await store.create(newSession());
    await store.create(newSession("s2"));
    assert.equal(await store.softDelete("s1"), true);
    assert.equal(await store.softDelete("s1"), false);
    assert.equal(await store.load("s1"), undefined);
    assert.deepEqual((await store.list()).map((r) => r.id), ["s2"]);
    await assert.rejects(
      store.commitTurn("s1", turn("x")),
      SessionNotFoundError,
    );
    await assert.rejects(store.allocateTurnKey("s1"), SessionNotFoundError);
  });

  test("list: newest write first, then id descending", async ({ store }) => {
    for (const id of ["a", "b", "c"]) await store.create(newSession(id));
    await store.commitTurn("a", turn("latest"));
    assert.deepEqual((await store.list()).map((r) => r.id), ["a", "c", "b"]);
  });

  test("turn keys are never reused", async ({ store }) => {
    await store.create(newSession());
    await store.commitTurn("s1", turn("one", { rounds: 1, turnKey: 4 }));
    const first = await store.allocateTurnKey("s1");
    const second = await store.allocateTurnKey("s1");
    assert.equal(first, 5);
    assert.equal(second, 6);
  });

  // The Postgres schema's versions (SQLite's file has its own checks).
  const pgSchema: typeof shared = (name, fn) => {
    if (factory.name === "postgres") shared(name, fn);
  };
  // Raises unless `condition` holds in the database.
  const holds = (condition: string) => {
    const quoted = condition.replaceAll("'", "''");
    return `DO $$ BEGIN IF NOT (${condition}) THEN
      RAISE EXCEPTION 'failed: ${quoted}'; END IF; END $$`;
  };

  pgSchema("a version-2 schema gets the per-turn table on open", async (s) => {
    await s.store.create(newSession());
    // The database as version 2 left it: no per-turn table, function or row.
    await s.raw(
      `DROP TABLE relavium_turn_usage; DROP FUNCTION rlv_add_turn_usage;
       DELETE FROM relavium_schema_version WHERE version = 3`,
    );
    const b = await s.second();
    await s.raw(holds(
      "(SELECT MAX(version) FROM relavium_schema_version) = 4",
    ));
    await b.commitTurn("s1", {
      ...turn("one", { costs: [cost("m", 25)] }),
      turnsUsed: 1,
    });
    assert.deepEqual(await b.turnUsage?.("s1"), [
      { turnNumber: 1, inputTokens: 10, outputTokens: 2, costMicrocents: 25 },
    ]);
  });

  pgSchema(
    "a version-3 schema gets the event append that needs the lease",
    async (s) => {
      await s.store.create(newSession());
      // Version 3's append: no holder, no fence.
      await s.raw(
        `CREATE OR REPLACE FUNCTION rlv_append_events(p_session text,
           p_holder text, p_epoch bigint, p_now bigint, p_events jsonb,
           p_keep bigint) RETURNS bigint LANGUAGE sql AS $$ SELECT 1::bigint $$;
         DELETE FROM relavium_schema_version WHERE version > 3;
         INSERT INTO relavium_schema_version (version) VALUES (3)
           ON CONFLICT DO NOTHING`,
      );
      const b = await s.second();
      await s.raw(holds(
        "(SELECT MAX(version) FROM relavium_schema_version) = 4",
      ));
      const events = postgresEventTable(b, 10);
      assert.ok(events, "a Postgres store has an event table");
      await assert.rejects(
        events.append("s1", [{ type: "x", data: "{}" }], undefined),
        { name: "SessionLeaseError" },
      );
      await s.raw(holds(
        "NOT EXISTS (SELECT 1 FROM relavium_session_events)",
      ));
    },
  );

  pgSchema(
    "a newer schema is refused before anything is applied",
    async (s) => {
      await s.raw(
        `INSERT INTO relavium_schema_version (version) VALUES (1000);
         DROP TABLE relavium_turn_usage`,
      );
      await assert.rejects(s.second(), {
        name: "StoreOpenError",
        message: /schema version 1000 is newer/,
      });
      await s.raw(holds("to_regclass('relavium_turn_usage') IS NULL"));
    },
  );

  shared("a damaged row is named by its sequence number", async (s) => {
    await s.store.create(newSession());
    await s.store.commitTurn("s1", turn("one"));
    await s.raw(
      `UPDATE session_messages SET content_parts = '{not json' WHERE session_id = 's1' AND sequence_number = 1`,
    );
    await assert.rejects(
      s.store.load("s1"),
      (e: unknown) =>
        e instanceof SessionMessageBoundaryError &&
        e.code === "malformed_json" && e.sequenceNumber === 1,
    );
  });

  shared("two handles on one database see each other", async (s) => {
    const b = await s.second();
    await s.store.create(newSession());
    await s.store.commitTurn("s1", turn("from a"));
    const seen = await b.load("s1");
    assert.equal(seen?.messages.length, 2);
    await b.commitTurn("s1", turn("from b"));
    assert.equal((await s.store.load("s1"))?.messages.length, 4);
  });

  shared(
    "a stale lease is taken over; the old holder writes nothing",
    async (s) => {
      const a = s.store;
      const b: AsyncSessionStore = await s.second();
      await a.create(newSession());
      assert.ok(a.acquireLease && b.acquireLease);
      assert.equal((await a.acquireLease("s1", { holderId: "ha" })).ok, true);
      await a.commitTurn("s1", turn("a holds it"));
      assert.equal((await b.acquireLease("s1", { holderId: "hb" })).ok, false);
      // A's heartbeat ages past the stale limit.
      await s.raw(
        `UPDATE relavium_session_leases SET heartbeat_at = heartbeat_at - 3600000 WHERE session_id = 's1'`,
      );
      const taken = await b.acquireLease("s1", { holderId: "hb" });
      assert.equal(taken.ok && taken.tookOver?.holderId, "ha");
      for (
        const write of [
          () =>
            a.commitTurn("s1", {
              ...turn("a after the takeover", {
                costs: [cost("gpt-5.4-mini", 9)],
              }),
              turnsUsed: 2,
            }),
          () => a.recordCosts("s1", [cost("gpt-5.4-mini", 9)], 3),
          () => a.setStatus("s1", "ended"),
        ]
      ) {
        await assert.rejects(write(), { name: "SessionLeaseError" });
      }
      const loaded = await b.load("s1");
      assert.equal(loaded?.messages.length, 2);
      assert.equal(loaded?.record.totalCostMicrocents, 0);
      assert.equal(loaded?.record.status, "active");
      assert.deepEqual(await b.turnUsage?.("s1"), []);
      await b.commitTurn("s1", turn("b goes on"));
      assert.equal((await b.load("s1"))?.messages.length, 4);
    },
  );
}
