/**
 * `SessionStore.turnUsage`: the SQLite and memory stores keep each
 * provider-engaged turn's tokens and spend by turn number, from
 * `commitTurn` and `recordCosts`, and read them back in turn order.
 */
import assert from "node:assert/strict";
import { createMemoryStore } from "../../store/memory_store.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import type { CostEntry, SessionStore } from "../../store/store.ts";

function cost(input: number, output: number, money: number): CostEntry {
  return {
    model: "m",
    inputTokens: input,
    outputTokens: output,
    costMicrocents: money,
    priced: true,
  };
}

function exercise(store: SessionStore): void {
  store.create({
    id: "s",
    agentSlug: "mini",
    context: { workingDir: "/w", fsScopeTier: "sandboxed" },
  });
  const commit = (turnsUsed: number, costs: CostEntry[]): void =>
    store.commitTurn("s", {
      userText: `u${turnsUsed}`,
      rounds: [],
      finalText: "a",
      tokensUsed: { input: 1, output: 1 },
      costs,
      turnsUsed,
    });
  commit(1, [cost(10, 2, 100)]);
  // A failed turn's spend (a fallback's attempt too).
  store.recordCosts("s", [cost(5, 0, 40), cost(6, 1, 50)], 2);
  // Spend-less: no row.
  store.recordCosts("s", [], 3);
  commit(4, [cost(3, 3, 30)]);
  // A completed turn with nothing recorded still has its row.
  commit(5, []);
}

for (
  const [name, open] of [
    ["memory", () => createMemoryStore()],
    ["sqlite", (dir: string) => openSqliteStore(`${dir}/history.db`)],
  ] as const
) {
  Deno.test(`turnUsage() of the ${name} store: each turn's figures by number`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "turn-usage-" });
    const store = open(dir);
    try {
      exercise(store);
      assert.deepEqual(store.turnUsage?.("s"), [
        {
          turnNumber: 1,
          inputTokens: 10,
          outputTokens: 2,
          costMicrocents: 100,
        },
        { turnNumber: 2, inputTokens: 11, outputTokens: 1, costMicrocents: 90 },
        { turnNumber: 4, inputTokens: 3, outputTokens: 3, costMicrocents: 30 },
        { turnNumber: 5, inputTokens: 0, outputTokens: 0, costMicrocents: 0 },
      ]);
      assert.deepEqual(store.turnUsage?.("unknown"), []);
    } finally {
      store.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
