/** The turn_key.ts internals, case by case. */
import assert from "node:assert/strict";
import { nextTurnKey, seedTurnKey } from "../../store/turn_key.ts";

Deno.test("seedTurnKey() seeds from history", () => {
  const at = "2026-01-01T00:00:00.000Z";
  assert.equal(
    seedTurnKey([
      {
        id: "a",
        sessionId: "s",
        sequenceNumber: 0,
        role: "assistant",
        timestamp: at,
        content: [{
          type: "tool_call",
          id: "session-tool:7:0",
          name: "read_file",
          argsBytes: 2,
        }],
      },
      {
        id: "b",
        sessionId: "s",
        sequenceNumber: 1,
        role: "assistant",
        timestamp: at,
        content: [{ type: "text", text: "" }],
      },
    ]),
    7,
  );
});

Deno.test("nextTurnKey() advances and fails closed", () => {
  assert.equal(nextTurnKey(4), 5);
  assert.throws(() => nextTurnKey(-1), { code: "invalid_turn_key" });
  assert.throws(() => nextTurnKey(Number.MAX_SAFE_INTEGER), {
    code: "invalid_turn_key",
  });
});
