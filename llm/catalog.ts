/**
 * Model catalog types: context windows, output ceilings and prices in
 * integer micro-cents per million tokens.
 *
 * @module
 */

/**
 * One priced model.
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
 */
export interface ModelCatalog {
  /** The model's entry, `undefined` when unknown. */
  lookup(model: string): ModelInfo | undefined;
}
