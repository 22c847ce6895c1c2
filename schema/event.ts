/**
 * The session event union: `session:*` lifecycle and side
 * events plus the in-turn `agent:*` and `cost:updated` events. The engine
 * emits envelope-free drafts; one translation point stamps the envelope.
 *
 * @module
 */
import { z } from "zod";
import { err, ok, type Result } from "./result.ts";
import { toIssues, type ValidationIssue } from "./issues.ts";
import type { SessionContext } from "./context.ts";
import { sessionContextSchema } from "./context.ts";
import {
  ENGINE_TOOL_CALL_ID,
  type SessionToolCallPart,
  type SessionToolResultPart,
  TOOL_NAME,
} from "./message.ts";
import type { Flat, Holds, Same } from "./type_equal.ts";

/**
 * Session error codes. A closed enum: adding one is not
 * additive for stored events.
 */
export type ErrorCode =
  | "validation"
  | "content_filter"
  | "provider_auth"
  | "provider_rate_limit"
  | "provider_unavailable"
  | "context_overflow"
  | "tool_denied"
  | "tool_failed"
  | "tool_unavailable"
  | "budget_exceeded"
  | "turn_limit"
  | "cancelled"
  | "internal"
  | "run_timeout"
  | "sandbox_error";

/** Every {@linkcode ErrorCode}, in the spec's order. */
export const ERROR_CODES: readonly ErrorCode[] = [
  "validation",
  "content_filter",
  "provider_auth",
  "provider_rate_limit",
  "provider_unavailable",
  "context_overflow",
  "tool_denied",
  "tool_failed",
  "tool_unavailable",
  "budget_exceeded",
  "turn_limit",
  "cancelled",
  "internal",
  "run_timeout",
  "sandbox_error",
];

/**
 * A user-safe, secret-free error.
 */
export interface SessionError {
  /** The error code. */
  code: ErrorCode;
  /** User-safe, fixed, secret-free text. */
  message: string;
  /** Whether resending may succeed. */
  retryable: boolean;
  /** Correlation id, when one exists. */
  correlationId?: string;
}

/**
 * Stop reasons of a turn: the provider's plus `aborted`.
 */
export type TurnStopReason =
  | "stop"
  | "length"
  | "tool_use"
  | "content_filter"
  | "error"
  | "aborted";

/**
 * Main-turn usage summed over rounds; `model` is the one that served.
 */
export interface TokensUsed {
  /** Input tokens. */
  input: number;
  /** Output tokens. */
  output: number;
  /** Model id. */
  model?: string;
}

/**
 * One dispatched tool call and its result, structure only.
 */
export interface ToolHistoryEntry {
  /** The call structure. */
  call: SessionToolCallPart;
  /** The result structure (no media: events carry structure only). */
  result: Omit<SessionToolResultPart, "media">;
}

/**
 * Why a compaction ran.
 */
export type CompactionReason =
  | "manual"
  | "auto-threshold"
  | "pre-send"
  | "overflow-recovery";

/**
 * Governed action classes.
 */
export type GovernedAction = "fs_write" | "process" | "egress" | "os";

/**
 * An event as the engine emits it, before the envelope is stamped.
 */
export type SessionEventDraft =
  | {
    type: "session:started";
    agentRef: string;
    model: string;
    context: SessionContext;
  }
  | { type: "session:turn_started" }
  | {
    type: "session:turn_completed";
    stopReason: TurnStopReason;
    tokensUsed: TokensUsed;
    error?: SessionError;
    toolHistory?: ToolHistoryEntry[];
  }
  | { type: "session:cancelled" }
  | { type: "session:exported"; workflowPath: string }
  | {
    type: "session:compacting";
    reason: CompactionReason;
    windowUnknown?: boolean;
  }
  | {
    type: "session:compacted";
    reason: CompactionReason;
    summary: string;
    keptMessageCount: number;
    keptTurnCount: number;
    tokensBefore: number;
    tokensAfter: number;
    tokensUsed: { input: number; output: number };
  }
  | {
    type: "session:compaction_failed";
    reason: CompactionReason;
    error: { code: ErrorCode; message: string; retryable: boolean };
  }
  | {
    type: "session:compaction_budget_refused";
    reason: CompactionReason;
    error: { code: "budget_exceeded"; message: string; retryable: false };
  }
  | {
    type: "session:trimmed";
    reason: "manual" | "auto-fallback";
    keptMessageCount: number;
    droppedMessageCount: number;
    keptTurnCount: number;
  }
  // A session's MCP server changed state: `connecting`, then `connected`
  // (tools offered, estimated tokens of their schemas) or `failed` (the
  // reason), and `closed` when the session ends. Published by the host.
  | { type: "session:mcp_server"; server: string; state: "connecting" }
  | {
    type: "session:mcp_server";
    server: string;
    state: "connected";
    /** Tools offered to the model. */
    tools: number;
    /** Estimated tokens of their schemas and descriptions. */
    schemaTokens: number;
  }
  | {
    type: "session:mcp_server";
    server: string;
    state: "failed";
    /** Why (secret-free; a stdio server's stderr tail may follow). */
    reason: string;
  }
  | { type: "session:mcp_server"; server: string; state: "closed" }
  | { type: "agent:token"; nodeId: string; token: string; model: string }
  | { type: "agent:reasoning"; nodeId: string; text: string; model: string }
  | {
    type: "agent:tool_call";
    nodeId: string;
    model: string;
    toolId: string;
    toolInput: Record<string, unknown>;
    toolCallId: string;
    attemptNumber?: number;
  }
  | {
    type: "agent:tool_result";
    nodeId: string;
    toolId: string;
    success: boolean;
    outputSummary: string;
    toolCallId: string;
    attemptNumber?: number;
  }
  | {
    type: "agent:approval_requested";
    nodeId: string;
    toolId: string;
    action: GovernedAction;
    preview: { path?: string; command?: string; host?: string };
    attemptNumber?: number;
  }
  | {
    type: "cost:updated";
    nodeId: string;
    model: string;
    inputTokens: number;
    outputTokens: number;
    costMicrocents: number;
    cumulativeCostMicrocents: number;
    attemptNumber: number;
    priced: boolean;
    /** Input tokens read from the prompt cache (absent when none). */
    cacheReadTokens?: number;
    /** Input tokens written to the prompt cache (absent when none). */
    cacheWriteTokens?: number;
    /**
     * The provider sent no token counts for this attempt: its tokens are
     * unknown (reported as 0) and `costMicrocents` is the estimate the cost
     * cap counts (input estimate plus the output reservation, an upper
     * bound).
     */
    usageUnknown?: true;
    /**
     * Provider calls of this session whose usage is unknown (a process
     * ended while they were open), so `cumulativeCostMicrocents` is a
     * lower bound; absent when every call is accounted for.
     */
    unaccountedCalls?: number;
  };

/**
 * The envelope every delivered event carries.
 */
export interface SessionEnvelope {
  /** The session id. */
  sessionId: string;
  /** ISO-8601 timestamp. */
  timestamp: string;
  /** Position in the session (int ≥ 0). */
  sequenceNumber: number;
}

/**
 * A delivered event: a draft plus its envelope.
 */
export type SessionEvent = SessionEventDraft & SessionEnvelope;

/**
 * Every event `type` this version emits.
 */
export type SessionEventType = SessionEventDraft["type"];

const nat = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const errorCode = z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]);
const reason = z.enum([
  "manual",
  "auto-threshold",
  "pre-send",
  "overflow-recovery",
]);
const envelope = {
  sessionId: z.string().min(1),
  timestamp: z.iso.datetime({ offset: true }),
  sequenceNumber: nat,
};
const engineId = z.string().regex(ENGINE_TOOL_CALL_ID);

/**
 * What the parser accepts: every delivered event, the two boundary events
 * also as an older writer may have stored them, without `keptTurnCount`.
 */
type BoundaryType = "session:compacted" | "session:trimmed";
type MaybeCounted<E> = Omit<E, "keptTurnCount"> & { keptTurnCount?: number };
type ParsedEvent =
  | Exclude<SessionEvent, { type: BoundaryType }>
  | MaybeCounted<Extract<SessionEvent, { type: "session:compacted" }>>
  | MaybeCounted<Extract<SessionEvent, { type: "session:trimmed" }>>;

const sessionEventInferred = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("session:started"),
      ...envelope,
      agentRef: z.string().min(1),
      model: z.string().min(1),
      context: sessionContextSchema,
    }),
    z.strictObject({ type: z.literal("session:turn_started"), ...envelope }),
    z.strictObject({
      type: z.literal("session:turn_completed"),
      ...envelope,
      stopReason: z.enum([
        "stop",
        "length",
        "tool_use",
        "content_filter",
        "error",
        "aborted",
      ]),
      tokensUsed: z.strictObject({
        input: nat,
        output: nat,
        model: z.string().min(1).exactOptional(),
      }),
      error: z.strictObject({
        code: errorCode,
        message: z.string(),
        retryable: z.boolean(),
        correlationId: z.string().exactOptional(),
      }).exactOptional(),
      toolHistory: z.array(z.strictObject({
        call: z.strictObject({
          type: z.literal("tool_call"),
          id: engineId,
          name: z.string().regex(TOOL_NAME),
          argsBytes: nat,
        }),
        result: z.strictObject({
          type: z.literal("tool_result"),
          toolCallId: engineId,
          resultBytes: nat,
          outcome: z.enum(["ok", "error", "denied", "cancelled"]),
        }),
      })).exactOptional(),
    }),
    z.strictObject({ type: z.literal("session:cancelled"), ...envelope }),
    z.strictObject({
      type: z.literal("session:exported"),
      ...envelope,
      workflowPath: z.string().min(1),
    }),
    z.strictObject({
      type: z.literal("session:compacting"),
      ...envelope,
      reason,
      windowUnknown: z.boolean().exactOptional(),
    }),
    z.strictObject({
      type: z.literal("session:compacted"),
      ...envelope,
      reason,
      summary: z.string().min(1),
      keptMessageCount: nat,
      keptTurnCount: nat.exactOptional(),
      tokensBefore: nat,
      tokensAfter: nat,
      tokensUsed: z.strictObject({ input: nat, output: nat }),
    }),
    z.strictObject({
      type: z.literal("session:compaction_failed"),
      ...envelope,
      reason,
      error: z.strictObject({
        code: errorCode,
        message: z.string(),
        retryable: z.boolean(),
      }),
    }),
    z.strictObject({
      type: z.literal("session:compaction_budget_refused"),
      ...envelope,
      reason,
      error: z.strictObject({
        code: z.literal("budget_exceeded"),
        message: z.string(),
        retryable: z.literal(false),
      }),
    }),
    z.strictObject({
      type: z.literal("session:trimmed"),
      ...envelope,
      reason: z.enum(["manual", "auto-fallback"]),
      keptMessageCount: nat,
      droppedMessageCount: nat,
      keptTurnCount: nat.exactOptional(),
    }),
    z.discriminatedUnion("state", [
      z.strictObject({
        type: z.literal("session:mcp_server"),
        ...envelope,
        server: z.string().min(1),
        state: z.literal("connecting"),
      }),
      z.strictObject({
        type: z.literal("session:mcp_server"),
        ...envelope,
        server: z.string().min(1),
        state: z.literal("connected"),
        tools: nat,
        schemaTokens: nat,
      }),
      z.strictObject({
        type: z.literal("session:mcp_server"),
        ...envelope,
        server: z.string().min(1),
        state: z.literal("failed"),
        reason: z.string(),
      }),
      z.strictObject({
        type: z.literal("session:mcp_server"),
        ...envelope,
        server: z.string().min(1),
        state: z.literal("closed"),
      }),
    ]),
    z.strictObject({
      type: z.literal("agent:token"),
      ...envelope,
      nodeId: z.string(),
      token: z.string(),
      model: z.string(),
    }),
    z.strictObject({
      type: z.literal("agent:reasoning"),
      ...envelope,
      nodeId: z.string(),
      text: z.string(),
      model: z.string(),
    }),
    z.strictObject({
      type: z.literal("agent:tool_call"),
      ...envelope,
      nodeId: z.string(),
      model: z.string(),
      toolId: z.string(),
      toolInput: z.record(z.string(), z.unknown()),
      toolCallId: engineId,
      attemptNumber: nat.exactOptional(),
    }),
    z.strictObject({
      type: z.literal("agent:tool_result"),
      ...envelope,
      nodeId: z.string(),
      toolId: z.string(),
      success: z.boolean(),
      outputSummary: z.string(),
      toolCallId: engineId,
      attemptNumber: nat.exactOptional(),
    }),
    z.strictObject({
      type: z.literal("agent:approval_requested"),
      ...envelope,
      nodeId: z.string(),
      toolId: z.string(),
      action: z.enum(["fs_write", "process", "egress", "os"]),
      preview: z.strictObject({
        path: z.string().exactOptional(),
        command: z.string().exactOptional(),
        host: z.string().exactOptional(),
      }),
      attemptNumber: nat.exactOptional(),
    }),
    z.strictObject({
      type: z.literal("cost:updated"),
      ...envelope,
      nodeId: z.string(),
      model: z.string(),
      inputTokens: nat,
      outputTokens: nat,
      costMicrocents: nat,
      cumulativeCostMicrocents: nat,
      attemptNumber: nat,
      priced: z.boolean(),
      cacheReadTokens: nat.min(1).exactOptional(),
      cacheWriteTokens: nat.min(1).exactOptional(),
      usageUnknown: z.literal(true).exactOptional(),
      unaccountedCalls: nat.min(1).exactOptional(),
    }),
  ]);

/**
 * Strict schema of a delivered {@linkcode SessionEvent}: what a consumer of
 * `--json` output can check each line against (no stray fields). It also
 * accepts `session:compacted` / `session:trimmed` without `keptTurnCount`,
 * as older writers produced them; this version always sets it.
 */
export const sessionEventSchema: z.ZodType<ParsedEvent> = sessionEventInferred;

/**
 * Validates one delivered event strictly: what a consumer of `--json`
 * output can check each line against (no stray fields). A
 * `session:compacted` or `session:trimmed` event without `keptTurnCount`
 * (as older writers stored them) is accepted; every event this version
 * emits carries it.
 *
 * @param value The candidate event (e.g. `JSON.parse` of one line).
 * @returns The event (`keptTurnCount` possibly absent on the two boundary
 * events), or the issues with their key paths.
 *
 * @example Validate a line
 * ```ts
 * import { parseSessionEvent } from "@relavium/session/schema";
 * import assert from "node:assert/strict";
 * const line = '{"type":"session:turn_started","sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z","sequenceNumber":1}';
 * assert.equal(parseSessionEvent(JSON.parse(line)).ok, true);
 * ```
 */
export function parseSessionEvent(
  value: unknown,
): Result<
  | SessionEvent
  | (
    & Omit<
      Extract<SessionEvent, { type: "session:compacted" }>,
      "keptTurnCount"
    >
    & { keptTurnCount?: never }
  )
  | (
    & Omit<Extract<SessionEvent, { type: "session:trimmed" }>, "keptTurnCount">
    & { keptTurnCount?: never }
  ),
  ValidationIssue[]
> {
  const r = sessionEventSchema.safeParse(value);
  return r.success ? ok(r.data) : err(toIssues(r.error));
}

// Each written-out type equals what its schema infers.
type _sessionEventInferredCheck = Holds<
  Same<Flat<z.infer<typeof sessionEventInferred>>, Flat<ParsedEvent>>
>;
