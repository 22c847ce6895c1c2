/**
 * The provider seam: request and chunk types, errors, plan resolution, the
 * fallback chain, the model catalog and cost, the token estimator, the
 * scripted and replay providers, the SSE parser, and the Anthropic and
 * OpenAI-compatible HTTP adapters.
 *
 * @example Stream one call through a one-entry chain
 * ```ts
 * import { createChain, createScriptedProvider } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const provider = createScriptedProvider({ script: [[
 *   { type: "text_delta", text: "hi" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 2, outputTokens: 1 } },
 * ]] });
 * const chain = createChain({ plan: [{ provider, model: "m", maxAttempts: 1 }], keyFor: () => "k", sleep: () => Promise.resolve() });
 * let text = "";
 * for await (const e of chain.stream({ model: "", messages: [] }, new AbortController().signal)) {
 *   if (e.type === "chunk" && e.chunk.type === "text_delta") text += e.chunk.text;
 * }
 * assert.equal(text, "hi");
 * ```
 *
 * @module
 */
export {
  isRetryableKind,
  type LlmError,
  type LlmErrorKind,
  type StopReason,
  type StreamChunk,
  type Usage,
} from "./chunk.ts";
export type {
  ContentPart,
  JsonSchema,
  LlmMessage,
  LlmProvider,
  LlmRequest,
  ProviderKind,
  ProviderSupports,
  ToolChoice,
  ToolDef,
} from "./provider.ts";
export type { ModelCatalog, ModelInfo } from "./catalog.ts";
export { createCatalog, type ListableCatalog } from "./create_catalog.ts";
export { type PricedUsage, priceUsage, usdPerMtok } from "./cost.ts";
export { type EstimateInput, estimateTokens } from "./estimate.ts";
export {
  type Admission,
  type AttemptReport,
  type Chain,
  type ChainOptions,
  createChain,
  type PlanEntry,
} from "./chain.ts";
export type { ChainEvent } from "./chain_event.ts";
export { type PlanAgent, type PlanError, resolvePlan } from "./plan.ts";
export {
  type LlmErrorExtra,
  LlmProviderError,
  makeLlmError,
  POSSIBLE_OVERFLOW_MESSAGE,
  safeErrorMessage,
  scrubSecrets,
  toSessionError,
  turnErrorCode,
} from "./errors.ts";
export {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedProviderOptions,
  type ScriptEntry,
} from "./scripted_provider.ts";
export {
  type Cassette,
  type CassetteCall,
  type CassetteError,
  type CassetteExpect,
  type CassetteQueues,
  parseCassette,
} from "./cassette.ts";
export {
  createReplay,
  type Replay,
  type ReplayOptions,
} from "./replay_provider.ts";
export {
  createSseParser,
  type SseEvent,
  type SseLimitError,
  type SseParser,
  type SseParserOptions,
} from "./sse.ts";
export {
  type FetchFn,
  type HttpProviderOptions,
  normaliseBaseUrl,
} from "./http.ts";
export {
  ANTHROPIC_BASE_URL,
  ANTHROPIC_VERSION,
  type AnthropicProviderOptions,
  createAnthropicProvider,
} from "./anthropic/provider.ts";
export {
  createOpenAiProvider,
  DEEPSEEK_BASE_URL,
  OPENAI_BASE_URL,
  type OpenAiProviderOptions,
} from "./openai/provider.ts";
export type { MaxTokensParam, OpenAiDialect } from "./openai/types.ts";
export type { ErrorCode, SessionError } from "../schema/event.ts";
export type { Result } from "../schema/result.ts";
export type { ValidationIssue } from "../schema/issues.ts";
