/** The turn_plan.ts internals, case by case. */
import assert from "node:assert/strict";
import { checkCost, planTurnRows } from "../../store/turn_plan.ts";

Deno.test("checkCost() refuses an empty model", () => {
  assert.throws(
    () =>
      checkCost({
        model: "",
        inputTokens: 0,
        outputTokens: 0,
        costMicrocents: 0,
        priced: true,
      }),
    RangeError,
  );
});

Deno.test("planTurnRows() plans a turn without tools", () => {
  let n = 0;
  const rows = planTurnRows("s", {
    userText: "hi",
    rounds: [],
    finalText: "",
    tokensUsed: { input: 1, output: 1 },
    costs: [],
  }, { ids: () => `r${n++}`, timestamp: "2026-01-01T00:00:00.000Z" });
  assert.deepEqual(rows.map((r) => r.role), ["user", "assistant"]);
});
