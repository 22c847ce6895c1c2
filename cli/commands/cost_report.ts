/**
 * Spend as `/cost` and `chat-show` print it: the session total
 * and the per-model breakdown read from the store (`session_costs`). A
 * model that used tokens but cost `$0` had no price: "price unknown".
 * With calls left pending by a process that ended mid-call, the total is
 * "at least" and those calls are named. Prompt-cache reads and writes
 * follow a model's tokens; a call whose provider sent no token counts is
 * priced at its estimate (an upper bound), and the line says how many.
 *
 * @module
 */
import type {
  AgentSessionRecord,
  ModelCostTotals,
  SessionStore,
} from "../../store/store.ts";
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
  /** Input tokens read from the prompt cache. */
  cacheReadTokens: number;
  /** Input tokens written to the prompt cache. */
  cacheWriteTokens: number;
  /** The part of `costMicrocents` paid for cache reads. */
  cacheReadMicrocents: number;
  /** The part of `costMicrocents` paid for cache writes. */
  cacheWriteMicrocents: number;
  /** Attempts whose provider sent no token counts (cost estimated). */
  usageUnknownCalls: number;
}

/**
 * A provider call whose usage is unknown, as shown.
 */
export interface ShownUnaccountedCall {
  /** `turn` (a turn's request, any round) or `summary` (compaction). */
  purpose: "turn" | "summary";
  /** Provider id. */
  provider: string;
  /** Model id. */
  model: string;
  /** When it was sent, ISO-8601. */
  startedAt: string;
}

/**
 * The usage coverage of a session as shown: calls still pending, and the
 * settled spend no turn recorded (added to the total).
 */
export interface ShownCoverage {
  /** Calls whose usage is unknown, oldest first. */
  unaccounted: ShownUnaccountedCall[];
  /** Known spend not yet in the stored total (micro-cents). */
  unrecordedMicrocents: number;
}

/**
 * Reads a session's coverage from the store (complete when the store has
 * no journal).
 *
 * @param store The store.
 * @param sessionId The session.
 * @returns The coverage.
 */
export function shownCoverage(
  store: Pick<SessionStore, "coverage"> | undefined,
  sessionId: string,
): ShownCoverage {
  const c = store?.coverage?.(sessionId);
  return {
    unaccounted: (c?.pending ?? []).map((p) => ({
      purpose: p.purpose,
      provider: p.provider,
      model: p.model,
      startedAt: p.startedAt,
    })),
    unrecordedMicrocents: c?.unrecordedMicrocents ?? 0,
  };
}

/**
 * The lines naming the unaccounted calls (none when every call is
 * accounted for).
 *
 * @param coverage The coverage.
 * @returns The lines, without newlines; names control-stripped.
 */
export function unaccountedLines(coverage: ShownCoverage): string[] {
  const n = coverage.unaccounted.length;
  if (n === 0) return [];
  return [
    `${n} call${n === 1 ? "" : "s"} unaccounted (the process ended while ${
      n === 1 ? "it was" : "they were"
    } open; ${n === 1 ? "its" : "their"} usage is unknown):`,
    ...coverage.unaccounted.map((c) =>
      `  ${c.purpose === "turn" ? "turn" : "summary"} call to ${
        stripControl(c.provider)
      }/${stripControl(c.model)}, sent ${c.startedAt}`
    ),
  ];
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
    cacheReadTokens: r.cacheReadTokens ?? 0,
    cacheWriteTokens: r.cacheWriteTokens ?? 0,
    cacheReadMicrocents: r.cacheReadMicrocents ?? 0,
    cacheWriteMicrocents: r.cacheWriteMicrocents ?? 0,
    usageUnknownCalls: r.usageUnknownCalls ?? 0,
  }));
}

/**
 * One indented line per model: price (or "price unknown" when no call of
 * the model had a price and it used tokens), calls, tokens, and the calls
 * whose usage is estimated; then, when the model used the prompt cache, a
 * line with its cache reads and writes and what each cost.
 *
 * @param costs The shown rows.
 * @returns The lines, without newlines; model names control-stripped.
 */
export function modelCostLines(costs: readonly ShownModelCost[]): string[] {
  const names = costs.map((c) => stripControl(c.model));
  const width = Math.max(0, ...names.map((n) => n.length));
  return costs.flatMap((c, i) => {
    let price = c.unpricedCalls >= c.calls
      ? priceText(c.costMicrocents, c.inputTokens + c.outputTokens)
      : formatCost(c.costMicrocents);
    if (c.unpricedCalls > 0 && c.unpricedCalls < c.calls) {
      price += ` (+ ${c.unpricedCalls} unpriced call${
        c.unpricedCalls === 1 ? "" : "s"
      })`;
    }
    const u = c.usageUnknownCalls;
    const unknown = u === 0
      ? ""
      : ` (${u} call${u === 1 ? "" : "s"} sent no usage: ${
        u === 1 ? "its" : "their"
      } cost is estimated)`;
    const line = `  ${
      (names[i] ?? "").padEnd(width)
    }  ${price}  ${c.calls} call${
      c.calls === 1 ? "" : "s"
    }, ${c.inputTokens} input, ${c.outputTokens} output tokens${unknown}`;
    return c.cacheReadTokens + c.cacheWriteTokens === 0
      ? [line]
      : [line, `    ${cacheText(c)}`];
  });
}

/**
 * A model's prompt-cache line: tokens read and written, each with its
 * price (none when the model had no price).
 */
function cacheText(c: ShownModelCost): string {
  const priced = c.unpricedCalls < c.calls;
  const part = (tokens: number, microcents: number, verb: string): string =>
    `${tokens} ${verb}${priced ? ` (${formatCost(microcents)})` : ""}`;
  return `cache: ${part(c.cacheReadTokens, c.cacheReadMicrocents, "read")}, ${
    part(c.cacheWriteTokens, c.cacheWriteMicrocents, "written")
  }`;
}

/**
 * The session total's price: "price unknown" when tokens were used for
 * `$0` and some call had no price (or no per-model rows are known); with
 * the coverage, the settled spend no turn recorded is added, and "at
 * least" leads a known price when some call's usage is unknown.
 *
 * @param record The session row's totals.
 * @param costs The per-model rows.
 * @param coverage The session's usage coverage, when read.
 * @returns The text.
 */
export function totalPriceText(
  record: Pick<
    AgentSessionRecord,
    "totalInputTokens" | "totalOutputTokens" | "totalCostMicrocents"
  >,
  costs: readonly ShownModelCost[],
  coverage?: ShownCoverage,
): string {
  const tokens = record.totalInputTokens + record.totalOutputTokens;
  const total = record.totalCostMicrocents +
    (coverage?.unrecordedMicrocents ?? 0);
  const unpriced = costs.length === 0 || costs.some((c) => c.unpricedCalls > 0);
  const text = unpriced ? priceText(total, tokens) : formatCost(total);
  const some = (coverage?.unaccounted.length ?? 0) > 0;
  return some && text !== "price unknown" ? `at least ${text}` : text;
}

/**
 * The `/cost` report: the total from the session row, then the per-model
 * breakdown, then the calls whose usage is unknown.
 *
 * @param record The session row (`undefined` before anything is stored).
 * @param costs The per-model rows.
 * @param coverage The session's usage coverage, when read.
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
  coverage?: ShownCoverage,
): string {
  if (record === undefined) return "Cost: nothing recorded yet\n";
  const lines = [
    `Cost: ${
      totalPriceText(record, costs, coverage)
    } (${record.totalInputTokens} input, ${record.totalOutputTokens} output tokens)`,
    ...modelCostLines(costs),
    ...(coverage === undefined ? [] : unaccountedLines(coverage)),
  ];
  return `${lines.join("\n")}\n`;
}
