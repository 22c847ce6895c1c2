/**
 * Small public types of the OpenAI-compatible adapter.
 *
 * @module
 */

/**
 * Which conventions a server follows: `openai` (overflow =
 * `context_length_exceeded`, `reasoning_effort`) or `deepseek` (overflow =
 * "maximum context length", `thinking` on/off).
 */
export type OpenAiDialect = "openai" | "deepseek";

/**
 * Name of the output-cap field: `max_completion_tokens` (official OpenAI)
 * or `max_tokens` (DeepSeek and most compatible servers).
 */
export type MaxTokensParam = "max_completion_tokens" | "max_tokens";
