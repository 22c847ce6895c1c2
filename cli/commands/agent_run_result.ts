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
import type { SessionError, SessionEvent } from "../../schema/event.ts";
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
export interface OneShotObserver {
  /** Sees one event. */
  observe(event: SessionEvent): void;
  /**
   * The record of the turn.
   *
   * @param result The turn's result (absent when it never started).
   * @param sessionId The session's id.
   * @param secrets The configured keys, redacted from every string.
   */
  record(
    result: TurnResult | undefined,
    sessionId: string,
    secrets: readonly string[],
  ): OneShotRecord;
}

/**
 * Creates an observer for one turn.
 *
 * @returns The observer.
 */
export function createOneShotObserver(): OneShotObserver {
  let cacheRead = 0;
  let cacheWrite = 0;
  let unknown = false;
  let priced = true;
  let lastModel: string | undefined;
  let error: SessionError | undefined;
  return {
    observe(event) {
      if (event.type === "cost:updated") {
        cacheRead += event.cacheReadTokens ?? 0;
        cacheWrite += event.cacheWriteTokens ?? 0;
        if (event.usageUnknown === true) unknown = true;
        if (!event.priced) priced = false;
        lastModel = event.model;
      } else if (event.type === "session:turn_completed") {
        if (event.error !== undefined) error = event.error;
      }
    },
    record(result, sessionId, secrets) {
      const failed = result === undefined || result.kind !== "completed";
      const microcents = result?.costMicrocents ?? 0;
      const out: OneShotRecord = {
        type: "result",
        isError: failed,
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
          cacheReadTokens: cacheRead,
          cacheWriteTokens: cacheWrite,
          unknown,
        },
        cost: {
          microcents,
          usd: microcents / MICROCENTS_PER_USD,
          priced,
          estimated: unknown,
        },
        sessionId,
        model: result?.model ?? lastModel ?? null,
      };
      return redactStrings(out, createSecretScreen(secrets).redact);
    },
  };
}
