/**
 * Validation of message rows on write and read (store.md §7): the strict
 * body, then the optional denormalized metadata columns, which must equal
 * what the body implies (NULL when absent). Failures throw a
 * {@linkcode SessionMessageBoundaryError} with a fixed code.
 *
 * @module
 */
import {
  sessionContentPartSchema,
  type SessionMessage,
  sessionMessageSchema,
  type SessionToolCallPart,
} from "../schema/message.ts";
import { SessionMessageBoundaryError } from "./errors.ts";
import { type DecodeMemo, isPlainlyValidMessage } from "./fast_check.ts";
import { messageText } from "./projection.ts";

/** Provider stop reasons allowed in `finish_reason`. */
const FINISH_REASONS: ReadonlySet<string> = new Set([
  "stop",
  "length",
  "tool_use",
  "content_filter",
  "error",
]);

/**
 * A `session_messages` row as SQLite returns it (values unchecked).
 *
 * @example Value
 * ```ts
 * import type { MessageRow } from "./message_codec.ts";
 * const r: MessageRow = {
 *   id: "m", session_id: "s", sequence_number: 0, role: "user", content: null,
 *   content_parts: '[{"type":"text","text":"hi"}]', tool_calls: null, tool_call_id: null,
 *   name: null, finish_reason: null, model_id: null, created_at: 0,
 *   compaction_dropped_through_sequence: null,
 * };
 * ```
 */
export interface MessageRow {
  /** `id` column. */
  id: unknown;
  /** `session_id` column. */
  session_id: unknown;
  /** `sequence_number` column. */
  sequence_number: unknown;
  /** `role` column. */
  role: unknown;
  /** `content` column (optional text projection). */
  content: unknown;
  /** `content_parts` column (canonical JSON body). */
  content_parts: unknown;
  /** `tool_calls` column (optional JSON copy of the call parts). */
  tool_calls: unknown;
  /** `tool_call_id` column (optional id of the single result). */
  tool_call_id: unknown;
  /** `name` column (optional name of the single call). */
  name: unknown;
  /** `finish_reason` column (optional provider stop reason). */
  finish_reason: unknown;
  /** `model_id` column. */
  model_id: unknown;
  /** `created_at` column (epoch ms). */
  created_at: unknown;
  /** `compaction_dropped_through_sequence` column. */
  compaction_dropped_through_sequence: unknown;
}

/**
 * Builds a {@linkcode MessageRow} from a row read as an array in
 * `MESSAGE_COLUMN_ORDER` (id, session_id, sequence_number, role, content,
 * content_parts, tool_calls, tool_call_id, name, finish_reason, model_id,
 * created_at, compaction_dropped_through_sequence).
 *
 * @param a The row values.
 * @returns The row as an object.
 *
 * @example From an array
 * ```ts
 * import { messageRowFromArray } from "./message_codec.ts";
 * import assert from "node:assert/strict";
 * const r = messageRowFromArray(["m", "s", 0, "user", null, "[]", null, null, null, null, null, 0, null]);
 * assert.equal(r.content_parts, "[]");
 * ```
 */
export function messageRowFromArray(a: readonly unknown[]): MessageRow {
  return {
    id: a[0],
    session_id: a[1],
    sequence_number: a[2],
    role: a[3],
    content: a[4],
    content_parts: a[5],
    tool_calls: a[6],
    tool_call_id: a[7],
    name: a[8],
    finish_reason: a[9],
    model_id: a[10],
    created_at: a[11],
    compaction_dropped_through_sequence: a[12],
  };
}

/**
 * Validates a message strictly (unknown keys refused, never stripped).
 *
 * @param candidate The message to check.
 * @param memo A per-read memo (optional).
 * @returns The message, typed.
 * @throws {SessionMessageBoundaryError} `invalid_message` when it is not a
 * valid {@linkcode SessionMessage}.
 *
 * @example Refuse raw arguments
 * ```ts
 * import { checkMessage } from "./message_codec.ts";
 * import assert from "node:assert/strict";
 * assert.throws(() => checkMessage({
 *   id: "m", sessionId: "s", sequenceNumber: 1, role: "assistant", timestamp: "2026-01-01T00:00:00.000Z",
 *   content: [{ type: "tool_call", id: "session-tool:1:0", name: "read_file", argsBytes: 2, args: {} }],
 * }), { code: "invalid_message" });
 * ```
 */
export function checkMessage(
  candidate: unknown,
  memo?: DecodeMemo,
): SessionMessage {
  if (isPlainlyValidMessage(candidate, memo)) {
    return candidate as SessionMessage;
  }
  const r = sessionMessageSchema.safeParse(candidate);
  if (!r.success) throw new SessionMessageBoundaryError("invalid_message");
  return r.data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SessionMessageBoundaryError("malformed_json");
  }
}

function epochToIso(value: unknown, memo: DecodeMemo): string {
  if (value === memo.epoch) return memo.iso;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new SessionMessageBoundaryError("invalid_message");
  }
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) {
    throw new SessionMessageBoundaryError("invalid_message");
  }
  return d.toISOString();
}

/**
 * Decodes and re-validates one stored row: body first, then metadata.
 *
 * @param row The raw row.
 * @param memo A memo shared by the rows of one read (optional).
 * @returns The domain message (timestamps ISO-8601).
 * @throws {SessionMessageBoundaryError} With a fixed code on any
 * corruption: `malformed_json`, `invalid_message`, `invalid_metadata` or
 * `metadata_mismatch`.
 *
 * @example A content column that disagrees with the body
 * ```ts
 * import { decodeMessageRow } from "./message_codec.ts";
 * import assert from "node:assert/strict";
 * const row = {
 *   id: "m", session_id: "s", sequence_number: 0, role: "user", content: "other",
 *   content_parts: '[{"type":"text","text":"hi"}]', tool_calls: null, tool_call_id: null,
 *   name: null, finish_reason: null, model_id: null, created_at: 0,
 *   compaction_dropped_through_sequence: null,
 * };
 * assert.throws(() => decodeMessageRow(row), { code: "metadata_mismatch" });
 * assert.equal(decodeMessageRow({ ...row, content: "hi" }).timestamp, "1970-01-01T00:00:00.000Z");
 * ```
 */
export function decodeMessageRow(
  row: MessageRow,
  memo: DecodeMemo = { epoch: Number.NaN, iso: "" },
): SessionMessage {
  if (typeof row.content_parts !== "string") {
    throw new SessionMessageBoundaryError("invalid_message");
  }
  const candidate: Record<string, unknown> = {
    id: row.id,
    sessionId: row.session_id,
    sequenceNumber: row.sequence_number,
    role: row.role,
    content: parseJson(row.content_parts),
    timestamp: epochToIso(row.created_at, memo),
  };
  if (row.model_id !== null) candidate["modelId"] = row.model_id;
  if (row.compaction_dropped_through_sequence !== null) {
    candidate["compaction"] = {
      droppedThroughSequence: row.compaction_dropped_through_sequence,
    };
  }
  const message = checkMessage(candidate, memo);
  checkMetadata(message, row);
  return message;
}

function optionalString(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== "string") {
    throw new SessionMessageBoundaryError("invalid_metadata");
  }
  return value;
}

function sameCall(a: SessionToolCallPart, b: SessionToolCallPart): boolean {
  return a.id === b.id && a.name === b.name && a.argsBytes === b.argsBytes;
}

function checkToolCalls(
  column: string,
  calls: SessionToolCallPart[],
): void {
  const value = parseJson(column);
  if (!Array.isArray(value)) {
    throw new SessionMessageBoundaryError("invalid_metadata");
  }
  const parsed: SessionToolCallPart[] = [];
  for (const item of value) {
    const r = sessionContentPartSchema.safeParse(item);
    if (!r.success || r.data.type !== "tool_call") {
      throw new SessionMessageBoundaryError("invalid_metadata");
    }
    parsed.push(r.data);
  }
  const same = parsed.length === calls.length &&
    parsed.every((p, i) => {
      const c = calls[i];
      return c !== undefined && sameCall(p, c);
    });
  if (!same) throw new SessionMessageBoundaryError("metadata_mismatch");
}

/**
 * Checks the optional metadata columns of a row against its validated
 * body (store.md §7). NULL columns are always fine.
 *
 * @param message The validated body.
 * @param row The raw metadata columns.
 * @throws {SessionMessageBoundaryError} `invalid_metadata`,
 * `metadata_mismatch` or `malformed_json`.
 *
 * @example All-NULL metadata passes
 * ```ts
 * import { checkMetadata } from "./message_codec.ts";
 * checkMetadata(
 *   { id: "m", sessionId: "s", sequenceNumber: 0, role: "user", content: [], timestamp: "2026-01-01T00:00:00.000Z" },
 *   { content: null, tool_calls: null, tool_call_id: null, name: null, finish_reason: null },
 * );
 * ```
 */
export function checkMetadata(
  message: SessionMessage,
  row: Pick<
    MessageRow,
    "content" | "tool_calls" | "tool_call_id" | "name" | "finish_reason"
  >,
): void {
  const content = optionalString(row.content);
  const toolCalls = optionalString(row.tool_calls);
  const toolCallId = optionalString(row.tool_call_id);
  const name = optionalString(row.name);
  const finishReason = optionalString(row.finish_reason);

  const calls: SessionToolCallPart[] = [];
  const resultIds: string[] = [];
  for (const part of message.content) {
    if (part.type === "tool_call") calls.push(part);
    else if (part.type === "tool_result") resultIds.push(part.toolCallId);
  }
  if (finishReason !== undefined) {
    if (!FINISH_REASONS.has(finishReason) || message.role !== "assistant") {
      throw new SessionMessageBoundaryError("invalid_metadata");
    }
  }
  if (content !== undefined && content !== messageText(message)) {
    throw new SessionMessageBoundaryError("metadata_mismatch");
  }
  if (toolCalls !== undefined) checkToolCalls(toolCalls, calls);
  if (
    name !== undefined && (calls.length !== 1 || calls[0]?.name !== name)
  ) {
    throw new SessionMessageBoundaryError("metadata_mismatch");
  }
  if (
    toolCallId !== undefined &&
    (resultIds.length !== 1 || resultIds[0] !== toolCallId)
  ) {
    throw new SessionMessageBoundaryError("metadata_mismatch");
  }
}
