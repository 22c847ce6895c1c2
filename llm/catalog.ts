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
  /** Provider id that serves the model. */
  provider: string;
  /** Canonical model id. */
  id: string;
  /** Human name. */
  displayName?: string;
  /** Context window in tokens. */
  contextWindowTokens: number;
  /** Output ceiling in tokens. */
  maxOutputTokens: number;
  /** Uncached input price, µ¢ per million tokens. */
  inputPerMtokMicrocents: number;
  /** Output price, µ¢ per million tokens. */
  outputPerMtokMicrocents: number;
  /** Cache-read price, µ¢ per million tokens. */
  cachedInputPerMtokMicrocents: number;
  /** Cache-write price, µ¢ per million tokens (absent ⇒ 0). */
  cacheWritePerMtokMicrocents?: number;
  /** Whether the model reasons (effort applies). */
  reasoning?: boolean;
  /** Deprecation date (ISO), when announced. */
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
  /** The model's entry, `undefined` when unknown. */
  lookup(model: string): ModelInfo | undefined;
}
