/**
 * Integer micro-cent pricing of one attempt's usage.
 *
 * @module
 */
import type { Usage } from "./chunk.ts";
import type { ModelInfo, ModelRates } from "./catalog.ts";

/**
 * The priced cost of one attempt.
 */
export interface PricedUsage {
  /** Cost in micro-cents (1 µ¢ = 1e-8 USD); 0 when unpriced. */
  costMicrocents: number;
  /** `false` when the model has no price (cost caps cannot apply). */
  priced: boolean;
  /** The part of `costMicrocents` paid for cache reads (absent when 0). */
  cacheReadMicrocents?: number;
  /** The part paid for cache writes, every TTL (absent when 0). */
  cacheWriteMicrocents?: number;
}

const MTOK = 1_000_000n;

function classCost(tokens: number | undefined, rate: number): number {
  if (tokens === undefined || tokens <= 0 || rate <= 0) return 0;
  // Exact integer arithmetic: tokens·rate can exceed 2^53.
  const product = BigInt(Math.round(tokens)) * BigInt(Math.round(rate));
  return Number((product + MTOK / 2n) / MTOK);
}

/** The rates that apply to a request of this usage's prompt size. */
function ratesFor(usage: Usage, info: ModelInfo): ModelRates {
  const tier = info.longContext;
  if (tier === undefined) return info;
  const prompt = usage.inputTokens + (usage.cacheReadTokens ?? 0) +
    (usage.cacheWriteTokens ?? 0);
  return prompt > tier.aboveInputTokens ? tier : info;
}

/**
 * Prices usage with a model's rates: `Σ round(tokens·rate/1e6)` over input,
 * output, cache reads (cached rate), 5-minute cache writes (the write rate,
 * or 0) and 1-hour cache writes (the 1-hour rate, else the write rate),
 * each class rounded once (half up). The 1-hour part is
 * `cacheWrite1hTokens` (at most `cacheWriteTokens`); the rest of
 * `cacheWriteTokens` is the 5-minute part. A prompt (input plus cache
 * reads and writes) over the model's long-context threshold is priced
 * whole at the long-context rates. An unknown model costs 0 and is
 * `priced: false`. The cache reads' and writes' parts of the cost come
 * with it.
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
  const r = ratesFor(usage, info);
  const writes = Math.max(0, usage.cacheWriteTokens ?? 0);
  const writes1h = Math.min(writes, Math.max(0, usage.cacheWrite1hTokens ?? 0));
  const writeRate = r.cacheWritePerMtokMicrocents ?? 0;
  const read = classCost(usage.cacheReadTokens, r.cachedInputPerMtokMicrocents);
  const written = classCost(writes - writes1h, writeRate) +
    classCost(writes1h, r.cacheWrite1hPerMtokMicrocents ?? writeRate);
  const cost = classCost(usage.inputTokens, r.inputPerMtokMicrocents) +
    classCost(usage.outputTokens, r.outputPerMtokMicrocents) + read + written;
  return {
    costMicrocents: cost,
    priced: true,
    ...(read > 0 ? { cacheReadMicrocents: read } : {}),
    ...(written > 0 ? { cacheWriteMicrocents: written } : {}),
  };
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
