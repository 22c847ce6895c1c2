import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  listBoundaries,
  markerBoundary,
  markerContent,
} from "../../store/markers.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import { reconstructSessionState } from "../../store/projection.ts";
import {
  copyUpstream,
  cost,
  deps,
  FACTORIES,
  newSession,
  tempDir,
  turn,
} from "./_harness.ts";
import { calls, marker, reply, results, user } from "./_rows.ts";

Deno.test("markerBoundary() places D by boundary slots, never by sequence arithmetic", async (t) => {
  // legacy(0) | u1 a1(tool round 2,3) a1(4) | u2(5) a2(6, empty) | legacy(7) | u3(8) a3(9)
  const rows = [
    user(0, "legacy"),
    user(1, "u1"),
    calls(2, 1, [0]),
    results(3, 1, [0]),
    reply(4, "a1"),
    user(5, "u2"),
    reply(6, ""),
    user(7, "legacy 2"),
    user(8, "u3"),
    reply(9, "a3"),
  ];
  // slots: 0 (legacy), 4 (turn 1), 6 (turn 2), 7 (legacy), 9 (turn 3)
  const cases: Array<[number, number | undefined]> = [
    [0, 9],
    [1, 7],
    [2, 6],
    [3, 4],
    [4, 0],
    [5, undefined],
    [9, undefined],
  ];
  for (const [kept, d] of cases) {
    await t.step(`keptTurnCount ${kept} ⇒ ${d}`, () => {
      assert.equal(markerBoundary(rows, kept), d);
    });
  }
  await t.step("an existing boundary is honoured", () => {
    const withMarker = [...rows, marker(10, 4, "sum")];
    assert.equal(markerBoundary(withMarker, 2), 6);
    assert.equal(markerBoundary(withMarker, 3), undefined);
  });
  await t.step("a bad keptTurnCount throws", () => {
    assert.throws(() => markerBoundary(rows, -1), RangeError);
    assert.throws(() => markerBoundary(rows, 1.5), RangeError);
  });
  await t.step("markerContent", () => {
    assert.deepEqual(markerContent({ keptTurnCount: 0 }), []);
    assert.deepEqual(markerContent({ summary: "s", keptTurnCount: 0 }), [{
      type: "text",
      text: "s",
    }]);
    assert.throws(
      () => markerContent({ summary: "", keptTurnCount: 0 }),
      RangeError,
    );
    assert.throws(
      () =>
        markerContent({
          keptTurnCount: 0,
          tokensUsed: { input: -1, output: 0 },
        }),
      RangeError,
    );
  });
});

for (const factory of FACTORIES) {
  Deno.test(`${factory.name}: appendMarker() appends, never deletes, and resume honours it`, async () => {
    await using s = await factory.open();
    const { store } = s;
    store.create(newSession());
    store.commitTurn("s1", turn("one"));
    store.commitTurn("s1", turn("two", { rounds: 1, turnKey: 2 }));
    store.commitTurn("s1", turn("three"));
    const before = store.load("s1");
    assert.ok(before);

    const d = store.appendMarker?.("s1", {
      summary: "one and two",
      keptTurnCount: 1,
      tokensUsed: { input: 300, output: 40 },
      costs: [cost("gpt-5.4-mini", 77)],
    });
    assert.equal(d, 5, "the terminal row of turn two");
    const after = store.load("s1");
    assert.ok(after);
    assert.deepEqual(
      after.messages.slice(0, -1),
      before.messages,
      "raw history kept",
    );
    const m = after.messages.at(-1);
    assert.equal(m?.role, "system");
    assert.equal(m?.sequenceNumber, 8);
    assert.deepEqual(m?.content, [{ type: "text", text: "one and two" }]);
    assert.deepEqual(m?.compaction, { droppedThroughSequence: 5 });
    assert.equal(
      after.record.totalInputTokens,
      before.record.totalInputTokens + 300,
    );
    assert.equal(
      after.record.totalOutputTokens,
      before.record.totalOutputTokens + 40,
    );
    assert.equal(after.record.totalCostMicrocents, 77);
    assert.deepEqual(s.costs("s1"), [{
      model: "gpt-5.4-mini",
      cost: 77,
      calls: 1,
      unpriced: 0,
    }]);

    const state = reconstructSessionState(after.record, after.messages);
    assert.equal(state.turnCount, 1);
    assert.deepEqual(state.messages.map((x) => x.content[0]?.text), [
      "three",
      "reply to three",
    ]);
    assert.equal(state.compactionSummary, "one and two");

    // A trim keeps the summary; the next marker counts slots past the boundary.
    store.commitTurn("s1", turn("four"));
    assert.equal(store.appendMarker?.("s1", { keptTurnCount: 1 }), 7);
    const trimmed = store.load("s1");
    assert.ok(trimmed);
    assert.deepEqual(trimmed.messages.at(-1)?.content, []);
    const state2 = reconstructSessionState(trimmed.record, trimmed.messages);
    assert.deepEqual(state2.messages.map((x) => x.content[0]?.text), [
      "four",
      "reply to four",
    ]);
    assert.equal(state2.compactionSummary, "one and two");
    assert.deepEqual(
      listBoundaries(trimmed.messages).map((
        b,
      ) => [b.kind, b.droppedFromSequence, b.droppedThroughSequence]),
      [["compaction", 0, 5], ["trim", 6, 7]],
    );
  });

  Deno.test(`${factory.name}: appendMarker() writes no row when nothing is dropped, and nothing at all on bad input`, async () => {
    await using s = await factory.open();
    const { store } = s;
    store.create(newSession());
    store.commitTurn("s1", turn("one"));
    const d = store.appendMarker?.("s1", {
      summary: "x",
      keptTurnCount: 1,
      tokensUsed: { input: 5, output: 1 },
      costs: [cost("m", 3)],
    });
    assert.equal(d, undefined);
    const loaded = store.load("s1");
    assert.equal(loaded?.messages.length, 2);
    assert.equal(
      loaded?.record.totalCostMicrocents,
      3,
      "spend is still recorded",
    );
    assert.equal(loaded?.record.totalInputTokens, 15);
    for (
      const bad of [
        { keptTurnCount: -1 },
        { summary: "", keptTurnCount: 0 },
        { keptTurnCount: 0, costs: [cost("", 1)] },
      ]
    ) {
      assert.throws(() => store.appendMarker?.("s1", bad));
    }
    const same = store.load("s1");
    assert.equal(same?.messages.length, 2);
    assert.equal(same?.record.totalCostMicrocents, 3);
  });
}

Deno.test("sqlite: a marker on a copy of an upstream file keeps it integral", async () => {
  await using dir = await tempDir();
  const path = await copyUpstream(dir.path);
  const store = openSqliteStore(path, deps());
  try {
    const id = store.list()[0]?.id;
    assert.ok(id !== undefined);
    const before = store.load(id);
    assert.ok(before);
    store.commitTurn(id, turn("added"));
    const d = store.appendMarker?.(id, {
      summary: "earlier work",
      keptTurnCount: 1,
    });
    assert.ok(d !== undefined);
    const after = store.load(id);
    assert.ok(after);
    const state = reconstructSessionState(after.record, after.messages);
    assert.deepEqual(state.messages.map((m) => m.content[0]?.text), [
      "added",
      "reply to added",
    ]);
  } finally {
    store.close();
  }
  const db = new DatabaseSync(path);
  try {
    assert.equal(
      db.prepare("PRAGMA integrity_check").get()?.["integrity_check"],
      "ok",
    );
    assert.equal(db.prepare("PRAGMA foreign_key_check").all().length, 0);
  } finally {
    db.close();
  }
});
