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

/**
 * The hint after a one-shot turn that failed, on stderr (`undefined`:
 * none). A one-shot asks no one: a governed action it was refused for
 * want of a person runs only under a mode that allows it unasked.
 *
 * @param result The turn's result.
 * @returns One line, or `undefined`.
 */
export function oneShotHint(
  result: TurnResult | undefined,
): string | undefined {
  if (result?.kind !== "failed") return undefined;
  const { code, message } = result.error;
  if (code !== "tool_denied") return undefined;
  if (/no terminal to ask on/.test(message)) {
    return "hint: agent run asks no one, so a governed action is refused; run it with --mode auto (or --mode accept-edits for writes in the project) to let the agent act unasked, or use chat on a terminal to approve each call";
  }
  if (/not allowed in plan mode/.test(message)) {
    return "hint: plan mode is read-only; run it with --mode auto to let the agent act";
  }
  return "hint: the tool call was refused for the reason above; nothing ran";
}

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
 * The `--output json` record of a one-shot turn: the turn's own value
 * (`TurnResult`) mapped field by field, secrets redacted.
 *
 * `answer` is the final text of a completed turn; for a turn that failed
 * or stopped, the text the model wrote before it did (`written`).
 *
 * @param result The turn's result (`undefined` when it never ran).
 * @param sessionId The session's id.
 * @param secrets Every configured key.
 * @param written The text the model streamed during the turn.
 * @returns The record.
 */
export function oneShotRecord(
  result: TurnResult | undefined,
  sessionId: string,
  secrets: readonly string[],
  written = "",
): OneShotRecord {
  const microcents = result?.costMicrocents ?? 0;
  const error = result?.kind === "failed" ? result.error : undefined;
  const unknown = result?.usageUnknown ?? false;
  const out: OneShotRecord = {
    type: "result",
    isError: result === undefined || result.kind !== "completed",
    answer: result?.kind === "completed" ? result.text : written,
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
