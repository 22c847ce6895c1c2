import assert from "node:assert/strict";
import { resolveSystemPrompt } from "../../session/prompt.ts";
import { createEventStamper } from "../../session/events.ts";

Deno.test("resolveSystemPrompt substitutes {{ctx.key}}, spaces allowed inside the braces", () => {
  assert.deepEqual(
    resolveSystemPrompt("Focus on {{ctx.area}}, then {{ ctx.area }}.", {
      area: "tests",
    }),
    { ok: true, value: "Focus on tests, then tests." },
  );
});

Deno.test("resolveSystemPrompt names the first unresolved key instead of substituting an empty string", () => {
  assert.deepEqual(resolveSystemPrompt("{{ ctx.x }} {{ctx.y}}", {}), {
    ok: false,
    error: { missing: "x" },
  });
  assert.deepEqual(resolveSystemPrompt("{{ctx.x}}", undefined), {
    ok: false,
    error: { missing: "x" },
  });
  // Inherited properties are not variables.
  assert.deepEqual(resolveSystemPrompt("{{ctx.toString}}", {}), {
    ok: false,
    error: { missing: "toString" },
  });
});

Deno.test("createEventStamper numbers events from firstSequence and stamps the session id and clock", () => {
  const seen: { seq: number; id: string; at: string }[] = [];
  const emit = createEventStamper({
    sessionId: "s",
    clock: { now: () => 0 },
    firstSequence: 5,
    deliver: (e) =>
      seen.push({ seq: e.sequenceNumber, id: e.sessionId, at: e.timestamp }),
  });
  emit({ type: "session:turn_started" });
  emit({ type: "session:cancelled" });
  assert.deepEqual(seen, [
    { seq: 5, id: "s", at: "1970-01-01T00:00:00.000Z" },
    { seq: 6, id: "s", at: "1970-01-01T00:00:00.000Z" },
  ]);
});

Deno.test("createEventStamper stamps each event with the clock's time when it is emitted", () => {
  const times = [0, 0, 1, 86_400_000, 0];
  const at: string[] = [];
  const emit = createEventStamper({
    sessionId: "s",
    clock: { now: () => times.shift() ?? Number.NaN },
    deliver: (e) => at.push(e.timestamp),
  });
  for (let i = 0; i < 5; i++) emit({ type: "session:turn_started" });
  assert.deepEqual(at, [
    "1970-01-01T00:00:00.000Z",
    "1970-01-01T00:00:00.000Z",
    "1970-01-01T00:00:00.001Z",
    "1970-01-02T00:00:00.000Z",
    "1970-01-01T00:00:00.000Z",
  ]);
  // An invalid time is refused, as `Date` refuses it.
  assert.throws(() => emit({ type: "session:turn_started" }), RangeError);
});
