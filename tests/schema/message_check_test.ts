import assert from "node:assert/strict";
import { z } from "zod";
import {
  ISO_DATETIME,
  isSessionContentPart,
  isSessionMessage,
} from "../../schema/message_check.ts";
import {
  sessionContentPartSchema,
  sessionMessageSchema,
} from "../../schema/message.ts";
import { assertSameAcceptance } from "./_mutations.ts";

const HANDLE = { kind: "handle", ref: `media://sha256-${"a".repeat(64)}` };

const BASES: unknown[] = [
  {
    id: "m1",
    sessionId: "s1",
    sequenceNumber: 0,
    role: "user",
    content: [{ type: "text", text: "hi" }],
    timestamp: "2026-01-01T00:00:00.000Z",
  },
  {
    id: "m2",
    sessionId: "s1",
    sequenceNumber: 3,
    role: "assistant",
    modelId: "gpt-5.4-mini",
    content: [
      { type: "reasoning", text: "r", redacted: true },
      {
        type: "tool_call",
        id: "session-tool:12:0",
        name: "read_file",
        argsBytes: 9,
      },
      { type: "text", text: "" },
    ],
    timestamp: "2024-02-29T23:59:59+02:00",
  },
  {
    id: "m3",
    sessionId: "s1",
    sequenceNumber: 4,
    role: "tool",
    content: [{
      type: "tool_result",
      toolCallId: "session-tool:12:0",
      resultBytes: 0,
      outcome: "denied",
      media: {
        type: "media",
        mimeType: "audio/ogg",
        source: HANDLE,
        byteLength: 5,
        durationMs: 7,
      },
    }],
    timestamp: "2026-12-02T10:11:12.123456Z",
  },
  {
    id: "m4",
    sessionId: "s1",
    sequenceNumber: 5,
    role: "user",
    content: [{
      type: "media",
      mimeType: "image/png",
      source: HANDLE,
      name: "a.png",
      transcript: "t",
      byteLength: 0,
    }, {
      type: "media",
      mimeType: "video/mp4",
      source: HANDLE,
      durationMs: 1,
    }],
    timestamp: "2026-12-02T10:11:12-05:30",
  },
  {
    id: "m5",
    sessionId: "s1",
    sequenceNumber: 6,
    role: "system",
    compaction: { droppedThroughSequence: -1 },
    content: [{ type: "text", text: "summary" }],
    timestamp: "2026-12-02T10:11:12Z",
  },
];

Deno.test("isSessionMessage() accepts exactly what sessionMessageSchema accepts", () => {
  assertSameAcceptance(BASES, isSessionMessage, sessionMessageSchema, {
    accepted: 50,
    refused: 500,
  });
});

Deno.test("ISO_DATETIME is zod's datetime pattern with offsets", () => {
  const zodPattern = z.iso.datetime({ offset: true })._zod.def.pattern;
  assert.equal(ISO_DATETIME.source, zodPattern?.source);
  for (
    const stamp of [
      "2023-02-29T00:00:00Z",
      "2026-01-01T24:00:00Z",
      "2026-01-01T00:00Z",
      "2026-01-01 00:00:00Z",
    ]
  ) {
    assert.equal(
      isSessionMessage({ ...BASES[0] as object, timestamp: stamp }),
      false,
      stamp,
    );
  }
});

Deno.test("isSessionContentPart() accepts exactly what sessionContentPartSchema accepts", () => {
  const parts = BASES.flatMap((m) => (m as { content: unknown[] }).content);
  assertSameAcceptance(parts, isSessionContentPart, sessionContentPartSchema, {
    accepted: 20,
    refused: 300,
  });
});
