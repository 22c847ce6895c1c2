/**
 * The usage-coverage journal both stores keep: an invocation is pending
 * from before its egress until it settles (money and coverage in one
 * write); settled spend that no turn, cost or marker write recorded counts
 * as unrecorded; and, in SQLite, a tampered journal row is a clear error.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SessionRecordError } from "../../store/errors.ts";
import {
  openSqliteStore,
  openSqliteStoreForRead,
} from "../../store/sqlite_store.ts";
import type { SessionStore } from "../../store/store.ts";
import {
  cost,
  FACTORIES,
  fileWithSession,
  methodsOf,
  newSession,
  tempDir,
  turn,
} from "./_harness.ts";

type Journal = Required<
  Pick<SessionStore, "beginInvocation" | "settleInvocation" | "coverage">
>;

function journal(store: SessionStore): Journal {
  const keys = ["beginInvocation", "settleInvocation", "coverage"] as const;
  return methodsOf(store, keys, "journal");
}

const call = (model = "m") => ({
  purpose: "turn" as const,
  provider: "openai",
  model,
});

for (const factory of FACTORIES) {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${name} [${factory.name}]`, fn);

  test("beginInvocation() is pending until settleInvocation() resolves it", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    const j = journal(s.store);
    assert.deepEqual(j.coverage("s1"), {
      pending: [],
      unrecordedMicrocents: 0,
    });
    const i1 = j.beginInvocation("s1", call());
    const i2 = j.beginInvocation("s1", { ...call(), purpose: "summary" });
    assert.notEqual(i1, i2);
    const open = j.coverage("s1");
    assert.deepEqual(
      open.pending.map((p) => [p.id, p.purpose, p.provider, p.model]),
      [[i1, "turn", "openai", "m"], [i2, "summary", "openai", "m"]],
    );
    assert.match(open.pending[0]?.startedAt ?? "", /^2026-01-01T/);
    j.settleInvocation("s1", {
      id: i1,
      coverage: "priced",
      inputTokens: 10,
      outputTokens: 2,
      costMicrocents: 70,
    });
    j.settleInvocation("s1", {
      id: i2,
      coverage: "no_usage",
      inputTokens: 0,
      outputTokens: 0,
      costMicrocents: 0,
    });
    j.settleInvocation("s1", {
      id: i2,
      coverage: "priced",
      inputTokens: 1,
      outputTokens: 1,
      costMicrocents: 5,
    });
    assert.deepEqual(
      j.coverage("s1"),
      { pending: [], unrecordedMicrocents: 70 },
      "settled once; zero spend needs no recording",
    );
    j.settleInvocation("s1", {
      id: "nope",
      coverage: "priced",
      inputTokens: 0,
      outputTokens: 0,
      costMicrocents: 1,
    });
    assert.deepEqual(j.coverage("other"), {
      pending: [],
      unrecordedMicrocents: 0,
    });
  });

  test("a turn, cost or marker write records the settled spend it carries", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    const j = journal(s.store);
    const settle = (id: string, money: number) =>
      j.settleInvocation("s1", {
        id,
        coverage: "priced",
        inputTokens: 10,
        outputTokens: 2,
        costMicrocents: money,
      });
    const [a, b, c, d] = [1, 2, 3, 4].map(() =>
      j.beginInvocation("s1", call())
    );
    settle(a ?? "", 70);
    settle(b ?? "", 70);
    settle(c ?? "", 30);
    assert.equal(j.coverage("s1").unrecordedMicrocents, 170);
    s.store.commitTurn("s1", turn("hi", { costs: [cost("m", 70)] }));
    assert.equal(j.coverage("s1").unrecordedMicrocents, 100);
    s.store.recordCosts("s1", [cost("other", 30), cost("m", 30)]);
    assert.equal(j.coverage("s1").unrecordedMicrocents, 70, "matched by model");
    s.store.appendMarker?.("s1", { keptTurnCount: 1, costs: [cost("m", 70)] });
    const left = j.coverage("s1");
    assert.deepEqual(left.pending.map((p) => p.id), [d]);
    assert.equal(left.unrecordedMicrocents, 0);
  });

  test("an open call's turn counts toward turns used until it settles; one never sent stops counting", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    const j = journal(s.store);
    s.store.commitTurn("s1", { ...turn("one"), turnsUsed: 1 });
    const used = () => s.store.load("s1")?.record.turnsUsed;
    const settle = (id: string, money: number) => {
      j.settleInvocation("s1", {
        id,
        coverage: money === 0 ? "not_sent" : "priced",
        inputTokens: money === 0 ? 0 : 10,
        outputTokens: money === 0 ? 0 : 2,
        costMicrocents: money,
      });
      s.store.recordCosts("s1", []);
    };
    assert.equal(used(), 1);
    const open = j.beginInvocation("s1", { ...call(), turnNumber: 2 });
    assert.equal(used(), 2, "a process that ends now leaves turn 2 counted");
    settle(open, 0);
    assert.equal(used(), 1, "a call that never left engaged nothing");
    settle(j.beginInvocation("s1", { ...call(), turnNumber: 2 }), 70);
    assert.equal(used(), 2, "settled spend no turn recorded: still turn 2");
    s.store.commitTurn("s1", {
      ...turn("two", { costs: [cost("m", 70)] }),
      turnsUsed: 2,
    });
    assert.equal(used(), 2);
    assert.throws(
      () => j.beginInvocation("s1", { ...call(), turnNumber: 0 }),
      RangeError,
    );
  });

  test("beginInvocation() and settleInvocation() refuse invalid fields and unknown sessions", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    const j = journal(s.store);
    for (
      const bad of [{ ...call(), provider: "" }, {
        ...call(),
        purpose: "chat",
      }, call("")]
    ) {
      assert.throws(() => j.beginInvocation("s1", bad as never), RangeError);
    }
    assert.throws(() => j.beginInvocation("nope", call()));
    const i1 = j.beginInvocation("s1", call());
    const ok = {
      id: i1,
      coverage: "priced",
      inputTokens: 1,
      outputTokens: 1,
      costMicrocents: 1,
    };
    for (
      const bad of [
        { ...ok, coverage: "some" },
        { ...ok, costMicrocents: -1 },
        { ...ok, inputTokens: 1.5 },
        { ...ok, id: "" },
      ]
    ) {
      assert.throws(() => j.settleInvocation("s1", bad as never), RangeError);
    }
    assert.equal(j.coverage("s1").pending.length, 1, "nothing was settled");
  });
}

Deno.test("sqlite: a tampered journal row is a clear error naming the column", async (t) => {
  const cases: Array<[string, string]> = [
    ["purpose", "UPDATE relavium_open_invocations SET purpose = 'chat'"],
    ["model", "UPDATE relavium_open_invocations SET model = ''"],
    ["started_at", "UPDATE relavium_open_invocations SET started_at = 'then'"],
    [
      "cost_microcents",
      "UPDATE relavium_open_invocations SET status = 'settled', cost_microcents = -5",
    ],
  ];
  for (const [column, sql] of cases) {
    await t.step(column, async () => {
      await using dir = await tempDir();
      const path = `${dir.path}/history.db`;
      const store = openSqliteStore(path);
      try {
        store.create(newSession());
        journal(store).beginInvocation("s1", call());
        const raw = new DatabaseSync(path);
        raw.exec("PRAGMA ignore_check_constraints = ON");
        raw.exec(sql);
        raw.close();
        assert.throws(
          () => journal(store).coverage("s1"),
          (e) =>
            e instanceof SessionRecordError &&
            e.field === `relavium_open_invocations.${column}`,
        );
      } finally {
        store.close();
      }
    });
  }
});

Deno.test("sqlite: the journal holds only the open calls, so it stays as small as what is open however long the session", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/history.db`;
  const store = openSqliteStore(path);
  const raw = new DatabaseSync(path, { readOnly: true });
  const rows = () =>
    raw.prepare("SELECT id, status FROM relavium_open_invocations").all()
      .map((r) => `${r["id"]}:${r["status"]}`);
  try {
    store.create(newSession());
    const j = journal(store);
    for (let i = 0; i < 20; i++) {
      const id = j.beginInvocation("s1", call());
      assert.deepEqual(rows(), [`${id}:pending`], "pending before egress");
      j.settleInvocation("s1", {
        id,
        coverage: "priced",
        inputTokens: 10,
        outputTokens: 2,
        costMicrocents: 70,
      });
      store.commitTurn("s1", turn(`q${i}`, { costs: [cost("m", 70)] }));
      assert.deepEqual(rows(), [], "recorded by the turn, so gone");
    }
    const free = j.beginInvocation("s1", call());
    j.settleInvocation("s1", {
      id: free,
      coverage: "no_usage",
      inputTokens: 0,
      outputTokens: 0,
      costMicrocents: 0,
    });
    store.recordCosts("s1", []);
    assert.deepEqual(rows(), [], "nothing spent, nothing to record");
  } finally {
    raw.close();
    store.close();
  }
});

Deno.test("sqlite: journal and lease tables are created in an older file, which stays readable", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/history.db`;
  const old = openSqliteStore(path);
  old.create(newSession());
  old.commitTurn("s1", turn("hi", { costs: [cost("m", 70)] }));
  old.close();
  const raw = new DatabaseSync(path);
  raw.exec("DROP TABLE relavium_open_invocations");
  raw.exec("DROP TABLE relavium_session_leases");
  raw.close();
  const store = openSqliteStore(path);
  try {
    assert.equal(store.load("s1")?.messages.length, 2);
    assert.deepEqual(journal(store).coverage("s1"), {
      pending: [],
      unrecordedMicrocents: 0,
    });
    assert.ok(store.acquireLease?.("s1", { holderId: "a" }).ok);
  } finally {
    store.close();
  }
});

Deno.test("sqlite: an older version's journal, which kept every call, is replaced and its open calls kept", async () => {
  await using dir = await tempDir();
  const path = fileWithSession(dir.path);
  const raw = new DatabaseSync(path);
  raw.exec(`CREATE TABLE relavium_invocations (id text PRIMARY KEY NOT NULL,
    session_id text NOT NULL, purpose text NOT NULL, provider text NOT NULL,
    model text NOT NULL, status text DEFAULT 'pending' NOT NULL,
    coverage text, input_tokens integer DEFAULT 0 NOT NULL,
    output_tokens integer DEFAULT 0 NOT NULL,
    cost_microcents integer DEFAULT 0 NOT NULL,
    recorded integer DEFAULT 0 NOT NULL, started_at integer NOT NULL,
    settled_at integer)`);
  raw.exec(`INSERT INTO relavium_invocations VALUES
    ('open', 's1', 'turn', 'openai', 'm', 'pending', NULL, 0, 0, 0, 0, 1000, NULL),
    ('spent', 's1', 'turn', 'openai', 'm', 'settled', 'priced', 3, 1, 40, 0, 1001, 1002),
    ('done', 's1', 'turn', 'openai', 'm', 'settled', 'priced', 3, 1, 70, 1, 1003, 1004),
    ('free', 's1', 'summary', 'openai', 'm', 'settled', 'unpriced', 3, 1, 0, 1, 1005, 1006)`);
  raw.close();
  const store = openSqliteStore(path);
  try {
    assert.deepEqual(journal(store).coverage("s1"), {
      pending: [{
        id: "open",
        purpose: "turn",
        provider: "openai",
        model: "m",
        startedAt: new Date(1000).toISOString(),
      }],
      unrecordedMicrocents: 40,
    });
  } finally {
    store.close();
  }
  const after = new DatabaseSync(path, { readOnly: true });
  try {
    assert.equal(
      after.prepare(
        "SELECT name FROM sqlite_master WHERE name = 'relavium_invocations'",
      ).get(),
      undefined,
      "the old table is gone",
    );
  } finally {
    after.close();
  }
});

Deno.test("sqlite: the journal's first version gets its turn_number column when a writer opens the file", async () => {
  await using dir = await tempDir();
  const path = fileWithSession(dir.path);
  const raw = new DatabaseSync(path);
  raw.exec("DROP TABLE relavium_open_invocations");
  raw.exec(`CREATE TABLE relavium_open_invocations (
    session_id text NOT NULL, id text NOT NULL, purpose text NOT NULL,
    provider text NOT NULL, model text NOT NULL,
    status text DEFAULT 'pending' NOT NULL, coverage text,
    input_tokens integer DEFAULT 0 NOT NULL,
    output_tokens integer DEFAULT 0 NOT NULL,
    cost_microcents integer DEFAULT 0 NOT NULL, started_at integer NOT NULL,
    settled_at integer, PRIMARY KEY (session_id, id)) WITHOUT ROWID`);
  raw.exec(`INSERT INTO relavium_open_invocations (session_id, id, purpose,
    provider, model, started_at) VALUES ('s1', 'old', 'turn', 'openai', 'm', 1000)`);
  raw.close();
  assert.equal(
    openSqliteStoreForRead(path),
    undefined,
    "a reader leaves the file as it is and asks for a writer's open",
  );
  const store = openSqliteStore(path);
  try {
    const j = journal(store);
    assert.deepEqual(j.coverage("s1").pending.map((p) => p.id), ["old"]);
    j.beginInvocation("s1", { ...call(), turnNumber: 4 });
    assert.equal(store.load("s1")?.record.turnsUsed, 4);
  } finally {
    store.close();
  }
});
