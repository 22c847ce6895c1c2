/**
 * Validation of message rows on write and read: the strict
 * body, then the optional denormalized metadata columns, which must equal
 * what the body implies (NULL when absent). Failures throw a
 * {@linkcode SessionMessageBoundaryError} with a fixed code.
 *
 * @module
 */
import type { SessionMessage, SessionToolCallPart } from "../schema/message.ts";
import {
  isSessionContentPart,
  isSessionMessage,
} from "../schema/message_check.ts";
import { SessionMessageBoundaryError } from "./errors.ts";
import { plainObject } from "./plain_object.ts";
import { messageText } from "./projection.ts";

/**
 * Per-read memo: rows of one turn share a timestamp, so the last epoch-ms
 * value converted (and its ISO-8601 form) is remembered.
 */
export interface DecodeMemo {
  /** The last epoch-ms value converted. */
  epoch: number;
  /** Its ISO-8601 form. */
  iso: string;
}

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
 */
export function checkMessage(
  candidate: unknown,
): SessionMessage {
  // Exactly the schema's acceptance, without loading zod.
  if (!isSessionMessage(candidate)) {
    throw new SessionMessageBoundaryError("invalid_message");
  }
  return candidate;
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
  if (Number.isNaN(new Date(value).getTime())) {
    throw new SessionMessageBoundaryError("invalid_message");
  }
  memo.epoch = value;
  memo.iso = new Date(value).toISOString();
  return memo.iso;
}

/** The role literal for a stored role (a shared string, not a copy). */
function internRole(role: unknown): unknown {
  switch (role) {
    case "user":
      return "user";
    case "assistant":
      return "assistant";
    case "tool":
      return "tool";
    case "system":
      return "system";
    default:
      return role;
  }
}

function decodeBody(
  id: unknown,
  sessionId: unknown,
  sequenceNumber: unknown,
  role: unknown,
  contentParts: unknown,
  modelId: unknown,
  createdAt: unknown,
  dropped: unknown,
  memo: DecodeMemo,
): SessionMessage {
  if (typeof contentParts !== "string") {
    throw new SessionMessageBoundaryError("invalid_message");
  }
  const content = parseJson(contentParts);
  const timestamp = createdAt === memo.epoch
    ? memo.iso
    : epochToIso(createdAt, memo);
  // Stored field by field, not a literal: see plain_object.ts.
  const candidate = plainObject();
  candidate["id"] = id;
  candidate["sessionId"] = sessionId;
  candidate["sequenceNumber"] = sequenceNumber;
  candidate["role"] = internRole(role);
  candidate["content"] = content;
  candidate["timestamp"] = timestamp;
  if (modelId !== null) candidate["modelId"] = modelId;
  if (dropped !== null) {
    candidate["compaction"] = { droppedThroughSequence: dropped };
  }
  return checkMessage(candidate);
}

/**
 * {@linkcode decodeMessageRow} for a row read as an array in
 * `MESSAGE_COLUMN_ORDER` (see {@linkcode messageRowFromArray}), without
 * building the intermediate row object.
 *
 * @param a The row values.
 * @param memo A memo shared by the rows of one read.
 * @returns The domain message (timestamps ISO-8601).
 * @throws {SessionMessageBoundaryError} As {@linkcode decodeMessageRow}.
 */
export function decodeMessageArray(
  a: readonly unknown[],
  memo: DecodeMemo,
): SessionMessage {
  const message = decodeBody(
    a[0],
    a[1],
    a[2],
    a[3],
    a[5],
    a[10],
    a[11],
    a[12],
    memo,
  );
  if (
    a[4] !== null || a[6] !== null || a[7] !== null || a[8] !== null ||
    a[9] !== null
  ) {
    checkMetadataValues(message, a[4], a[6], a[7], a[8], a[9]);
  }
  return message;
}

/**
 * {@linkcode decodeMessageArray} for a regular row read by a lean page
 * statement (`LEAN_COLUMN_ORDER` in sqlite_statements.ts: id,
 * sequence_number, role, content_parts, model_id, created_at). SQLite has
 * already checked what the lean columns leave out: the `session_id` equals
 * the session row's id byte for byte and the metadata columns are NULL,
 * which always pass. The body is validated as for any row.
 *
 * @param a The lean row values (`role` a string).
 * @param sessionId The session row's id (the rows' `session_id`).
 * @param memo A memo shared by the rows of one read.
 * @returns The domain message (timestamps ISO-8601).
 * @throws {SessionMessageBoundaryError} `malformed_json` or
 * `invalid_message`, as {@linkcode decodeMessageRow}.
 */
export function decodeLeanRow(
  a: readonly unknown[],
  sessionId: string,
  memo: DecodeMemo,
): SessionMessage {
  return decodeBody(
    a[0],
    sessionId,
    a[1],
    a[2],
    a[3],
    a[4],
    a[5],
    null,
    memo,
  );
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
 */
export function decodeMessageRow(
  row: MessageRow,
  memo: DecodeMemo = { epoch: Number.NaN, iso: "" },
): SessionMessage {
  const message = decodeBody(
    row.id,
    row.session_id,
    row.sequence_number,
    row.role,
    row.content_parts,
    row.model_id,
    row.created_at,
    row.compaction_dropped_through_sequence,
    memo,
  );
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
  content: SessionMessage["content"],
  callCount: number,
): void {
  const value = parseJson(column);
  if (!Array.isArray(value)) {
    throw new SessionMessageBoundaryError("invalid_metadata");
  }
  const parsed: SessionToolCallPart[] = [];
  for (const item of value) {
    if (!isSessionContentPart(item) || item.type !== "tool_call") {
      throw new SessionMessageBoundaryError("invalid_metadata");
    }
    parsed.push(item);
  }
  let same = parsed.length === callCount;
  let i = 0;
  for (const part of content) {
    if (!same) break;
    if (part.type !== "tool_call") continue;
    const p = parsed[i++];
    same = p !== undefined && sameCall(p, part);
  }
  if (!same) throw new SessionMessageBoundaryError("metadata_mismatch");
}

/**
 * Checks the optional metadata columns of a row against its validated
 * body. NULL columns are always fine.
 *
 * @param message The validated body.
 * @param row The raw metadata columns.
 * @throws {SessionMessageBoundaryError} `invalid_metadata`,
 * `metadata_mismatch` or `malformed_json`.
 */
export function checkMetadata(
  message: SessionMessage,
  row: Pick<
    MessageRow,
    "content" | "tool_calls" | "tool_call_id" | "name" | "finish_reason"
  >,
): void {
  checkMetadataValues(
    message,
    row.content,
    row.tool_calls,
    row.tool_call_id,
    row.name,
    row.finish_reason,
  );
}

function checkMetadataValues(
  message: SessionMessage,
  contentColumn: unknown,
  toolCallsColumn: unknown,
  toolCallIdColumn: unknown,
  nameColumn: unknown,
  finishReasonColumn: unknown,
): void {
  const content = optionalString(contentColumn);
  const toolCalls = optionalString(toolCallsColumn);
  const toolCallId = optionalString(toolCallIdColumn);
  const name = optionalString(nameColumn);
  const finishReason = optionalString(finishReasonColumn);

  let callCount = 0;
  let firstCallName: string | undefined;
  let resultCount = 0;
  let firstResultId: string | undefined;
  const parts = message.content;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as SessionMessage["content"][number];
    if (part.type === "tool_call") {
      if (callCount++ === 0) firstCallName = part.name;
    } else if (part.type === "tool_result") {
      if (resultCount++ === 0) firstResultId = part.toolCallId;
    }
  }
  if (finishReason !== undefined) {
    if (!FINISH_REASONS.has(finishReason) || message.role !== "assistant") {
      throw new SessionMessageBoundaryError("invalid_metadata");
    }
  }
  if (content !== undefined && content !== messageText(message)) {
    throw new SessionMessageBoundaryError("metadata_mismatch");
  }
  if (toolCalls !== undefined) {
    checkToolCalls(toolCalls, message.content, callCount);
  }
  if (name !== undefined && (callCount !== 1 || firstCallName !== name)) {
    throw new SessionMessageBoundaryError("metadata_mismatch");
  }
  if (
    toolCallId !== undefined &&
    (resultCount !== 1 || firstResultId !== toolCallId)
  ) {
    throw new SessionMessageBoundaryError("metadata_mismatch");
  }
}
