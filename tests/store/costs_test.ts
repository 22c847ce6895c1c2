/** `SessionStore.costs()`: the per-model spend read (`session_costs`), both stores. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  cost,
  FACTORIES,
  newSession,
  tempDir,
  turn,
  withSqlite,
} from "./_harness.ts";

const NO_DETAILS = {
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheReadMicrocents: 0,
  cacheWriteMicrocents: 0,
  usageUnknownCalls: 0,
} as const;

for (const factory of FACTORIES) {
  Deno.test(`costs() sums prompt-cache tokens and usage-less calls per model [${factory.name}]`, async () => {
    await using s = await factory.open();
    const store = s.store;
    store.create(newSession());
    store.commitTurn(
      "s1",
      turn("hi", {
        costs: [
          {
            ...cost("claude-sonnet-4-6", 500),
            cacheReadTokens: 900,
            cacheWriteTokens: 120,
          },
          { ...cost("claude-sonnet-4-6", 300), cacheReadTokens: 1000 },
          {
            ...cost("gpt-5.4-mini", 70),
            inputTokens: 0,
            outputTokens: 0,
            usageUnknown: true,
          },
        ],
      }),
    );
    assert.deepEqual(
      store.costs?.("s1").map((
        c,
      ) => [
        c.model,
        c.cacheReadTokens,
        c.cacheWriteTokens,
        c.usageUnknownCalls,
      ]),
      [["claude-sonnet-4-6", 1900, 120, 0], ["gpt-5.4-mini", 0, 0, 1]],
    );
    assert.throws(
      () => store.recordCosts("s1", [{ ...cost("m", 1), cacheReadTokens: -1 }]),
      RangeError,
    );
  });

  Deno.test(`costs() sums each model's rows in first-recorded order [${factory.name}]`, async () => {
    await using s = await factory.open();
    const store = s.store;
    assert.ok(store.costs !== undefined);
    store.create(newSession());
    assert.deepEqual(store.costs("s1"), []);
    store.commitTurn(
      "s1",
      turn("hi", {
        costs: [cost("gpt-5.4-mini", 1650), cost("local-llm", 0, false)],
      }),
    );
    store.recordCosts("s1", [cost("gpt-5.4-mini", 350)]);
    store.appendMarker?.("s1", {
      keptTurnCount: 1,
      costs: [cost("claude-haiku-4-5", 900)],
    });
    assert.deepEqual(store.costs("s1"), [
      {
        model: "gpt-5.4-mini",
        inputTokens: 20,
        outputTokens: 4,
        costMicrocents: 2000,
        callCount: 2,
        unpricedCalls: 0,
        ...NO_DETAILS,
      },
      {
        model: "local-llm",
        inputTokens: 10,
        outputTokens: 2,
        costMicrocents: 0,
        callCount: 1,
        unpricedCalls: 1,
        ...NO_DETAILS,
      },
      {
        model: "claude-haiku-4-5",
        inputTokens: 10,
        outputTokens: 2,
        costMicrocents: 900,
        callCount: 1,
        unpricedCalls: 0,
        ...NO_DETAILS,
      },
    ]);
    const total = store.costs("s1").reduce((n, c) => n + c.costMicrocents, 0);
    assert.equal(total, store.load("s1")?.record.totalCostMicrocents);
    assert.deepEqual(store.costs("nope"), []);
  });
}

Deno.test("costs() folds an upstream legacy row into its model [sqlite]", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/history.db`;
  await withSqlite(path, (store) => {
    store.create(newSession());
    store.recordCosts("s1", [cost("gpt-5.4-mini", 100)]);
    const db = new DatabaseSync(path);
    try {
      db.prepare(
        `INSERT INTO session_costs (id, session_id, model, input_tokens,
         output_tokens, cost_microcents, call_count, unpriced_calls,
         created_at, updated_at, is_legacy)
         VALUES ('legacy', 's1', 'gpt-5.4-mini', 5, 1, 40, 3, 0, 0, 0, 1)`,
      ).run();
    } finally {
      db.close();
    }
    assert.deepEqual(store.costs?.("s1"), [{
      model: "gpt-5.4-mini",
      inputTokens: 15,
      outputTokens: 3,
      costMicrocents: 140,
      callCount: 4,
      unpricedCalls: 0,
      ...NO_DETAILS,
    }]);
  });
});
