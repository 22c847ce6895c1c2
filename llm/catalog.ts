/**
 * Model catalog types: context windows, output ceilings, prices in
 * integer micro-cents per million tokens, and the capability flags that
 * shape each request.
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
  /**
   * Cache-write price, µ¢ per million tokens (absent ⇒ 0): Anthropic's
   * 5-minute TTL, OpenAI's default retention.
   */
  cacheWritePerMtokMicrocents?: number;
  /**
   * 1-hour cache-write price, µ¢ per million tokens (absent ⇒ the
   * cache-write price).
   */
  cacheWrite1hPerMtokMicrocents?: number;
  /**
   * Long-context rates, when the provider charges them: once a request's
   * prompt (uncached input plus cache reads and writes) is over
   * `aboveInputTokens`, the whole request is priced at these rates.
   */
  longContext?: {
    /** The prompt size, in tokens, above which these rates apply. */
    aboveInputTokens: number;
    /** Uncached input price, µ¢ per million tokens. */
    inputPerMtokMicrocents: number;
    /** Output price, µ¢ per million tokens. */
    outputPerMtokMicrocents: number;
    /** Cache-read price, µ¢ per million tokens. */
    cachedInputPerMtokMicrocents: number;
    /** Cache-write price, µ¢ per million tokens (absent ⇒ 0). */
    cacheWritePerMtokMicrocents?: number;
    /** 1-hour cache-write price (absent ⇒ the cache-write price). */
    cacheWrite1hPerMtokMicrocents?: number;
  };
  /** Whether the model reasons (effort applies). */
  reasoning?: boolean;
  /** Deprecation date (ISO), when announced. */
  deprecatedAt?: string;
  /**
   * The model refuses sampling parameters (`temperature`, `top_p`):
   * they are never sent to it.
   */
  rejectsSampling?: boolean;
  /** The model thinks when the request says nothing about thinking. */
  thinkingByDefault?: boolean;
  /**
   * How effort `off` is sent to a Claude model: `disabled` (the default:
   * `thinking: {type: "disabled"}`), `between_tools` (the model's lowest
   * setting, `thinking: {type: "between_tools"}`) or `never` (thinking
   * cannot be disabled: no `thinking` field and the lowest effort tier).
   */
  thinkingOff?: "disabled" | "between_tools" | "never";
  /**
   * Claude models that take only adaptive thinking (`thinking: {type:
   * "enabled", budget_tokens}` is refused).
   */
  adaptiveThinkingOnly?: boolean;
  /**
   * The effort values the model accepts, as the wire spells them (e.g.
   * `["low", "medium", "high", "xhigh", "max"]`; OpenAI's may include
   * `none` and `minimal`). Absent ⇒ the family's defaults.
   */
  effortTiers?: readonly string[];
  /**
   * On Chat Completions, tools may go only with reasoning effort `none`
   * (tools with any other effort, or with the model's default, are
   * refused).
   */
  chatToolsNeedEffortNone?: boolean;
  /**
   * The model needs the Responses API for tool calls: on Chat Completions
   * a request with tools is refused locally.
   */
  needsResponsesApi?: boolean;
}

/**
 * The per-class rates of a model (or of its long-context tier).
 */
export type ModelRates = Pick<
  ModelInfo,
  | "inputPerMtokMicrocents"
  | "outputPerMtokMicrocents"
  | "cachedInputPerMtokMicrocents"
  | "cacheWritePerMtokMicrocents"
  | "cacheWrite1hPerMtokMicrocents"
>;

/**
 * Looks models up by their canonical id.
 */
export interface ModelCatalog {
  /** The model's entry, `undefined` when unknown. */
  lookup(model: string): ModelInfo | undefined;
}
