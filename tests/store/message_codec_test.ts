/** The message_codec.ts internals, case by case. */
import assert from "node:assert/strict";
import {
  checkMessage,
  checkMetadata,
  decodeLeanRow,
  decodeMessageArray,
  decodeMessageRow,
  messageRowFromArray,
} from "../../store/message_codec.ts";

Deno.test("messageRowFromArray() maps an array row to its columns", () => {
  const r = messageRowFromArray([
    "m",
    "s",
    0,
    "user",
    null,
    "[]",
    null,
    null,
    null,
    null,
    null,
    0,
    null,
  ]);
  assert.equal(r.content_parts, "[]");
});

Deno.test("checkMessage() refuses raw tool-call arguments", () => {
  assert.throws(() =>
    checkMessage({
      id: "m",
      sessionId: "s",
      sequenceNumber: 1,
      role: "assistant",
      timestamp: "2026-01-01T00:00:00.000Z",
      content: [{
        type: "tool_call",
        id: "session-tool:1:0",
        name: "read_file",
        argsBytes: 2,
        args: {},
      }],
    }), { code: "invalid_message" });
});

Deno.test("decodeMessageArray() decodes as the object form does", () => {
  const m = decodeMessageArray(
    [
      "m",
      "s",
      0,
      "user",
      "hi",
      '[{"type":"text","text":"hi"}]',
      null,
      null,
      null,
      null,
      null,
      0,
      null,
    ],
    { epoch: Number.NaN, iso: "" },
  );
  assert.equal(m.timestamp, "1970-01-01T00:00:00.000Z");
});

Deno.test("decodeLeanRow() decodes a user row", () => {
  const m = decodeLeanRow(
    ["m", 0, "user", '[{"type":"text","text":"hi"}]', null, 0],
    "s",
    { epoch: Number.NaN, iso: "" },
  );
  assert.equal(m.role, "user");
  assert.equal(m.sessionId, "s");
});

Deno.test("decodeMessageRow() refuses a content column that disagrees with the body", () => {
  const row = {
    id: "m",
    session_id: "s",
    sequence_number: 0,
    role: "user",
    content: "other",
    content_parts: '[{"type":"text","text":"hi"}]',
    tool_calls: null,
    tool_call_id: null,
    name: null,
    finish_reason: null,
    model_id: null,
    created_at: 0,
    compaction_dropped_through_sequence: null,
  };
  assert.throws(() => decodeMessageRow(row), { code: "metadata_mismatch" });
  assert.equal(
    decodeMessageRow({ ...row, content: "hi" }).timestamp,
    "1970-01-01T00:00:00.000Z",
  );
});

Deno.test("checkMetadata() passes all-NULL metadata", () => {
  checkMetadata(
    {
      id: "m",
      sessionId: "s",
      sequenceNumber: 0,
      role: "user",
      content: [],
      timestamp: "2026-01-01T00:00:00.000Z",
    },
    {
      content: null,
      tool_calls: null,
      tool_call_id: null,
      name: null,
      finish_reason: null,
    },
  );
});
