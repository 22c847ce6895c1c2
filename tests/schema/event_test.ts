import assert from "node:assert/strict";
import { parseSessionEvent } from "../../schema/event.ts";
import { parseSessionMessage } from "../../schema/message.ts";

const ENV = {
  sessionId: "s",
  timestamp: "2026-01-01T00:00:00.000Z",
  sequenceNumber: 3,
};

Deno.test("parseSessionEvent() accepts each event type and refuses stray fields", () => {
  const good = [
    {
      type: "session:started",
      agentRef: "a",
      model: "m",
      context: { workingDir: "/w", fsScopeTier: "sandboxed" },
    },
    { type: "session:turn_started" },
    {
      type: "session:turn_completed",
      stopReason: "stop",
      tokensUsed: { input: 1, output: 2, model: "m" },
      toolHistory: [{
        call: {
          type: "tool_call",
          id: "session-tool:1:0",
          name: "read_file",
          argsBytes: 2,
        },
        result: {
          type: "tool_result",
          toolCallId: "session-tool:1:0",
          resultBytes: 5,
          outcome: "ok",
        },
      }],
    },
    {
      type: "session:turn_completed",
      stopReason: "error",
      tokensUsed: { input: 0, output: 0 },
      error: { code: "turn_limit", message: "x", retryable: false },
    },
    { type: "session:cancelled" },
    { type: "session:exported", workflowPath: "/w/x.relavium.yaml" },
    { type: "agent:token", nodeId: "a", token: "t", model: "m" },
    {
      type: "agent:tool_call",
      nodeId: "a",
      model: "m",
      toolId: "read_file",
      toolInput: { path: "a" },
      toolCallId: "session-tool:1:0",
      attemptNumber: 1,
    },
    {
      type: "agent:tool_result",
      nodeId: "a",
      toolId: "read_file",
      success: true,
      outputSummary: "ok",
      toolCallId: "session-tool:1:0",
    },
    {
      type: "cost:updated",
      nodeId: "a",
      model: "m",
      inputTokens: 1,
      outputTokens: 1,
      costMicrocents: 0,
      cumulativeCostMicrocents: 0,
      attemptNumber: 1,
      priced: false,
    },
  ];
  for (const e of good) {
    const r = parseSessionEvent({ ...e, ...ENV });
    assert.ok(r.ok, `${e.type}: ${JSON.stringify(r)}`);
  }
  assert.equal(
    parseSessionEvent({ type: "session:cancelled", ...ENV, extra: 1 }).ok,
    false,
  );
  assert.equal(
    parseSessionEvent({ type: "session:unknown", ...ENV }).ok,
    false,
  );
  assert.equal(
    parseSessionEvent({ type: "session:cancelled", ...ENV, sequenceNumber: -1 })
      .ok,
    false,
  );
});

Deno.test("parseSessionEvent() accepts older compacted/trimmed events without keptTurnCount", () => {
  const compacted = {
    type: "session:compacted",
    ...ENV,
    reason: "manual",
    summary: "so far",
    keptMessageCount: 2,
    tokensBefore: 100,
    tokensAfter: 20,
    tokensUsed: { input: 50, output: 10 },
  };
  const trimmed = {
    type: "session:trimmed",
    ...ENV,
    reason: "manual",
    keptMessageCount: 2,
    droppedMessageCount: 4,
  };
  for (const older of [compacted, trimmed]) {
    const r = parseSessionEvent(older);
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.value, older, "nothing is invented");
    assert.ok(parseSessionEvent({ ...older, keptTurnCount: 1 }).ok);
    for (const bad of [-1, 1.5, "1", null]) {
      const refused = parseSessionEvent({ ...older, keptTurnCount: bad });
      assert.ok(!refused.ok, `keptTurnCount ${JSON.stringify(bad)}`);
      assert.equal(refused.error[0]?.path, "keptTurnCount");
    }
  }
});

Deno.test("parseSessionMessage() refuses raw tool values, bad ids and misplaced markers", () => {
  const row = {
    id: "m",
    sessionId: "s",
    sequenceNumber: 1,
    timestamp: "2026-01-01T00:00:00.000Z",
  };
  const bad = [
    {
      ...row,
      role: "assistant",
      content: [{
        type: "tool_call",
        id: "session-tool:1:0",
        name: "read_file",
        argsBytes: 2,
        args: {},
      }],
    },
    {
      ...row,
      role: "tool",
      content: [{
        type: "tool_result",
        toolCallId: "session-tool:1:0",
        resultBytes: 2,
        outcome: "ok",
        result: "x",
      }],
    },
    {
      ...row,
      role: "assistant",
      content: [{ type: "reasoning", text: "t", signature: "sig" }],
    },
    {
      ...row,
      role: "assistant",
      content: [{
        type: "tool_call",
        id: "toolu_01",
        name: "read_file",
        argsBytes: 2,
      }],
    },
    {
      ...row,
      role: "assistant",
      content: [{
        type: "tool_call",
        id: "session-tool:01:0",
        name: "read_file",
        argsBytes: 2,
      }],
    },
    {
      ...row,
      role: "user",
      content: [{ type: "text", text: "x" }],
      compaction: { droppedThroughSequence: 1 },
    },
    {
      ...row,
      role: "user",
      content: [{
        type: "media",
        mimeType: "image/png",
        source: { kind: "url", ref: "https://x" },
      }],
    },
    {
      ...row,
      role: "user",
      content: [{
        type: "media",
        mimeType: "image/png",
        source: { kind: "handle", ref: "media://sha256-" + "a".repeat(64) },
        durationMs: 5,
      }],
    },
  ];
  for (const m of bad) {
    assert.equal(parseSessionMessage(m).ok, false, JSON.stringify(m.content));
  }
  assert.ok(
    parseSessionMessage({
      ...row,
      role: "system",
      content: [],
      compaction: { droppedThroughSequence: 0 },
    }).ok,
  );
});
