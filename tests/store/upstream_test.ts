/**
 * Interop with a `history.db` written by the Relavium CLI: the shared fixture is copied to a temp dir, never opened in place.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { reconstructSessionState } from "../../store/projection.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import {
  copyUpstream,
  cost,
  deps,
  tempDir,
  turn,
  UPSTREAM_DIR,
} from "./_harness.ts";

const MINI = "39271b8b-ff7a-4fd7-a98d-12b38fc40374";
const TOOLBOX = "2fcee55c-bbd1-4ccf-9a3a-a6a92ec37694";
const CATALOG_MINI = "d61f8293-9b82-47d5-ad56-d05e480945e9";
const LIST_FIXTURE = new URL("chat-list.jsonl", UPSTREAM_DIR);

function rawRows(
  path: string,
  sessionId: string,
): Array<Record<string, unknown>> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(
      "SELECT * FROM session_messages WHERE session_id = ? ORDER BY sequence_number",
    ).all(sessionId).map((r) => ({ ...r }));
  } finally {
    db.close();
  }
}

function schemaOf(db: DatabaseSync): Map<string, string> {
  return new Map(
    db.prepare("SELECT name, sql FROM sqlite_master").all().map((
      r,
    ) => [String(r["name"]), String(r["sql"])]),
  );
}

Deno.test("openSqliteStore() reads every upstream session as the file holds it", async () => {
  await using dir = await tempDir();
  const path = await copyUpstream(dir.path);
  const store = openSqliteStore(path, deps());

  const expected = (await Deno.readTextFile(LIST_FIXTURE)).trim().split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    store.list().map((r) => ({
      sessionId: r.id,
      agentSlug: r.agentSlug,
      title: r.title,
      status: r.status,
      modelId: r.modelId,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      totalCostMicrocents: r.totalCostMicrocents,
    })),
    expected,
  );

  for (const id of [MINI, TOOLBOX]) {
    const loaded = store.load(id);
    assert.ok(loaded);
    const raw = rawRows(path, id);
    assert.equal(loaded.messages.length, raw.length);
    loaded.messages.forEach((m, i) => {
      const r = raw[i];
      assert.ok(r);
      assert.equal(m.id, r["id"]);
      assert.equal(m.sessionId, r["session_id"]);
      assert.equal(m.sequenceNumber, r["sequence_number"]);
      assert.equal(m.role, r["role"]);
      assert.deepEqual(m.content, JSON.parse(String(r["content_parts"])));
      assert.equal(m.modelId ?? null, r["model_id"]);
      assert.equal(Date.parse(m.timestamp), r["created_at"]);
      assert.equal(m.compaction, undefined);
    });
    const state = reconstructSessionState(loaded.record, loaded.messages);
    assert.equal(state.turnCount, raw.length / 2);
    assert.equal(
      state.cumulativeCostMicrocents,
      loaded.record.totalCostMicrocents,
    );
    assert.equal(state.conservativeCostMicrocents, 0);
    assert.equal(state.compactionSummary, undefined);
    assert.deepEqual(
      state.messages.map((m) => m.content[0]?.text),
      raw.map((r) => JSON.parse(String(r["content_parts"]))[0].text),
    );
  }
  const mini = store.load(MINI)?.record;
  assert.deepEqual(mini?.context, {
    workingDir: "/home/dev/interop-work",
    fsScopeTier: "sandboxed",
  });
  assert.deepEqual(mini?.agentSnapshot, {
    id: "mini",
    model: "gpt-5.4-mini",
    provider: "openai",
    system_prompt: "You are a terse assistant.",
    tools: ["read_file"],
  });
  assert.equal(mini?.totalInputTokens, 65);
  store.close();
});

Deno.test("commitTurn() appends to an upstream session and leaves the file clean", async () => {
  await using dir = await tempDir();
  const path = await copyUpstream(dir.path);
  const before = new DatabaseSync(path, { readOnly: true });
  const schemaBefore = schemaOf(before);
  before.close();

  const store = openSqliteStore(path, deps());
  assert.equal(store.allocateTurnKey(TOOLBOX), 2, "seeded from 1 terminal row");
  store.commitTurn(
    TOOLBOX,
    turn("and greet.js?", {
      turnKey: 2,
      rounds: 1,
      costs: [cost("gpt-5.4-mini", 1000), cost("unknown-model", 5, false)],
    }),
  );
  store.recordCosts(MINI, [cost("gpt-4o", 77)]);
  store.close();

  const db = new DatabaseSync(path, { readOnly: true });
  assert.deepEqual(
    db.prepare("PRAGMA integrity_check").all().map((r) => r["integrity_check"]),
    ["ok"],
  );
  assert.deepEqual(db.prepare("PRAGMA foreign_key_check").all(), []);
  const schemaAfter = schemaOf(db);
  for (const [name, sql] of schemaBefore) {
    assert.equal(schemaAfter.get(name), sql, name);
  }
  assert.deepEqual(
    [...schemaAfter.keys()].filter((n) => !schemaBefore.has(n)).sort(),
    [
      "relavium_cost_details",
      "relavium_open_invocations",
      "relavium_session_leases",
      "relavium_session_state",
      "relavium_session_turns",
      "relavium_turn_usage",
      "sqlite_autoindex_relavium_cost_details_1",
      "sqlite_autoindex_relavium_session_leases_1",
      "sqlite_autoindex_relavium_session_state_1",
      "sqlite_autoindex_relavium_session_turns_1",
    ],
    "only our own tables are added",
  );

  const rows = db.prepare(
    `SELECT sequence_number AS seq, role, model_id, content, tool_calls,
     tool_call_id, name, finish_reason FROM session_messages
     WHERE session_id = ? ORDER BY sequence_number`,
  ).all(TOOLBOX);
  assert.deepEqual(
    rows.map((r) => [r["seq"], r["role"], r["model_id"]]),
    [
      [0, "user", null],
      [1, "assistant", CATALOG_MINI],
      [2, "user", null],
      [3, "assistant", CATALOG_MINI],
      [4, "tool", null],
      [5, "assistant", CATALOG_MINI],
    ],
  );
  for (const r of rows) {
    for (
      const col of [
        "content",
        "tool_calls",
        "tool_call_id",
        "name",
        "finish_reason",
      ]
    ) {
      assert.equal(r[col], null, `${col} is written NULL like upstream`);
    }
  }
  const costs = db.prepare(
    `SELECT model, model_catalog_id, cost_microcents, call_count, unpriced_calls,
     is_legacy FROM session_costs WHERE session_id = ? ORDER BY model`,
  ).all(TOOLBOX).map((r) => ({ ...r }));
  assert.deepEqual(costs, [
    {
      model: "gpt-5.4-mini",
      model_catalog_id: CATALOG_MINI,
      cost_microcents: 22900,
      call_count: 3,
      unpriced_calls: 0,
      is_legacy: 0,
    },
    {
      model: "unknown-model",
      model_catalog_id: null,
      cost_microcents: 5,
      call_count: 1,
      unpriced_calls: 1,
      is_legacy: 0,
    },
  ]);
  const totals = db.prepare(
    `SELECT s.id, s.total_cost_microcents AS total, s.title, s.status,
     s.total_input_tokens AS input,
     (SELECT SUM(cost_microcents) FROM session_costs c WHERE c.session_id = s.id) AS sum
     FROM agent_sessions s ORDER BY s.id`,
  ).all().map((r) => ({ ...r }));
  assert.deepEqual(totals, [
    {
      id: TOOLBOX,
      total: 22905,
      title: "What does greet.js export? [[tool:read_…",
      status: "active",
      input: 158,
      sum: 22905,
    },
    {
      id: MINI,
      total: 14402,
      title: "Hello, this is a plain chat",
      status: "ended",
      input: 65,
      sum: 14402,
    },
  ]);
  db.close();

  const reopened = openSqliteStore(path, deps("again"));
  const loaded = reopened.load(TOOLBOX);
  assert.ok(loaded);
  assert.equal(
    reconstructSessionState(loaded.record, loaded.messages).turnCount,
    2,
  );
  assert.equal(reopened.allocateTurnKey(TOOLBOX), 3, "never reused");
  reopened.close();
});
