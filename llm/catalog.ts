/**
 * Model catalog types: context windows, output ceilings and prices in
 * integer micro-cents per million tokens (llm.md §7).
 *
 * @module
 */

/**
 * One priced model.
 *
 * @example Value
 * ```ts
 * import type { ModelInfo } from "@relavium/session/llm";
 * const m: ModelInfo = {
 *   provider: "openai", id: "gpt-5.4-mini", contextWindowTokens: 400000, maxOutputTokens: 128000,
 *   inputPerMtokMicrocents: 75_000_000, outputPerMtokMicrocents: 450_000_000, cachedInputPerMtokMicrocents: 7_500_000,
 * };
 * ```
 */
export interface ModelInfo {
  provider: string;
  id: string;
  displayName?: string;
  contextWindowTokens: number;
  maxOutputTokens: number;
  inputPerMtokMicrocents: number;
  outputPerMtokMicrocents: number;
  cachedInputPerMtokMicrocents: number;
  cacheWritePerMtokMicrocents?: number;
  reasoning?: boolean;
  deprecatedAt?: string;
}

/**
 * Looks models up by their canonical id.
 *
 * @example Shape
 * ```ts
 * import type { ModelCatalog } from "@relavium/session/llm";
 * const empty: ModelCatalog = { lookup: () => undefined };
 * ```
 */
export interface ModelCatalog {
  lookup(model: string): ModelInfo | undefined;
}
