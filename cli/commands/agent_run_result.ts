/**
 * The one record `agent run --output json` prints on stdout when the turn
 * ends: the answer, why it stopped, tokens, cost, the session and model.
 * It is built from the turn's result and the events the turn published
 * (the redacted error, cache tokens, whether usage was reported), and
 * every string in it is screened for keys.
 *
 * @module
 */
import { createSecretScreen, redactStrings } from "../../host/secrets.ts";
import type { TurnResult } from "../../session/turn_result.ts";

/** Micro-cents in one US dollar. */
const MICROCENTS_PER_USD = 100_000_000;

/**
 * The `agent run --output json` record, keys in this order. `stopReason`
 * is the turn's (`stop`, `length`, `tool_use`, `content_filter`, `error`,
 * `aborted`) or `cancelled` when a signal ended the run first.
 * `usage.unknown`: some call reported no token counts (its tokens count
 * as 0); `cost.estimated`: the cost then includes the estimate the cost
 * cap charged for it. `cost.priced`: every call's model had a price.
 */
export interface OneShotRecord {
  type: "result";
  isError: boolean;
  answer: string;
  stopReason: string;
  error: { code: string; message: string; retryable: boolean } | null;
  usage: {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    unknown: boolean;
  };
  cost: {
    microcents: number;
    usd: number;
    priced: boolean;
    estimated: boolean;
  };
  sessionId: string;
  model: string | null;
}

/**
 * Collects, from the published events, what the record takes from them.
 */
/**
 * The `--output json` record of a one-shot turn: the turn's own value
 * (`TurnResult`) mapped field by field, secrets redacted.
 *
 * @param result The turn's result (`undefined` when it never ran).
 * @param sessionId The session's id.
 * @param secrets Every configured key.
 * @returns The record.
 */
export function oneShotRecord(
  result: TurnResult | undefined,
  sessionId: string,
  secrets: readonly string[],
): OneShotRecord {
  const microcents = result?.costMicrocents ?? 0;
  const error = result?.kind === "failed" ? result.error : undefined;
  const unknown = result?.usageUnknown ?? false;
  const out: OneShotRecord = {
    type: "result",
    isError: result === undefined || result.kind !== "completed",
    answer: result?.kind === "completed" ? result.text : "",
    stopReason: result === undefined || result.kind === "cancelled"
      ? "cancelled"
      : result.stopReason,
    error: error === undefined ? null : {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
    },
    usage: {
      inputTokens: result?.usage.input ?? 0,
      outputTokens: result?.usage.output ?? 0,
      cacheReadTokens: result?.cacheReadTokens ?? 0,
      cacheWriteTokens: result?.cacheWriteTokens ?? 0,
      unknown,
    },
    cost: {
      microcents,
      usd: microcents / MICROCENTS_PER_USD,
      priced: result?.priced ?? true,
      estimated: unknown,
    },
    sessionId,
    model: result?.model ?? null,
  };
  return redactStrings(out, createSecretScreen(secrets).redact);
}
