/**
 * The prepared statements of the SQLite store, in one place.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

// Turns used: the stored count, or more while a call of a later turn is
// open (a process that ended during the call never raised it).
const SESSION_COLUMNS = `s.id, s.agent_id, s.agent_slug, s.agent_snapshot,
  s.title, s.model_id, s.status, s.context_json, s.total_input_tokens,
  s.total_output_tokens, s.total_cost_microcents,
  st.total_conservative_microcents,
  NULLIF(max(COALESCE(tu.turns_used, -1), COALESCE((SELECT MAX(i.turn_number)
    FROM relavium_open_invocations i WHERE i.session_id = s.id), -1)), -1)
    AS turns_used,
  s.exported_workflow_path,
  s.deleted_at, s.created_at, s.updated_at
  FROM agent_sessions s
  LEFT JOIN relavium_session_state st ON st.session_id = s.id
  LEFT JOIN relavium_session_turns tu ON tu.session_id = s.id`;

/**
 * Column order of message rows read as arrays.
 */
export const MESSAGE_COLUMN_ORDER = [
  "id",
  "session_id",
  "sequence_number",
  "role",
  "content",
  "content_parts",
  "tool_calls",
  "tool_call_id",
  "name",
  "finish_reason",
  "model_id",
  "created_at",
  "compaction_dropped_through_sequence",
] as const;

const MESSAGE_COLUMNS = `${
  MESSAGE_COLUMN_ORDER.join(", ")
} FROM session_messages`;

/**
 * Every statement the store runs.
 */
export interface Statements {
  /** Full row of a visible session, by id. */
  visibleSessionFull: StatementSync;
  /** A row when the session is visible (the existence check), by id. */
  visibleSession: StatementSync;
  /** Full row of any session, by id (used right after insert). */
  sessionById: StatementSync;
  /** Visible sessions, newest `updated_at` first, then id descending. */
  listVisible: StatementSync;
  /**
   * All rows of a session in sequence order; arrays in
   * {@linkcode MESSAGE_COLUMN_ORDER} where the runtime supports it.
   */
  messagesOf: StatementSync;
  /**
   * The first {@linkcode MESSAGE_PAGE_ROWS} rows of a session in sequence
   * order (`load` reads in pages so each page's raw rows die young).
   */
  messagesFirstPage: StatementSync;
  /** The next page: rows with `sequence_number` above the given one. */
  messagesNextPage: StatementSync;
  /**
   * The first lean page (see {@linkcode LEAN_COLUMN_ORDER}); parameters:
   * session id, the session row's id.
   */
  messagesLeanFirstPage: StatementSync;
  /** The next lean page; parameters: as the first, then the last sequence read. */
  messagesLeanNextPage: StatementSync;
  /** Row count of a session, as `n` (checks the pages read every row). */
  messageCount: StatementSync;
  /** Assistant rows of a session (turn-key seeding). */
  assistantRows: StatementSync;
  /** `MAX(sequence_number) + 1` (0 for none), as `n`. */
  nextSequence: StatementSync;
  /** Inserts a session row. */
  insertSession: StatementSync;
  /** Inserts a message row (metadata columns NULL). */
  insertMessage: StatementSync;
  /**
   * Of a visible session: adds the turn's tokens and cost, sets status
   * `active`, the title when NULL, and `updated_at` (no row changed ⇒ no
   * such session).
   */
  updateAfterTurn: StatementSync;
  /** Inserts a boundary marker row (`system`, dropped-through sequence set). */
  insertMarker: StatementSync;
  /** Adds summariser tokens and sets `updated_at`. */
  addTokens: StatementSync;
  /** Upserts a `session_costs` row (non-legacy). */
  upsertCost: StatementSync;
  /** Adds cache tokens and usage-less calls to `relavium_cost_details`. */
  upsertCostDetails: StatementSync;
  /** Adds realised spend to `total_cost_microcents`. */
  addSessionCost: StatementSync;
  /** The stored turn mark as `mark`: an in-range integer or NULL. */
  turnMark: StatementSync;
  /** Sets the turn mark. */
  upsertTurnMark: StatementSync;
  /** Raises the session's turns used (never lowers it). */
  raiseTurnsUsed: StatementSync;
  /** Adds tokens and spend to one turn's `relavium_turn_usage` row. */
  addTurnUsage: StatementSync;
  /** Sets `status` and `updated_at` of a visible session. */
  setStatus: StatementSync;
  /** Sets `exported` and the path of a visible session (`updated_at` kept). */
  markExported: StatementSync;
  /** Sets `deleted_at` of a visible session. */
  softDelete: StatementSync;
  /** Catalog row ids for a raw model string (upstream files only). */
  catalogByModel: StatementSync | undefined;
}

/**
 * Column order of the lean page statements `load` reads first: six values
 * per row instead of thirteen (node:sqlite pays for every value, NULLs
 * included). `role` is the row's role when the row is regular, i.e. its
 * `session_id` is byte for byte the session row's id and its metadata
 * columns (`content`, `tool_calls`, `tool_call_id`, `name`,
 * `finish_reason`, `compaction_dropped_through_sequence`) are all NULL;
 * else NULL, and the page is read again with every column.
 */
export const LEAN_COLUMN_ORDER = [
  "id",
  "sequence_number",
  "role",
  "content_parts",
  "model_id",
  "created_at",
] as const;

// A BINARY comparison whatever collation an upstream file declares, so a
// regular row's session_id is exactly the id the decoder substitutes.
const LEAN_COLUMNS = `id, sequence_number,
  CASE WHEN typeof(session_id) = 'text' AND session_id = ?2 COLLATE BINARY
    AND coalesce(content, tool_calls, tool_call_id, name, finish_reason,
      compaction_dropped_through_sequence) IS NULL
  THEN role END AS role,
  content_parts, model_id, created_at FROM session_messages`;

/** Rows per page of `messagesFirstPage` / `messagesNextPage`. */
export const MESSAGE_PAGE_ROWS = 1000;

/**
 * Prepares the statements on an open connection with the schema applied.
 *
 * @param db The connection.
 * @param withCatalog Whether `model_catalog` lookups are needed.
 * @returns The statements.
 */
export function prepareStatements(
  db: DatabaseSync,
  withCatalog: boolean,
): Statements {
  const p = (sql: string): StatementSync => db.prepare(sql);
  const messagesOf = p(
    `SELECT ${MESSAGE_COLUMNS} WHERE session_id = ? ORDER BY sequence_number`,
  );
  const messagesFirstPage = p(
    `SELECT ${MESSAGE_COLUMNS} WHERE session_id = ? ORDER BY sequence_number
     LIMIT ${MESSAGE_PAGE_ROWS}`,
  );
  const messagesNextPage = p(
    `SELECT ${MESSAGE_COLUMNS} WHERE session_id = ? AND sequence_number > ?
     ORDER BY sequence_number LIMIT ${MESSAGE_PAGE_ROWS}`,
  );
  const messagesLeanFirstPage = p(
    `SELECT ${LEAN_COLUMNS} WHERE session_id = ?1 ORDER BY sequence_number
     LIMIT ${MESSAGE_PAGE_ROWS}`,
  );
  const messagesLeanNextPage = p(
    `SELECT ${LEAN_COLUMNS} WHERE session_id = ?1 AND sequence_number > ?3
     ORDER BY sequence_number LIMIT ${MESSAGE_PAGE_ROWS}`,
  );
  // Arrays skip building one native object per row (resume of 10k rows).
  // Deno implements `setReturnArrays`; its typings do not declare it yet.
  for (
    const st of [
      messagesOf,
      messagesFirstPage,
      messagesNextPage,
      messagesLeanFirstPage,
      messagesLeanNextPage,
    ]
  ) {
    const arrays = st as StatementSync & {
      setReturnArrays?: (enabled: boolean) => void;
    };
    if (typeof arrays.setReturnArrays === "function") {
      arrays.setReturnArrays(true);
    }
  }
  return {
    visibleSessionFull: p(
      `SELECT ${SESSION_COLUMNS} WHERE s.id = ? AND s.deleted_at IS NULL`,
    ),
    visibleSession: p(
      "SELECT 1 FROM agent_sessions WHERE id = ? AND deleted_at IS NULL",
    ),
    sessionById: p(`SELECT ${SESSION_COLUMNS} WHERE s.id = ?`),
    listVisible: p(
      `SELECT ${SESSION_COLUMNS} WHERE s.deleted_at IS NULL
       ORDER BY s.updated_at DESC, s.id DESC`,
    ),
    messagesOf,
    messagesFirstPage,
    messagesNextPage,
    messagesLeanFirstPage,
    messagesLeanNextPage,
    messageCount: p(
      "SELECT COUNT(*) AS n FROM session_messages WHERE session_id = ?",
    ),
    assistantRows: p(
      `SELECT ${MESSAGE_COLUMNS} WHERE session_id = ? AND role = 'assistant'
       ORDER BY sequence_number`,
    ),
    nextSequence: p(
      `SELECT COALESCE(MAX(sequence_number), -1) + 1 AS n
       FROM session_messages WHERE session_id = ?`,
    ),
    insertSession: p(
      `INSERT INTO agent_sessions (id, agent_id, agent_slug, agent_snapshot,
       title, model_id, working_dir, git_ref, fs_scope_tier, status,
       context_json, created_at, updated_at)
       VALUES (?, NULL, ?, ?, NULL, ?, ?, ?, ?, 'active', ?, ?, ?)`,
    ),
    insertMessage: p(
      `INSERT INTO session_messages (id, session_id, sequence_number, role,
       content, content_parts, tool_calls, tool_call_id, name, finish_reason,
       model_id, created_at, compaction_dropped_through_sequence)
       VALUES (?, ?, ?, ?, NULL, ?, NULL, NULL, NULL, NULL, ?, ?, NULL)`,
    ),
    updateAfterTurn: p(
      `UPDATE agent_sessions SET
       total_input_tokens = total_input_tokens + ?,
       total_output_tokens = total_output_tokens + ?,
       total_cost_microcents = total_cost_microcents + ?,
       title = COALESCE(title, ?), model_id = COALESCE(?, model_id),
       status = 'active', updated_at = ?
       WHERE id = ? AND deleted_at IS NULL`,
    ),
    insertMarker: p(
      `INSERT INTO session_messages (id, session_id, sequence_number, role,
       content, content_parts, tool_calls, tool_call_id, name, finish_reason,
       model_id, created_at, compaction_dropped_through_sequence)
       VALUES (?, ?, ?, 'system', NULL, ?, NULL, NULL, NULL, NULL, NULL, ?, ?)`,
    ),
    addTokens: p(
      `UPDATE agent_sessions SET
       total_input_tokens = total_input_tokens + ?,
       total_output_tokens = total_output_tokens + ?, updated_at = ?
       WHERE id = ?`,
    ),
    upsertCost: p(
      `INSERT INTO session_costs (id, session_id, model, model_catalog_id,
       input_tokens, output_tokens, cost_microcents, call_count,
       unpriced_calls, created_at, updated_at, is_legacy)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, 0)
       ON CONFLICT (session_id, model, is_legacy) DO UPDATE SET
       input_tokens = input_tokens + excluded.input_tokens,
       output_tokens = output_tokens + excluded.output_tokens,
       cost_microcents = cost_microcents + excluded.cost_microcents,
       call_count = call_count + 1,
       unpriced_calls = unpriced_calls + excluded.unpriced_calls,
       model_catalog_id = COALESCE(model_catalog_id, excluded.model_catalog_id),
       updated_at = excluded.updated_at`,
    ),
    upsertCostDetails: p(
      `INSERT INTO relavium_cost_details (session_id, model,
       cache_read_tokens, cache_write_tokens, cache_read_microcents,
       cache_write_microcents, usage_unknown_calls)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, model) DO UPDATE SET
       cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
       cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
       cache_read_microcents =
         cache_read_microcents + excluded.cache_read_microcents,
       cache_write_microcents =
         cache_write_microcents + excluded.cache_write_microcents,
       usage_unknown_calls = usage_unknown_calls + excluded.usage_unknown_calls`,
    ),
    addSessionCost: p(
      `UPDATE agent_sessions
       SET total_cost_microcents = total_cost_microcents + ? WHERE id = ?`,
    ),
    turnMark: p(
      `SELECT CASE WHEN typeof(effect_turn_high_water) = 'integer'
       AND effect_turn_high_water BETWEEN 0 AND 9007199254740991
       THEN effect_turn_high_water END AS mark
       FROM relavium_session_state WHERE session_id = ?`,
    ),
    raiseTurnsUsed: p(
      `INSERT INTO relavium_session_turns (session_id, turns_used)
       VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET
       turns_used = max(turns_used, excluded.turns_used)`,
    ),
    addTurnUsage: p(
      `INSERT INTO relavium_turn_usage (session_id, turn_number,
       input_tokens, output_tokens, cost_microcents) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id, turn_number) DO UPDATE SET
       input_tokens = input_tokens + excluded.input_tokens,
       output_tokens = output_tokens + excluded.output_tokens,
       cost_microcents = cost_microcents + excluded.cost_microcents`,
    ),
    upsertTurnMark: p(
      `INSERT INTO relavium_session_state (session_id, effect_turn_high_water)
       VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET
       effect_turn_high_water = excluded.effect_turn_high_water`,
    ),
    setStatus: p(
      `UPDATE agent_sessions SET status = ?, updated_at = ?
       WHERE id = ? AND deleted_at IS NULL`,
    ),
    markExported: p(
      `UPDATE agent_sessions SET status = 'exported',
       exported_workflow_path = ?
       WHERE id = ? AND deleted_at IS NULL`,
    ),
    softDelete: p(
      `UPDATE agent_sessions SET deleted_at = ?
       WHERE id = ? AND deleted_at IS NULL`,
    ),
    catalogByModel: withCatalog
      ? p(
        `SELECT id FROM model_catalog WHERE model_id = ? AND deleted_at IS NULL
         LIMIT 2`,
      )
      : undefined,
  };
}
