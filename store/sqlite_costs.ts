/**
 * The SQLite store's cost rows: writing a call's costs into the cost
 * tables, and reading a session's totals per model back.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Statements } from "./sqlite_statements.ts";
import type { CostEntry, ModelCostTotals } from "./store.ts";
import type { TurnUsage } from "./turn_usage.ts";

export type { TurnUsage };

/** What writing costs takes from the store handle. */
export interface CostRows {
  /** The prepared statements of the handle. */
  sql: Statements;
  /** Source of fresh row ids. */
  ids: () => string;
  /** The catalog row id of a model, where the cost table references the catalog. */
  catalogId: ((model: string) => string | null) | undefined;
}

/**
 * Adds `costs` to the per-model cost rows (and their cache and
 * unknown-usage details where there are any) at `now`. The session's
 * total and the journal are the caller's.
 */
export function writeCosts(
  rows: CostRows,
  sessionId: string,
  costs: readonly CostEntry[],
  now: number,
): void {
  for (const c of costs) {
    const catalogId = rows.catalogId === undefined
      ? null
      : rows.catalogId(c.model);
    rows.sql.upsertCost.run(
      rows.ids(),
      sessionId,
      c.model,
      catalogId,
      c.inputTokens,
      c.outputTokens,
      c.costMicrocents,
      c.priced ? 0 : 1,
      now,
      now,
    );
    const read = c.cacheReadTokens ?? 0;
    const written = c.cacheWriteTokens ?? 0;
    const unknown = c.usageUnknown === true ? 1 : 0;
    if (read + written + unknown > 0) {
      rows.sql.upsertCostDetails.run(
        sessionId,
        c.model,
        read,
        written,
        c.cacheReadMicrocents ?? 0,
        c.cacheWriteMicrocents ?? 0,
        unknown,
      );
    }
  }
}

/**
 * Adds a write's figures (`turnUsageDelta` of `turn_usage.ts`) to its turn's row;
 * nothing when the write adds no row.
 */
export function writeTurnUsage(
  sql: Statements,
  sessionId: string,
  d: TurnUsage | undefined,
): void {
  if (d === undefined) return;
  sql.addTurnUsage.run(
    sessionId,
    d.turnNumber,
    d.inputTokens,
    d.outputTokens,
    d.costMicrocents,
  );
}

/** Prepares the read of a session's per-turn figures, in turn order. */
export function prepareTurnUsage(db: DatabaseSync): StatementSync {
  return db.prepare(
    `SELECT turn_number, input_tokens, output_tokens, cost_microcents
     FROM relavium_turn_usage WHERE session_id = ? ORDER BY turn_number`,
  );
}

/** A session's per-turn figures, read with {@linkcode prepareTurnUsage}. */
export function readTurnUsage(
  statement: StatementSync,
  sessionId: string,
): TurnUsage[] {
  return statement.all(sessionId).map((r) => ({
    turnNumber: Number(r["turn_number"]),
    inputTokens: Number(r["input_tokens"]),
    outputTokens: Number(r["output_tokens"]),
    costMicrocents: Number(r["cost_microcents"]),
  }));
}

/** The money of `costs`, in microcents. */
export function costOf(costs: readonly CostEntry[]): number {
  let total = 0;
  for (const c of costs) total += c.costMicrocents;
  return total;
}

/**
 * Prepares the read of a session's totals per model, in the order the
 * models were first used. Prepared on first use: only `/cost` and
 * `chat-show` read it.
 */
export function prepareCostTotals(db: DatabaseSync): StatementSync {
  return db.prepare(
    `SELECT c.model, SUM(c.input_tokens) AS input,
       SUM(c.output_tokens) AS output, SUM(c.cost_microcents) AS cost,
       SUM(c.call_count) AS calls, SUM(c.unpriced_calls) AS unpriced,
       d.cache_read_tokens AS cache_read, d.cache_write_tokens AS cache_write,
       d.cache_read_microcents AS cache_read_cost,
       d.cache_write_microcents AS cache_write_cost,
       d.usage_unknown_calls AS usage_unknown
       FROM session_costs c LEFT JOIN relavium_cost_details d
       ON d.session_id = c.session_id AND d.model = c.model
       WHERE c.session_id = ?
       GROUP BY c.model ORDER BY MIN(c.created_at), MIN(c.rowid)`,
  );
}

/** A session's totals per model, read with {@linkcode prepareCostTotals}. */
export function readCostTotals(
  statement: StatementSync,
  sessionId: string,
): ModelCostTotals[] {
  return statement.all(sessionId).map(costTotalsOf);
}

/**
 * One per-model row of a cost-totals query (`model`, `input`, `output`,
 * `cost`, `calls`, `unpriced`, and the detail columns, NULL when absent).
 *
 * @param r The row.
 * @returns The totals.
 */
export function costTotalsOf(r: Record<string, unknown>): ModelCostTotals {
  return {
    model: String(r["model"]),
    inputTokens: Number(r["input"]),
    outputTokens: Number(r["output"]),
    costMicrocents: Number(r["cost"]),
    callCount: Number(r["calls"]),
    unpricedCalls: Number(r["unpriced"]),
    cacheReadTokens: Number(r["cache_read"] ?? 0),
    cacheWriteTokens: Number(r["cache_write"] ?? 0),
    cacheReadMicrocents: Number(r["cache_read_cost"] ?? 0),
    cacheWriteMicrocents: Number(r["cache_write_cost"] ?? 0),
    usageUnknownCalls: Number(r["usage_unknown"] ?? 0),
  };
}
