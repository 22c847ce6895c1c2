/**
 * The rows of one persisted no-tool turn written by hand with
 * `node:sqlite`, on the store's own schema and pragmas: what the persisted
 * turn is compared with.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";

/** Hand-written turn transactions over one session of a store's file. */
export interface BareTurn {
  /**
   * One transaction writing the turn's rows: the user and assistant
   * messages, the session row (tokens, cost, status, `updated_at`) and
   * the cost upsert.
   */
  turn(): void;
  /**
   * One transaction writing every row the persisted turn writes: the
   * rows of {@linkcode BareTurn.turn}, the call's journal row (inserted
   * and removed again), the session's provider-engaged turns raised and
   * the turn's per-turn figures row.
   */
  sameRows(): void;
  /**
   * What usage coverage adds around the same rows: the call journaled as
   * pending in its own commit, not waiting for the disk; then one full
   * commit of the turn's rows with the call, now recorded, gone from the
   * journal, the session's provider-engaged turns raised and the turn's
   * per-turn figures row.
   */
  turnWithCoverage(): void;
  /** Closes the connection. */
  close(): void;
}

/**
 * Opens a second connection on `path` writing `sessionId`'s turns by hand.
 *
 * @param path A store's database file (its schema applied).
 * @param sessionId A session of it.
 * @param ids The id source (shared with the store, so ids never collide).
 * @param now The clock.
 * @returns The hand-written transactions.
 */
export function openBareTurn(
  path: string,
  sessionId: string,
  ids: () => string,
  now: () => number,
): BareTurn {
  const db = new DatabaseSync(path);
  db.exec(
    "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000; PRAGMA foreign_keys=ON; PRAGMA cache_size=-16384",
  );
  const insMsg = db.prepare(
    "INSERT INTO session_messages (id, session_id, sequence_number, role, content_parts, model_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const maxSeq = db.prepare(
    "SELECT COALESCE(MAX(sequence_number), -1) AS m FROM session_messages WHERE session_id = ?",
  );
  const updSession = db.prepare(
    "UPDATE agent_sessions SET total_input_tokens = total_input_tokens + ?, total_output_tokens = total_output_tokens + ?, total_cost_microcents = total_cost_microcents + ?, status = 'active', updated_at = ? WHERE id = ?",
  );
  const upsertCost = db.prepare(
    "INSERT INTO session_costs (id, session_id, model, input_tokens, output_tokens, cost_microcents, call_count, unpriced_calls, created_at, updated_at, is_legacy) VALUES (?, ?, ?, ?, ?, ?, 1, 0, ?, ?, 0) ON CONFLICT (session_id, model, is_legacy) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens, cost_microcents = cost_microcents + excluded.cost_microcents, call_count = call_count + 1, updated_at = excluded.updated_at",
  );
  const insPending = db.prepare(
    "INSERT INTO relavium_open_invocations (session_id, id, purpose, provider, model, started_at) VALUES (?, ?, 'turn', 'openai', 'gpt-5.4-mini', ?)",
  );
  const dropRecorded = db.prepare(
    "DELETE FROM relavium_open_invocations WHERE session_id = ? AND id = ?",
  );
  const raiseTurns = db.prepare(
    "INSERT INTO relavium_session_turns (session_id, turns_used) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET turns_used = max(turns_used, excluded.turns_used)",
  );
  const addTurnUsage = db.prepare(
    "INSERT INTO relavium_turn_usage (session_id, turn_number, input_tokens, output_tokens, cost_microcents) VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, turn_number) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens, cost_microcents = cost_microcents + excluded.cost_microcents",
  );
  let turnsUsed = 0;
  function writeTurnRows(t: number): void {
    const row = maxSeq.get(sessionId) as { m: number };
    insMsg.run(
      ids(),
      sessionId,
      row.m + 1,
      "user",
      '[{"type":"text","text":"A short question?"}]',
      null,
      t,
    );
    insMsg.run(
      ids(),
      sessionId,
      row.m + 2,
      "assistant",
      '[{"type":"text","text":"An answer of a few words."}]',
      "gpt-5.4-mini",
      t,
    );
    updSession.run(20, 6, 4200, t, sessionId);
    upsertCost.run(ids(), sessionId, "gpt-5.4-mini", 20, 6, 4200, t, t);
  }
  return {
    turn() {
      const t = now();
      db.exec("BEGIN IMMEDIATE");
      writeTurnRows(t);
      db.exec("COMMIT");
    },
    sameRows() {
      const t = now();
      const call = ids();
      db.exec("BEGIN IMMEDIATE");
      insPending.run(sessionId, call, t);
      dropRecorded.run(sessionId, call);
      writeTurnRows(t);
      raiseTurns.run(sessionId, ++turnsUsed);
      addTurnUsage.run(sessionId, turnsUsed, 20, 6, 4200);
      db.exec("COMMIT");
    },
    turnWithCoverage() {
      const t = now();
      const call = ids();
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec("BEGIN IMMEDIATE");
      insPending.run(sessionId, call, t);
      db.exec("COMMIT");
      db.exec("PRAGMA synchronous = FULL");
      db.exec("BEGIN IMMEDIATE");
      dropRecorded.run(sessionId, call);
      writeTurnRows(t);
      raiseTurns.run(sessionId, ++turnsUsed);
      addTurnUsage.run(sessionId, turnsUsed, 20, 6, 4200);
      db.exec("COMMIT");
    },
    close: () => db.close(),
  };
}
