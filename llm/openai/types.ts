/**
 * Small public types of the OpenAI-compatible adapter.
 *
 * @module
 */

/**
 * Which conventions a server follows: `openai` (overflow =
 * `context_length_exceeded`, `reasoning_effort`) or `deepseek` (overflow =
 * "maximum context length", `thinking` on/off).
 *
 * @example Value
 * ```ts
 * import type { OpenAiDialect } from "@relavium/session/llm";
 * const d: OpenAiDialect = "deepseek";
 * ```
 */
export type OpenAiDialect = "openai" | "deepseek";

/**
 * Name of the output-cap field: `max_completion_tokens` (official OpenAI)
 * or `max_tokens` (DeepSeek and most compatible servers).
 *
 * @example Value
 * ```ts
 * import type { MaxTokensParam } from "@relavium/session/llm";
 * const p: MaxTokensParam = "max_tokens";
 * ```
 */
export type MaxTokensParam = "max_completion_tokens" | "max_tokens";
