/**
 * The columns of an `agent_sessions` row other than its context, decoded:
 * epoch-ms columns become ISO strings, the agent snapshot is parsed.
 * Corruption throws a fixed-message {@linkcode SessionRecordError}. Loads
 * no zod: the context, checked by its schema, is `record_codec.ts`'s.
 *
 * @module
 */
import type { Agent } from "../schema/agent.ts";
import { SessionRecordError } from "./errors.ts";
import type { AgentSessionRecord, NewSession, SessionStatus } from "./store.ts";

/**
 * An `agent_sessions` row joined with our state table, as SQLite returns it.
 */
export interface SessionRow {
  /** `id`. */
  id: unknown;
  /** `agent_id`. */
  agent_id: unknown;
  /** `agent_slug`. */
  agent_slug: unknown;
  /** `agent_snapshot` (JSON). */
  agent_snapshot: unknown;
  /** `title`. */
  title: unknown;
  /** `model_id`. */
  model_id: unknown;
  /** `status`. */
  status: unknown;
  /** `context_json` (JSON). */
  context_json: unknown;
  /** `total_input_tokens`. */
  total_input_tokens: unknown;
  /** `total_output_tokens`. */
  total_output_tokens: unknown;
  /** `total_cost_microcents`. */
  total_cost_microcents: unknown;
  /** `relavium_session_state.total_conservative_microcents` (NULL when absent). */
  total_conservative_microcents: unknown;
  /** `relavium_session_turns.turns_used` (NULL when absent). */
  turns_used?: unknown;
  /** `exported_workflow_path`. */
  exported_workflow_path: unknown;
  /** `deleted_at` (epoch ms). */
  deleted_at: unknown;
  /** `created_at` (epoch ms). */
  created_at: unknown;
  /** `updated_at` (epoch ms). */
  updated_at: unknown;
}

const STATUSES: ReadonlySet<string> = new Set([
  "active",
  "idle",
  "exported",
  "ended",
]);

/**
 * Parses a JSON column.
 *
 * @param text The stored value.
 * @param field The `table.column` named when it is not JSON text.
 * @returns The parsed value.
 * @throws {SessionRecordError} `invalid_record` (not text) or
 * `malformed_json`.
 */
export function parseJson(text: unknown, field: string): unknown {
  if (typeof text !== "string") {
    throw new SessionRecordError("invalid_record", field);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new SessionRecordError("malformed_json", field);
  }
}

/**
 * Whether a parsed JSON value holds a `__proto__` key (JSON.parse keeps it
 * as an own key; copied by assignment it would set a prototype): such a
 * stored agent is damaged. Nesting past 32 levels counts as holding one.
 */
function hasProtoKey(value: unknown, depth: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (depth > 32) return true;
  if (Array.isArray(value)) return value.some((v) => hasProtoKey(v, depth + 1));
  return Object.hasOwn(value, "__proto__") ||
    Object.values(value).some((v) => hasProtoKey(v, depth + 1));
}

function count(value: unknown, field?: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new SessionRecordError("invalid_record", field);
  }
  return value;
}

/**
 * Converts epoch milliseconds to ISO-8601.
 *
 * @param value A stored epoch-ms integer.
 * @param field The `table.column` named when it is invalid.
 * @returns The ISO string.
 * @throws {SessionRecordError} `invalid_record` when not a valid time.
 */
export function isoFromEpoch(value: unknown, field?: string): string {
  const d = new Date(count(value, field));
  if (Number.isNaN(d.getTime())) {
    throw new SessionRecordError("invalid_record", field);
  }
  return d.toISOString();
}

function optional(value: unknown, field: string): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== "string") {
    throw new SessionRecordError("invalid_record", field);
  }
  return value;
}

/** A session record without its context: what a reader of the row's other columns gets. */
export type SessionHeader = Omit<AgentSessionRecord, "context">;

/**
 * How a SQLite handle decodes session rows and checks a new session: by
 * the context's schema (`record_codec.ts`), or, for a handle that never
 * reads a context, refusing both.
 */
export interface SessionRowCodec {
  /** Decodes a whole row, its context checked. */
  decode(row: SessionRow): AgentSessionRecord;
  /** Refuses a session to create with an invalid field. */
  checkNew(session: NewSession): void;
}

/**
 * Decodes every column of a session row except its context (which is
 * neither parsed nor checked), in the order and with the checks of a
 * whole row's decoding.
 *
 * @param row The raw row.
 * @returns The record without its context.
 * @throws {SessionRecordError} `malformed_json` or `invalid_record`.
 */
export function decodeSessionHeader(row: SessionRow): SessionHeader {
  if (typeof row.status !== "string" || !STATUSES.has(row.status)) {
    throw new SessionRecordError("invalid_record", "agent_sessions.status");
  }
  if (typeof row.id !== "string") {
    throw new SessionRecordError("invalid_record", "agent_sessions.id");
  }
  if (typeof row.agent_slug !== "string") {
    throw new SessionRecordError("invalid_record", "agent_sessions.agent_slug");
  }
  const record: SessionHeader = {
    id: row.id,
    agentSlug: row.agent_slug,
    status: row.status as SessionStatus,
    totalInputTokens: count(
      row.total_input_tokens,
      "agent_sessions.total_input_tokens",
    ),
    totalOutputTokens: count(
      row.total_output_tokens,
      "agent_sessions.total_output_tokens",
    ),
    totalCostMicrocents: count(
      row.total_cost_microcents,
      "agent_sessions.total_cost_microcents",
    ),
    totalConservativeMicrocents: row.total_conservative_microcents === null
      ? 0
      : count(
        row.total_conservative_microcents,
        "relavium_session_state.total_conservative_microcents",
      ),
    createdAt: isoFromEpoch(row.created_at, "agent_sessions.created_at"),
    updatedAt: isoFromEpoch(row.updated_at, "agent_sessions.updated_at"),
  };
  if (row.turns_used !== undefined && row.turns_used !== null) {
    record.turnsUsed = count(
      row.turns_used,
      "relavium_session_turns.turns_used",
    );
  }
  const agentId = optional(row.agent_id, "agent_sessions.agent_id");
  if (agentId !== undefined) record.agentId = agentId;
  if (row.agent_snapshot !== null) {
    const snapshot = parseJson(
      row.agent_snapshot,
      "agent_sessions.agent_snapshot",
    );
    if (
      snapshot === null || typeof snapshot !== "object" ||
      Array.isArray(snapshot) || hasProtoKey(snapshot, 0)
    ) {
      throw new SessionRecordError(
        "invalid_record",
        "agent_sessions.agent_snapshot",
      );
    }
    record.agentSnapshot = snapshot as Agent;
  }
  const title = optional(row.title, "agent_sessions.title");
  if (title !== undefined) record.title = title;
  const modelId = optional(row.model_id, "agent_sessions.model_id");
  if (modelId !== undefined) record.modelId = modelId;
  const exported = optional(
    row.exported_workflow_path,
    "agent_sessions.exported_workflow_path",
  );
  if (exported !== undefined) record.exportedWorkflowPath = exported;
  if (row.deleted_at !== null) {
    record.deletedAt = isoFromEpoch(
      row.deleted_at,
      "agent_sessions.deleted_at",
    );
  }
  return record;
}
