/**
 * The provider seam (llm.md §1–§2). Only these types cross it; no vendor or
 * wire object ever leaves an adapter.
 *
 * @module
 */
import type { StopReason, StreamChunk, Usage } from "./chunk.ts";

/**
 * A JSON Schema object (LLM-visible tool parameters).
 *
 * @example Value
 * ```ts
 * import type { JsonSchema } from "@relavium/session/llm";
 * const s: JsonSchema = { type: "object", properties: {} };
 * ```
 */
export type JsonSchema = Record<string, unknown>;

/**
 * A tool as the model sees it.
 *
 * @example Value
 * ```ts
 * import type { ToolDef } from "@relavium/session/llm";
 * const t: ToolDef = { name: "read_file", parameters: { type: "object" } };
 * ```
 */
export interface ToolDef {
  /** Tool id as the model calls it. */
  name: string;
  /** What the tool does, for the model. */
  description?: string;
  /** JSON Schema of the LLM-visible arguments. */
  parameters: JsonSchema;
}

/**
 * Request content parts.
 *
 * @example Value
 * ```ts
 * import type { ContentPart } from "@relavium/session/llm";
 * const p: ContentPart = { type: "tool_call", id: "call-1", name: "read_file", args: { path: "a" } };
 * ```
 */
export type ContentPart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string; signature?: string; redacted?: boolean }
  | {
    type: "tool_call";
    id: string;
    name: string;
    args: unknown;
    providerExecuted?: boolean;
  }
  | {
    type: "tool_result";
    toolCallId: string;
    result: unknown;
    isError?: boolean;
    providerExecuted?: boolean;
  };

/**
 * One request message.
 *
 * @example Value
 * ```ts
 * import type { LlmMessage } from "@relavium/session/llm";
 * const m: LlmMessage = { role: "user", content: [{ type: "text", text: "hi" }] };
 * ```
 */
export interface LlmMessage {
  /** Who speaks; each tool result has its own `tool` message. */
  role: "user" | "assistant" | "tool";
  /** Ordered content parts. */
  content: ContentPart[];
}

/**
 * Tool choice.
 *
 * @example Value
 * ```ts
 * import type { ToolChoice } from "@relavium/session/llm";
 * const c: ToolChoice = { name: "read_file" };
 * ```
 */
export type ToolChoice = "auto" | "none" | "required" | { name: string };

/**
 * A provider request. `system` is top level; the adapter places it.
 *
 * @example Value
 * ```ts
 * import type { LlmRequest } from "@relavium/session/llm";
 * const r: LlmRequest = { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] };
 * ```
 */
export interface LlmRequest {
  /** Model id (set per plan entry by the chain). */
  model: string;
  /** System prompt; the adapter places it. */
  system?: string;
  /** Conversation, oldest first. */
  messages: LlmMessage[];
  /** Tools the model may call. */
  tools?: ToolDef[];
  /** Tool choice; default `auto`. */
  toolChoice?: ToolChoice;
  /** Sampling temperature. */
  temperature?: number;
  /** Output token cap. */
  maxTokens?: number;
  /** Stop sequences. */
  stopSequences?: string[];
  /** Reasoning effort tier (reasoning-capable models only). */
  reasoningEffort?: "off" | "low" | "medium" | "high" | "max";
  /** Aborts the call. */
  signal?: AbortSignal;
  /** Escape hatch; canonical fields win on collision. */
  providerOptions?: Record<string, unknown>;
}

/**
 * Provider capabilities.
 *
 * @example Value
 * ```ts
 * import type { ProviderSupports } from "@relavium/session/llm";
 * const s: ProviderSupports = { tools: true, streaming: true, parallelToolCalls: false, reasoning: false, promptCache: false };
 * ```
 */
export interface ProviderSupports {
  /** Function calling. */
  tools: boolean;
  /** Streaming responses. */
  streaming: boolean;
  /** Several tool calls in one response. */
  parallelToolCalls: boolean;
  /** Reasoning output and effort control. */
  reasoning: boolean;
  /** Prompt caching. */
  promptCache: boolean;
}

/**
 * Protocol families.
 *
 * @example Value
 * ```ts
 * import type { ProviderKind } from "@relavium/session/llm";
 * const k: ProviderKind = "openai-compatible";
 * ```
 */
export type ProviderKind = "anthropic" | "openai-compatible" | "gemini";

/**
 * A stateless translator from {@linkcode LlmRequest} to a chunk stream. No
 * retries, no fallback, no pricing: policy sits above it. A failure is one
 * `error` chunk (callers also tolerate throws).
 *
 * @example Shape
 * ```ts
 * import type { LlmProvider } from "@relavium/session/llm";
 * const p: Pick<LlmProvider, "id" | "kind"> = { id: "anthropic", kind: "anthropic" };
 * ```
 */
export interface LlmProvider {
  /** Provider id (`anthropic`, `openai`, a `[[providers]]` id). */
  readonly id: string;
  /** Wire protocol family. */
  readonly kind: ProviderKind;
  /** Non-default base URL: overflow downgrade, window never authoritative. */
  readonly customEndpoint: boolean;
  /** Capabilities the chain checks before calling. */
  readonly supports: ProviderSupports;
  /** Streams one request; a failure is one `error` chunk. */
  stream(req: LlmRequest, key: string): AsyncIterable<StreamChunk>;
  /** Non-streaming call, when supported. */
  generate?(
    req: LlmRequest,
    key: string,
  ): Promise<{ content: ContentPart[]; stopReason: StopReason; usage: Usage }>;
  /** The model's context window in tokens; `undefined` = unknown. */
  contextLimit?(model: string): number | undefined;
  /** `true` ⇒ never auto-compact. */
  managesOwnContext?(): boolean;
}
