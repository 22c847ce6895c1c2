/** Row builders shared by the store tests. */
import type {
  SessionContentPart,
  SessionMessage,
} from "../../schema/message.ts";

const AT = "2026-01-01T00:00:00.000Z";

/** A row with arbitrary parts. */
export function row(
  seq: number,
  role: SessionMessage["role"],
  content: SessionContentPart[],
): SessionMessage {
  return {
    id: `m${seq}`,
    sessionId: "s",
    sequenceNumber: seq,
    role,
    content,
    timestamp: AT,
  };
}

/** A user row with one text part. */
export function user(seq: number, text: string): SessionMessage {
  return row(seq, "user", [{ type: "text", text }]);
}

/** An assistant row with one text part (a terminal row). */
export function reply(seq: number, text: string): SessionMessage {
  return row(seq, "assistant", [{ type: "text", text }]);
}

/** An assistant tool-round row, optionally with preamble text. */
export function calls(
  seq: number,
  turnKey: number,
  slots: number[],
  preamble?: string,
): SessionMessage {
  const parts: SessionContentPart[] = preamble === undefined
    ? []
    : [{ type: "text", text: preamble }];
  for (const slot of slots) {
    parts.push({
      type: "tool_call",
      id: `session-tool:${turnKey}:${slot}`,
      name: "read_file",
      argsBytes: 10,
    });
  }
  return row(seq, "assistant", parts);
}

/** A tool row with one ok result per slot. */
export function results(
  seq: number,
  turnKey: number,
  slots: number[],
): SessionMessage {
  return row(
    seq,
    "tool",
    slots.map((slot) => ({
      type: "tool_result" as const,
      toolCallId: `session-tool:${turnKey}:${slot}`,
      resultBytes: 5,
      outcome: "ok" as const,
    })),
  );
}

/** A system boundary marker (`summary` undefined ⇒ a trim marker). */
export function marker(
  seq: number,
  droppedThrough: number,
  summary?: string,
): SessionMessage {
  return {
    ...row(
      seq,
      "system",
      summary === undefined ? [] : [{ type: "text", text: summary }],
    ),
    compaction: { droppedThroughSequence: droppedThrough },
  };
}
