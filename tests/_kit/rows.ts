/**
 * Test helper: builders of stored message rows for one session, shared by
 * the store and export tests (each fixes its own session id, timestamp
 * and sizes).
 *
 * @module
 */
import type {
  SessionContentPart,
  SessionMessage,
} from "../../schema/message.ts";

/** What differs between the suites' rows. */
export interface RowKitOptions {
  sessionId: string;
  timestamp: string;
  /** `argsBytes` of every tool call. */
  argsBytes: number;
  /** `resultBytes` of every tool result. */
  resultBytes: number;
  /** `modelId` of terminal replies (absent ⇒ none). */
  replyModelId?: string;
}

/** The builders. */
export interface RowKit {
  row(
    seq: number,
    role: SessionMessage["role"],
    content: SessionContentPart[],
  ): SessionMessage;
  user(seq: number, text: string): SessionMessage;
  reply(seq: number, text: string): SessionMessage;
  /** An assistant tool-round row: one call per `[slot, tool name]`. */
  toolCalls(
    seq: number,
    turnKey: number,
    names: Array<[slot: number, name: string]>,
    preamble?: string,
  ): SessionMessage;
  /** A tool row with one ok result per slot. */
  results(seq: number, turnKey: number, slots: number[]): SessionMessage;
  /** A system boundary marker (`summary` undefined ⇒ a trim marker). */
  marker(seq: number, droppedThrough: number, summary?: string): SessionMessage;
}

/**
 * Row builders for one session.
 *
 * @example
 * ```ts
 * const kit = rowKit({ sessionId: "s", timestamp: "2026-01-01T00:00:00.000Z", argsBytes: 10, resultBytes: 5 });
 * kit.user(1, "hi");
 * ```
 */
export function rowKit(o: RowKitOptions): RowKit {
  const row = (
    seq: number,
    role: SessionMessage["role"],
    content: SessionContentPart[],
  ): SessionMessage => ({
    id: `m${seq}`,
    sessionId: o.sessionId,
    sequenceNumber: seq,
    role,
    content,
    timestamp: o.timestamp,
  });
  return {
    row,
    user: (seq, text) => row(seq, "user", [{ type: "text", text }]),
    reply: (seq, text) => {
      const r = row(seq, "assistant", [{ type: "text", text }]);
      return o.replyModelId === undefined
        ? r
        : { ...r, modelId: o.replyModelId };
    },
    toolCalls(seq, turnKey, names, preamble) {
      const parts: SessionContentPart[] = preamble === undefined
        ? []
        : [{ type: "text", text: preamble }];
      for (const [slot, name] of names) {
        parts.push({
          type: "tool_call",
          id: `session-tool:${turnKey}:${slot}`,
          name,
          argsBytes: o.argsBytes,
        });
      }
      return row(seq, "assistant", parts);
    },
    results: (seq, turnKey, slots) =>
      row(
        seq,
        "tool",
        slots.map((slot) => ({
          type: "tool_result" as const,
          toolCallId: `session-tool:${turnKey}:${slot}`,
          resultBytes: o.resultBytes,
          outcome: "ok" as const,
        })),
      ),
    marker: (seq, droppedThrough, summary) => ({
      ...row(
        seq,
        "system",
        summary === undefined ? [] : [{ type: "text", text: summary }],
      ),
      compaction: { droppedThroughSequence: droppedThrough },
    }),
  };
}
