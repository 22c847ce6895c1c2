/**
 * The Postgres store's reads: each one query (a whole session in one
 * read-only transaction), its rows decoded by the same codecs as SQLite's,
 * so a damaged row is named the same way.
 *
 * @module
 */
import { decodeSessionRow, type SessionRow } from "../record_codec.ts";
import { decodeFullPage } from "../sqlite_read.ts";
import { MESSAGE_COLUMN_ORDER } from "../sqlite_statements.ts";
import type { DecodeMemo } from "../message_codec.ts";
import type {
  AgentSessionRecord,
  LoadedSession,
  ModelCostTotals,
  SessionStore,
} from "../store.ts";
import {
  decodePendingRow,
  storedCount,
  type UsageCoverage,
} from "../coverage_check.ts";
import { decodeLeaseRow } from "../sqlite_journal.ts";
import type { SessionMessage } from "../../schema/message.ts";
import type { Sql } from "./_connect.ts";
import { costTotalsOf } from "../sqlite_costs.ts";

/** The session row's columns as `decodeSessionRow` reads them. */
export const SESSION_COLUMNS =
  `s.id, s.agent_id, s.agent_slug, s.agent_snapshot,
  s.title, s.model_id, s.status, s.context_json, s.total_input_tokens,
  s.total_output_tokens, s.total_cost_microcents,
  st.total_conservative_microcents,
  NULLIF(greatest(COALESCE(tu.turns_used, -1), COALESCE((SELECT MAX(i.turn_number)
    FROM relavium_open_invocations i WHERE i.session_id = s.id), -1)), -1)
    AS turns_used,
  s.exported_workflow_path, s.deleted_at, s.created_at, s.updated_at
  FROM agent_sessions s
  LEFT JOIN relavium_session_state st ON st.session_id = s.id
  LEFT JOIN relavium_session_turns tu ON tu.session_id = s.id`;

const MESSAGE_COLUMNS = MESSAGE_COLUMN_ORDER.join(", ");

/** A stored lease and its heartbeat in epoch ms. */
export type StoredLease = ReturnType<typeof decodeLeaseRow>;

/** Visible sessions, newest `updated_at` first, then id descending. */
export async function listSessions(sql: Sql): Promise<AgentSessionRecord[]> {
  const rows = await sql.unsafe(
    `SELECT ${SESSION_COLUMNS} WHERE s.deleted_at IS NULL
     ORDER BY s.updated_at DESC, s.id DESC`,
  );
  return rows.map((r) => decodeSessionRow(r as unknown as SessionRow));
}

/** One visible session and its rows, read in one transaction. */
export async function loadSession(
  sql: Sql,
  sessionId: string,
): Promise<LoadedSession | undefined> {
  const read = await sql.begin(
    "ISOLATION LEVEL REPEATABLE READ READ ONLY",
    async (tx) => {
      const session = await tx.unsafe(
        `SELECT ${SESSION_COLUMNS} WHERE s.id = $1 AND s.deleted_at IS NULL`,
        [sessionId],
      );
      if (session.length === 0) return undefined;
      const rows = await tx.unsafe(
        `SELECT ${MESSAGE_COLUMNS} FROM session_messages
         WHERE session_id = $1 ORDER BY sequence_number`,
        [sessionId],
      ).values();
      return { session: session[0], rows };
    },
  );
  if (read === undefined) return undefined;
  const record = decodeSessionRow(read.session as unknown as SessionRow);
  const memo: DecodeMemo = { epoch: Number.NaN, iso: "" };
  const messages: SessionMessage[] = [];
  decodeFullPage(read.rows as unknown[], memo, messages);
  return { record, messages };
}

/** Per-model spend of a session, in first-recorded order. */
export async function costTotals(
  sql: Sql,
  sessionId: string,
): Promise<ModelCostTotals[]> {
  const rows = await sql.unsafe(
    `SELECT c.model, SUM(c.input_tokens)::bigint AS input,
     SUM(c.output_tokens)::bigint AS output,
     SUM(c.cost_microcents)::bigint AS cost,
     SUM(c.call_count)::bigint AS calls,
     SUM(c.unpriced_calls)::bigint AS unpriced,
     MAX(d.cache_read_tokens) AS cache_read,
     MAX(d.cache_write_tokens) AS cache_write,
     MAX(d.cache_read_microcents) AS cache_read_cost,
     MAX(d.cache_write_microcents) AS cache_write_cost,
     MAX(d.usage_unknown_calls) AS usage_unknown
     FROM session_costs c LEFT JOIN relavium_cost_details d
     ON d.session_id = c.session_id AND d.model = c.model
     WHERE c.session_id = $1
     GROUP BY c.model ORDER BY MIN(c.created_at), MIN(c.ord)`,
    [sessionId],
  );
  return rows.map(costTotalsOf);
}

/** One turn's figures, as `SessionStore.turnUsage` returns them. */
type TurnUsage = ReturnType<NonNullable<SessionStore["turnUsage"]>>[number];

/** A session's per-turn figures, in turn order (empty for an unknown id). */
export async function turnUsageOf(
  sql: Sql,
  sessionId: string,
): Promise<TurnUsage[]> {
  const rows = await sql.unsafe(
    `SELECT turn_number, input_tokens, output_tokens, cost_microcents
     FROM relavium_turn_usage WHERE session_id = $1 ORDER BY turn_number`,
    [sessionId],
  );
  return rows.map((r) => ({
    turnNumber: Number(r["turn_number"]),
    inputTokens: Number(r["input_tokens"]),
    outputTokens: Number(r["output_tokens"]),
    costMicrocents: Number(r["cost_microcents"]),
  }));
}

/** The usage coverage of a session (see `SessionStore.coverage`). */
export async function coverageOf(
  sql: Sql,
  sessionId: string,
): Promise<UsageCoverage> {
  const rows = await sql.unsafe(
    `SELECT id, purpose, provider, model, started_at, status,
     cost_microcents FROM relavium_open_invocations
     WHERE session_id = $1 ORDER BY started_at, id`,
    [sessionId],
  );
  const pending = rows.filter((r) => r["status"] === "pending").map((r) =>
    decodePendingRow(r)
  );
  let unrecordedMicrocents = 0;
  for (const r of rows) {
    if (r["status"] !== "settled") continue;
    unrecordedMicrocents += storedCount(
      r["cost_microcents"],
      "relavium_open_invocations.cost_microcents",
    );
  }
  return { pending, unrecordedMicrocents };
}

/** The stored lease of a session, if any. */
export async function leaseRow(
  sql: Sql,
  sessionId: string,
): Promise<StoredLease | undefined> {
  const rows = await sql.unsafe(
    `SELECT holder_id, pid, hostname, acquired_at, heartbeat_at
     FROM relavium_session_leases WHERE session_id = $1`,
    [sessionId],
  );
  const row = rows[0];
  return row === undefined ? undefined : decodeLeaseRow(row);
}
