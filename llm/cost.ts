/**
 * Integer micro-cent pricing of one attempt's usage.
 *
 * @module
 */
import type { Usage } from "./chunk.ts";
import type { ModelInfo } from "./catalog.ts";

/**
 * The priced cost of one attempt.
 */
export interface PricedUsage {
  /** Cost in micro-cents (1 µ¢ = 1e-8 USD); 0 when unpriced. */
  costMicrocents: number;
  /** `false` when the model has no price (cost caps cannot apply). */
  priced: boolean;
}

const MTOK = 1_000_000n;

function classCost(tokens: number | undefined, rate: number): number {
  if (tokens === undefined || tokens <= 0 || rate <= 0) return 0;
  // Exact integer arithmetic: tokens·rate can exceed 2^53.
  const product = BigInt(Math.round(tokens)) * BigInt(Math.round(rate));
  return Number((product + MTOK / 2n) / MTOK);
}

/**
 * Prices usage with a model's rates: `Σ round(tokens·rate/1e6)` over input,
 * output, cache reads (cached rate) and cache writes (their rate, or 0),
 * each class rounded once (half up). An unknown model costs 0 and is
 * `priced: false`.
 *
 * @param usage The attempt's usage (disjoint classes).
 * @param info The attempt model's catalog entry, or `undefined`.
 * @returns The cost and whether it was priced.
 */
export function priceUsage(
  usage: Usage,
  info: ModelInfo | undefined,
): PricedUsage {
  if (info === undefined) return { costMicrocents: 0, priced: false };
  const cost = classCost(usage.inputTokens, info.inputPerMtokMicrocents) +
    classCost(usage.outputTokens, info.outputPerMtokMicrocents) +
    classCost(usage.cacheReadTokens, info.cachedInputPerMtokMicrocents) +
    classCost(usage.cacheWriteTokens, info.cacheWritePerMtokMicrocents ?? 0);
  return { costMicrocents: cost, priced: true };
}

/**
 * Converts a published USD-per-million-tokens price to integer micro-cents
 * per million tokens: `round(usd · 1e8)`.
 *
 * @param usd Price in USD per million tokens.
 * @returns Micro-cents per million tokens.
 */
export function usdPerMtok(usd: number): number {
  return Math.round(usd * 1e8);
}
