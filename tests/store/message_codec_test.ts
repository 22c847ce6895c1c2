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

/**
 * A stored user row in array form (the column order of the messages
 * table): message `m` of session `s`, its content and parts, the rest null
 * but `created_at` 0.
 */
function userArray(
  content: string | null,
  parts: string,
): Parameters<typeof messageRowFromArray>[0] {
  return ["m", "s", 0, "user", content, parts, ...nulls(5), 0, null];
}

function nulls(n: number): null[] {
  return Array.from({ length: n }, () => null);
}

Deno.test("messageRowFromArray() maps an array row to its columns", () => {
  const r = messageRowFromArray(userArray(null, "[]"));
  assert.equal(r.content_parts, "[]");
});

Deno.test("checkMessage() refuses raw tool-call arguments", () => {
  const call = {
    type: "tool_call",
    id: "session-tool:1:0",
    name: "read_file",
    argsBytes: 2,
  };
  assert.throws(() =>
    checkMessage({
      id: "m",
      sessionId: "s",
      sequenceNumber: 1,
      role: "assistant",
      timestamp: "2026-01-01T00:00:00.000Z",
      content: [{ ...call, args: {} }],
    }), { code: "invalid_message" });
});

Deno.test("decodeMessageArray() decodes as the object form does", () => {
  const m = decodeMessageArray(
    userArray("hi", '[{"type":"text","text":"hi"}]'),
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
  // The row of userArray's columns (see the messageRowFromArray() test).
  const row = messageRowFromArray(
    userArray("other", '[{"type":"text","text":"hi"}]'),
  );
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
