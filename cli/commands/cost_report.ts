/**
 * Spend as `/cost` and `chat-show` print it: the session total
 * and the per-model breakdown read from the store (`session_costs`). A
 * model that used tokens but cost `$0` had no price: "price unknown".
 *
 * @module
 */
import type { AgentSessionRecord, ModelCostTotals } from "../../store/store.ts";
import { stripControl } from "../io/control.ts";

/**
 * Formats micro-cents (1e-8 USD) as dollars.
 *
 * @param microcents Integer micro-cents.
 * @returns `$` and at least four decimals.
 */
export function formatCost(microcents: number): string {
  const dollars = microcents / 1e8;
  return `$${dollars.toFixed(dollars !== 0 && dollars < 0.0001 ? 8 : 4)}`;
}

/**
 * A price, or "price unknown" when tokens were used for `$0`.
 *
 * @param microcents The spend.
 * @param tokens The tokens it bought.
 * @returns The text.
 */
export function priceText(microcents: number, tokens: number): string {
  return microcents === 0 && tokens > 0
    ? "price unknown"
    : formatCost(microcents);
}

/**
 * One model's spend, as `chat-show --json` prints it.
 */
export interface ShownModelCost {
  /** The raw provider model string. */
  model: string;
  /** Input tokens over every recorded attempt (failed ones and summaries included). */
  inputTokens: number;
  /** Output tokens over every recorded attempt. */
  outputTokens: number;
  /** Realised spend in micro-cents. */
  costMicrocents: number;
  /** Attempts recorded. */
  calls: number;
  /** Attempts that had no price. */
  unpricedCalls: number;
}

/**
 * The store's per-model rows as shown.
 *
 * @param rows What `SessionStore.costs` returned (or `undefined`).
 * @returns The shown rows, in the store's order.
 */
export function shownCosts(
  rows: readonly ModelCostTotals[] | undefined,
): ShownModelCost[] {
  return (rows ?? []).map((r) => ({
    model: r.model,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    costMicrocents: r.costMicrocents,
    calls: r.callCount,
    unpricedCalls: r.unpricedCalls,
  }));
}

/**
 * One indented line per model: price (or "price unknown" when no call of
 * the model had a price and it used tokens), calls, tokens.
 *
 * @param costs The shown rows.
 * @returns The lines, without newlines; model names control-stripped.
 */
export function modelCostLines(costs: readonly ShownModelCost[]): string[] {
  const names = costs.map((c) => stripControl(c.model));
  const width = Math.max(0, ...names.map((n) => n.length));
  return costs.map((c, i) => {
    let price = c.unpricedCalls >= c.calls
      ? priceText(c.costMicrocents, c.inputTokens + c.outputTokens)
      : formatCost(c.costMicrocents);
    if (c.unpricedCalls > 0 && c.unpricedCalls < c.calls) {
      price += ` (+ ${c.unpricedCalls} unpriced call${
        c.unpricedCalls === 1 ? "" : "s"
      })`;
    }
    return `  ${(names[i] ?? "").padEnd(width)}  ${price}  ${c.calls} call${
      c.calls === 1 ? "" : "s"
    }, ${c.inputTokens} input, ${c.outputTokens} output tokens`;
  });
}

/**
 * The session total's price: "price unknown" when tokens were used for
 * `$0` and some call had no price (or no per-model rows are known).
 *
 * @param record The session row's totals.
 * @param costs The per-model rows.
 * @returns The text.
 */
export function totalPriceText(
  record: Pick<
    AgentSessionRecord,
    "totalInputTokens" | "totalOutputTokens" | "totalCostMicrocents"
  >,
  costs: readonly ShownModelCost[],
): string {
  const tokens = record.totalInputTokens + record.totalOutputTokens;
  const unpriced = costs.length === 0 || costs.some((c) => c.unpricedCalls > 0);
  return unpriced
    ? priceText(record.totalCostMicrocents, tokens)
    : formatCost(record.totalCostMicrocents);
}

/**
 * The `/cost` report: the total from the session row, then the per-model
 * breakdown.
 *
 * @param record The session row (`undefined` before anything is stored).
 * @param costs The per-model rows.
 * @returns The text, one line per item, ending with a newline.
 */
export function costReport(
  record:
    | Pick<
      AgentSessionRecord,
      "totalInputTokens" | "totalOutputTokens" | "totalCostMicrocents"
    >
    | undefined,
  costs: readonly ShownModelCost[],
): string {
  if (record === undefined) return "Cost: nothing recorded yet\n";
  const lines = [
    `Cost: ${
      totalPriceText(record, costs)
    } (${record.totalInputTokens} input, ${record.totalOutputTokens} output tokens)`,
    ...modelCostLines(costs),
  ];
  return `${lines.join("\n")}\n`;
}
