/**
 * The read fast path never accepts what the strict schema rejects, and it
 * does accept the common shapes (so resume actually uses it).
 */
import assert from "node:assert/strict";
import { sessionMessageSchema } from "../../schema/message.ts";
import { isPlainlyValidMessage } from "../../store/fast_check.ts";
import { checkMessage } from "../../store/message_codec.ts";

const TS = "2026-01-01T00:00:00.000Z";
const BIG = Number.MAX_SAFE_INTEGER;

const PARTS: Array<Record<string, unknown>> = [
  { type: "text", text: "hi" },
  { type: "text", text: "" },
  { type: "reasoning", text: "why" },
  { type: "reasoning", text: "why", redacted: true },
  {
    type: "tool_call",
    id: "session-tool:1:0",
    name: "read_file",
    argsBytes: 0,
  },
  {
    type: "tool_call",
    id: `session-tool:${BIG}:${BIG}`,
    name: "a-b_C9",
    argsBytes: BIG,
  },
  {
    type: "tool_result",
    toolCallId: "session-tool:3:12",
    resultBytes: 9,
    outcome: "ok",
  },
  {
    type: "tool_result",
    toolCallId: "session-tool:3:12",
    resultBytes: 0,
    outcome: "cancelled",
  },
];

function base(content: unknown[], extra: Record<string, unknown> = {}) {
  return {
    id: "m",
    sessionId: "s",
    sequenceNumber: 0,
    role: "assistant",
    content,
    timestamp: TS,
    ...extra,
  };
}

const BAD_VALUES: unknown[] = [
  undefined,
  null,
  -1,
  1.5,
  BIG + 1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  "1",
  "",
  true,
  {},
  [],
  "x".repeat(129),
  "session-tool:01:0",
  "session-tool:1:00",
  "session-tool:0:0",
  `session-tool:${BIG}0:0`,
  "read file",
];

function corpus(): unknown[] {
  const out: unknown[] = [];
  for (const p of PARTS) {
    out.push(base([p]));
    for (const key of Object.keys(p)) {
      for (const v of BAD_VALUES) {
        const q: Record<string, unknown> = { ...p, [key]: v };
        if (v === undefined) delete q[key];
        out.push(base([q]));
      }
    }
    for (
      const extra of [
        "args",
        "arguments",
        "result",
        "signature",
        "x",
        "media",
        "redacted",
      ]
    ) {
      out.push(base([{ ...p, [extra]: extra === "redacted" ? false : {} }]));
    }
    out.push(
      base([JSON.parse(`{"__proto__":{},${JSON.stringify(p).slice(1)}`)]),
    );
  }
  out.push(
    base([{
      type: "media",
      mimeType: "image/png",
      source: { kind: "handle", ref: `media://sha256-${"a".repeat(64)}` },
    }]),
  );
  out.push(base([null]), base([[]]), base([{ type: "unknown" }]));
  const valid = base([PARTS[0]]);
  for (
    const key of [
      "id",
      "sessionId",
      "sequenceNumber",
      "role",
      "content",
      "timestamp",
      "modelId",
    ]
  ) {
    for (const v of BAD_VALUES) {
      const m: Record<string, unknown> = { ...valid, [key]: v };
      if (v === undefined) delete m[key];
      out.push(m);
    }
  }
  out.push({ ...valid, modelId: "gpt" }, { ...valid, extra: 1 });
  for (const role of ["system", "user", "assistant", "tool", "developer"]) {
    for (const d of [-2, -1, 0, 5, 1.5, BIG, BIG + 1, "3"]) {
      out.push({ ...valid, role, compaction: { droppedThroughSequence: d } });
    }
    out.push({
      ...valid,
      role,
      compaction: { droppedThroughSequence: 1, x: 1 },
    });
    out.push({ ...valid, role, compaction: null });
  }
  for (
    const ts of [
      "2026-01-01T00:00:00Z",
      "2026-02-30T00:00:00.000Z",
      "2026-01-01T00:00:00.000+01:00",
      "+275760-09-13T00:00:00.000Z",
      "2026-13-01T00:00:00.000Z",
      "0000-01-01T00:00:00.000Z",
      "2026-01-01 00:00:00.000Z",
    ]
  ) {
    out.push({ ...valid, timestamp: ts });
  }
  out.push(null, [], "m", base(PARTS), base([]));
  return out;
}

Deno.test("isPlainlyValidMessage() never accepts what the strict schema rejects", () => {
  let accepted = 0;
  const all = corpus();
  for (const candidate of all) {
    const fast = isPlainlyValidMessage(candidate);
    const strict = sessionMessageSchema.safeParse(candidate).success;
    if (fast) {
      accepted++;
      assert.equal(strict, true, JSON.stringify(candidate));
    }
    let threw = false;
    try {
      checkMessage(candidate);
    } catch {
      threw = true;
    }
    assert.equal(threw, !strict, JSON.stringify(candidate));
  }
  assert.ok(all.length > 300, `corpus of ${all.length}`);
  assert.ok(accepted > 10);
});

Deno.test("isPlainlyValidMessage() accepts the common stored shapes", () => {
  for (const p of PARTS) assert.equal(isPlainlyValidMessage(base([p])), true);
  assert.equal(isPlainlyValidMessage(base(PARTS, { modelId: "m" })), true);
  assert.equal(
    isPlainlyValidMessage({
      ...base([{ type: "text", text: "summary" }]),
      role: "system",
      compaction: { droppedThroughSequence: 4 },
    }),
    true,
  );
});
