/**
 * The provider seam. Only these types cross it; no vendor or
 * wire object ever leaves an adapter.
 *
 * @module
 */
import type { StopReason, StreamChunk, Usage } from "./chunk.ts";

/**
 * A JSON Schema object (LLM-visible tool parameters).
 */
export type JsonSchema = Record<string, unknown>;

/**
 * A tool as the model sees it.
 */
export interface ToolDef {
  /** Tool id as the model calls it. */
  name: string;
  /** What the tool does, for the model. */
  description?: string;
  /** JSON Schema of the LLM-visible arguments. */
  parameters: Record<string, unknown>;
}

/**
 * Request content parts, in the order the model produced them. A
 * reasoning part's `signature` is the provider's opaque replay token (a
 * thinking signature or, when `redacted`, the redacted block's data); a
 * tool call's `signature` is an opaque token sent back with the call
 * (Gemini's thought signature). Both belong to the provider that made them.
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
    signature?: string;
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
 */
export interface LlmMessage {
  /** Who speaks; each tool result has its own `tool` message. */
  role: "user" | "assistant" | "tool";
  /** Ordered content parts. */
  content: ContentPart[];
}

/**
 * The rule every provider keeps: a request is an immutable value. Each
 * request has arrays of its own, but its messages and their parts (a tool
 * call's arguments included) are deeply frozen and shared with the
 * session's transcript, so nothing is copied per call. A provider that
 * must edit a message copies it first; a write to a frozen part throws, and
 * the call fails `bad_request` with a message naming this rule.
 */
export const FROZEN_REQUEST_RULE: string =
  "a request's messages and parts are frozen and shared with the transcript; a provider that must edit them copies first";

/**
 * A provider request. `system` is top level; the adapter places it. Its
 * messages and parts are frozen ({@linkcode FROZEN_REQUEST_RULE}).
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
  /** Whether and which tool the model must call; default `auto`. */
  toolChoice?: "auto" | "none" | "required" | { name: string };
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
 * A stateless translator from {@linkcode LlmRequest} to a chunk stream. No
 * retries, no fallback, no pricing: policy sits above it. A failure is one
 * `error` chunk (callers also tolerate throws). It never edits the request
 * it is given: the request's messages and parts are frozen and shared
 * ({@linkcode FROZEN_REQUEST_RULE}); a provider that must edit copies.
 */
export interface LlmProvider {
  /** Provider id (`anthropic`, `openai`, a `[[providers]]` id). */
  readonly id: string;
  /** Wire protocol family. */
  readonly kind: "anthropic" | "openai-compatible" | "gemini";
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
  /**
   * Optional: the provider's own count of a request's input tokens (a
   * tokenizer, a counting endpoint). When present, the session measures
   * its next request against the window with it instead of the built-in
   * heuristic (`ceil(chars / 4)`). It may answer later (a promise): the
   * session races it with the turn's abort signal (passed here), and an
   * abort or cancel while it counts ends the measurement as aborted,
   * before any egress. A throw, a rejection or an answer that is not a
   * finite number ≥ 0 falls back to the heuristic. The request it is
   * shown is frozen like every request.
   */
  estimateTokens?(
    input: {
      model: string;
      system: string;
      messages: readonly LlmMessage[];
      tools: readonly ToolDef[];
    },
    signal: AbortSignal,
  ): number | Promise<number>;
  /**
   * `true` when the endpoint's configuration declares its context window
   * (`contextLimit` then answers it): a custom endpoint's window counts for
   * measured compaction only then.
   */
  readonly windowDeclared?: boolean;
}

/** The wire protocol families of {@linkcode LlmProvider}. */
export type ProviderKind = LlmProvider["kind"];

/** How a request constrains tool calls ({@linkcode LlmRequest.toolChoice}). */
export type ToolChoice = NonNullable<LlmRequest["toolChoice"]>;
