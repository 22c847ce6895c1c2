import assert from "node:assert/strict";
import { z } from "zod";
import {
  isSessionContentPart,
  isSessionMessage,
} from "../../schema/message_check.ts";
import { ISO_DATETIME } from "../../schema/_patterns.ts";
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

/** Per top-level field: values to try, `ABSENT` meaning the key is dropped. */
const ABSENT = Symbol("absent");
const FIELD_VALUES: Record<string, readonly unknown[]> = {
  id: [ABSENT, "m9", "", 1, null],
  sessionId: [ABSENT, "s2", "", 1, null],
  sequenceNumber: [ABSENT, 0, 7, -1, 1.5, "1", null],
  role: [ABSENT, "system", "user", "assistant", "tool", "bot", 1, null],
  content: [ABSENT, [], [{ type: "text", text: "x" }], [{ type: "x" }], {}, ""],
  modelId: [ABSENT, "gpt-5.4-mini", "", 1, null, undefined],
  compaction: [
    ABSENT,
    { droppedThroughSequence: -1 },
    { droppedThroughSequence: 12 },
    { droppedThroughSequence: -2 },
    { droppedThroughSequence: 1.5 },
    { droppedThroughSequence: 1, extra: 1 },
    {},
    null,
    "x",
    undefined,
  ],
  timestamp: [
    ABSENT,
    "2026-01-01T00:00:00.000Z",
    "2026-01-01T00:00:00+01:00",
    "2026-01-01",
    "",
    0,
    null,
  ],
};

/** Every base with each pair of top-level fields set to each value pair. */
function pairMutations(bases: readonly unknown[]): unknown[] {
  const keys = Object.keys(FIELD_VALUES);
  const out: unknown[] = [];
  const set = (o: Record<string, unknown>, k: string, v: unknown) => {
    if (v === ABSENT) delete o[k];
    else o[k] = structuredClone(v);
  };
  for (const base of bases) {
    for (let i = 0; i < keys.length; i++) {
      for (let j = i + 1; j < keys.length; j++) {
        const a = keys[i] as string;
        const b = keys[j] as string;
        for (const va of FIELD_VALUES[a] ?? []) {
          for (const vb of FIELD_VALUES[b] ?? []) {
            const o = structuredClone(base) as Record<string, unknown>;
            set(o, a, va);
            set(o, b, vb);
            out.push(o);
          }
        }
      }
    }
  }
  return out;
}

Deno.test("isSessionMessage() agrees with sessionMessageSchema on every two-field mutation (e.g. compaction × role)", () => {
  let accepted = 0;
  let refused = 0;
  let compactionOnNonSystem = 0;
  for (const v of pairMutations(BASES)) {
    const want = sessionMessageSchema.safeParse(v).success;
    assert.equal(isSessionMessage(v), want, JSON.stringify(v));
    if (want) accepted++;
    else refused++;
    const o = v as Record<string, unknown>;
    if (
      o["compaction"] !== undefined && o["role"] !== "system" &&
      typeof o["role"] === "string"
    ) compactionOnNonSystem++;
  }
  assert.ok(accepted >= 400 && refused >= 5000, `${accepted}/${refused}`);
  assert.ok(compactionOnNonSystem > 0);
});

Deno.test("a compaction marker is refused on every role but system, by both", () => {
  const base = BASES[4] as Record<string, unknown>;
  for (const role of ["user", "assistant", "tool"]) {
    const v = { ...base, role };
    assert.equal(sessionMessageSchema.safeParse(v).success, false, role);
    assert.equal(isSessionMessage(v), false, role);
  }
  assert.equal(isSessionMessage(base), true);
});
