/**
 * The durable message shape and its strict content union.
 *
 * Every variant is strict: unknown keys are refused, never stripped, so raw
 * `args`, `result`, `signature` or `outputSummary` can never reach a row.
 *
 * @module
 */
import { z } from "zod";
import { err, ok, type Result } from "./result.ts";
import { toIssues, type ValidationIssue } from "./issues.ts";
import {
  ENGINE_TOOL_CALL_ID,
  MEDIA_HANDLE,
  MIME,
  TOOL_NAME,
} from "./_patterns.ts";
import type { Holds, Same } from "./type_equal.ts";

export { ENGINE_TOOL_CALL_ID, TOOL_NAME } from "./_patterns.ts";

/**
 * A content-addressed media handle (never inline bytes or URLs).
 */
export interface MediaHandle {
  /** Always `handle`. */
  kind: "handle";
  /** `media://sha256-<64 hex>`. */
  ref: string;
}

/**
 * Plain text.
 */
export interface SessionTextPart {
  /** Discriminator. */
  type: "text";
  /** The text. */
  text: string;
}

/**
 * Signature-less reasoning text.
 */
export interface SessionReasoningPart {
  /** Discriminator. */
  type: "reasoning";
  /** The text. */
  text: string;
  /** Whether the provider redacted it. */
  redacted?: boolean;
}

/**
 * A user media attachment, by handle.
 */
export interface SessionMediaPart {
  /** Discriminator. */
  type: "media";
  /** Bare `type/subtype`. */
  mimeType: string;
  /** Content-addressed handle. */
  source: MediaHandle;
  /** Display name. */
  name?: string;
  /** Transcript of the media, if any. */
  transcript?: string;
  /** Size in bytes. */
  byteLength?: number;
  /** Duration (audio/video only). */
  durationMs?: number;
}

/**
 * Tool media on a result (no name, no transcript).
 */
export interface SessionToolMedia {
  /** Discriminator. */
  type: "media";
  /** Bare `type/subtype`. */
  mimeType: string;
  /** Content-addressed handle. */
  source: MediaHandle;
  /** Size in bytes. */
  byteLength?: number;
  /** Duration (audio/video only). */
  durationMs?: number;
}

/**
 * Content-free tool call structure (assistant rows).
 */
export interface SessionToolCallPart {
  /** Discriminator. */
  type: "tool_call";
  /** Identifier. */
  id: string;
  /** Display name. */
  name: string;
  /** UTF-8 bytes of the JSON args the model issued. */
  argsBytes: number;
}

/**
 * Tool outcome kinds stored on a result.
 */
export type ToolResultOutcome = "ok" | "error" | "denied" | "cancelled";

/**
 * Content-free tool result structure (tool rows).
 */
export interface SessionToolResultPart {
  /** Discriminator. */
  type: "tool_result";
  /** The engine id of the call this answers. */
  toolCallId: string;
  /** UTF-8 bytes of the bounded model-facing result. */
  resultBytes: number;
  /** How the call ended. */
  outcome: ToolResultOutcome;
  /** Tool media by handle, if any. */
  media?: SessionToolMedia;
}

/**
 * The strict session content union.
 */
export type SessionContentPart =
  | SessionTextPart
  | SessionReasoningPart
  | SessionMediaPart
  | SessionToolCallPart
  | SessionToolResultPart;

/**
 * Message roles stored in `session_messages`.
 */
export type SessionRole = "system" | "user" | "assistant" | "tool";

/**
 * One durable transcript row (domain shape; timestamps ISO-8601).
 */
export interface SessionMessage {
  /** Identifier. */
  id: string;
  /** The session id. */
  sessionId: string;
  /** Position in the session (int ≥ 0). */
  sequenceNumber: number;
  /** Row role. */
  role: SessionRole;
  /** The strict content parts. */
  content: SessionContentPart[];
  /** Model that produced an assistant row. */
  modelId?: string;
  /** Boundary marker data (system rows only). */
  compaction?: { droppedThroughSequence: number };
  /** ISO-8601 timestamp. */
  timestamp: string;
}

const safeNonNeg = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const safePos = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const handleSchema = z.strictObject({
  kind: z.literal("handle"),
  ref: z.string().regex(MEDIA_HANDLE, "must be a media://sha256-<hex> handle"),
});
const mimeSchema = z.string().max(255).regex(MIME, "unsupported media type");

function durationOnlyForTimed(
  m: { mimeType: string; durationMs?: number },
): boolean {
  return m.durationMs === undefined || /^(audio|video)\//.test(m.mimeType);
}

const toolMediaSchema = z.strictObject({
  type: z.literal("media"),
  mimeType: mimeSchema,
  source: handleSchema,
  byteLength: safeNonNeg.exactOptional(),
  durationMs: safePos.exactOptional(),
}).refine(durationOnlyForTimed, {
  message: "durationMs is only for audio/video",
  path: ["durationMs"],
});

const sessionContentPartInferred = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("text"), text: z.string() }),
    z.strictObject({
      type: z.literal("reasoning"),
      text: z.string(),
      redacted: z.boolean().exactOptional(),
    }),
    z.strictObject({
      type: z.literal("media"),
      mimeType: mimeSchema,
      source: handleSchema,
      name: z.string().max(255).exactOptional(),
      transcript: z.string().exactOptional(),
      byteLength: safeNonNeg.exactOptional(),
      durationMs: safePos.exactOptional(),
    }).refine(durationOnlyForTimed, {
      message: "durationMs is only for audio/video",
      path: ["durationMs"],
    }),
    z.strictObject({
      type: z.literal("tool_call"),
      id: z.string().max(46).regex(
        ENGINE_TOOL_CALL_ID,
        "must be an engine tool-call id",
      ),
      name: z.string().regex(TOOL_NAME, "must match [a-zA-Z0-9_-]{1,128}"),
      argsBytes: safeNonNeg,
    }),
    z.strictObject({
      type: z.literal("tool_result"),
      toolCallId: z.string().max(46).regex(
        ENGINE_TOOL_CALL_ID,
        "must be an engine tool-call id",
      ),
      resultBytes: safeNonNeg,
      outcome: z.enum(["ok", "error", "denied", "cancelled"]),
      media: toolMediaSchema.exactOptional(),
    }),
  ]);

/**
 * Strict schema of one {@linkcode SessionContentPart}.
 */
export const sessionContentPartSchema: z.ZodType<SessionContentPart> =
  sessionContentPartInferred;

const sessionMessageInferred = z.strictObject({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  sequenceNumber: safeNonNeg,
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.array(sessionContentPartSchema),
  modelId: z.string().min(1).exactOptional(),
  compaction: z.strictObject({
    droppedThroughSequence: z.number().int().min(-1),
  })
    .exactOptional(),
  timestamp: z.iso.datetime({ offset: true }),
}).refine((m) => m.compaction === undefined || m.role === "system", {
  message: "compaction is only allowed on system rows",
  path: ["compaction"],
});

/**
 * Strict schema of a {@linkcode SessionMessage}; `compaction` only on
 * `system` rows.
 */
export const sessionMessageSchema: z.ZodType<SessionMessage> =
  sessionMessageInferred;

/**
 * Validates one durable message strictly (unknown keys refused).
 *
 * @param value The candidate message.
 * @returns The message, or the issues with their key paths.
 *
 * @example Refuse a raw `args` key
 * ```ts
 * import { parseSessionMessage } from "@relavium/session/schema";
 * import assert from "node:assert/strict";
 * const r = parseSessionMessage({
 *   id: "m", sessionId: "s", sequenceNumber: 1, role: "assistant", timestamp: "2026-01-01T00:00:00.000Z",
 *   content: [{ type: "tool_call", id: "session-tool:1:0", name: "read_file", argsBytes: 2, args: {} }],
 * });
 * assert.equal(r.ok, false);
 * ```
 */
export function parseSessionMessage(
  value: unknown,
): Result<SessionMessage, ValidationIssue[]> {
  const r = sessionMessageSchema.safeParse(value);
  return r.success ? ok(r.data) : err(toIssues(r.error));
}

// Each written-out type equals what its schema infers.
type _sessionContentPartInferredCheck = Holds<
  Same<z.infer<typeof sessionContentPartInferred>, SessionContentPart>
>;
type _sessionMessageInferredCheck = Holds<
  Same<z.infer<typeof sessionMessageInferred>, SessionMessage>
>;
