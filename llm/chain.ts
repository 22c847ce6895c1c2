/**
 * The fallback chain (llm.md §6, DECISIONS.md 27): one object per turn's
 * tool loop that walks the plan, retries, fails over and reports attempts.
 *
 * @module
 */
import type { LlmError, StopReason, StreamChunk, Usage } from "./chunk.ts";
import type { LlmProvider, LlmRequest } from "./provider.ts";
import type { SessionError } from "../schema/event.ts";

/**
 * One resolved plan entry.
 *
 * @example Shape
 * ```ts
 * import type { PlanEntry } from "@relavium/session/llm";
 * const e: Omit<PlanEntry, "provider"> = { model: "m", maxAttempts: 1 };
 * ```
 */
export interface PlanEntry {
  provider: LlmProvider;
  model: string;
  /** Attempts for retryable kinds (the primary gets 3, DECISIONS.md 27). */
  maxAttempts: number;
}

/**
 * Pre-egress admission of one real attempt: allowed, or refused with the
 * session error the turn ends with (budget cap, failure latch).
 *
 * @example Value
 * ```ts
 * import type { Admission } from "@relavium/session/llm";
 * const a: Admission = { allow: true };
 * ```
 */
export type Admission = { allow: true } | { allow: false; error: SessionError };

/**
 * What happened to one attempt.
 *
 * @example Value
 * ```ts
 * import type { AttemptReport } from "@relavium/session/llm";
 * const r: AttemptReport = { attemptNumber: 1, provider: "openai", model: "m", outcome: "succeeded", usage: { inputTokens: 1, outputTokens: 1 }, usageKnown: true };
 * ```
 */
export interface AttemptReport {
  /** 1-based, counts non-skipped attempts of this chain (the whole turn). */
  attemptNumber: number;
  provider: string;
  model: string;
  outcome: "succeeded" | "failed" | "skipped";
  usage?: Usage;
  /** `false` when the stream ended without usage (zeros reported). */
  usageKnown?: boolean;
  error?: LlmError;
  skipReason?: "cooldown" | "no_streaming" | "no_tools";
}

/**
 * Events of one chain call, in order: for each real attempt an
 * `attempt_start`, then that attempt's non-terminal `chunk`s; finally one
 * `done` or one `failed`.
 *
 * @example Value
 * ```ts
 * import type { ChainEvent } from "@relavium/session/llm";
 * const e: ChainEvent = { type: "chunk", attemptNumber: 1, provider: "p", model: "m", chunk: { type: "text_delta", text: "hi" } };
 * ```
 */
export type ChainEvent =
  | {
    type: "attempt_start";
    attemptNumber: number;
    provider: string;
    model: string;
  }
  | {
    type: "chunk";
    attemptNumber: number;
    provider: string;
    model: string;
    /** Never `stop` or `error`. */
    chunk: Exclude<StreamChunk, { type: "stop" } | { type: "error" }>;
  }
  | {
    type: "done";
    attemptNumber: number;
    provider: string;
    model: string;
    stopReason: StopReason;
    usage: Usage;
    contextExceeded?: true;
  }
  | {
    type: "failed";
    /** The classified provider error (after retries and failover). */
    error?: LlmError;
    /** Set instead of `error` when admission refused the attempt. */
    refusal?: SessionError;
    /** Whether any real invocation was made in this call. */
    engaged: boolean;
  };

/**
 * Options of {@linkcode createChain}.
 *
 * @example Shape
 * ```ts
 * import type { ChainOptions } from "@relavium/session/llm";
 * const o: Omit<ChainOptions, "plan"> = { keyFor: () => "k", sleep: () => Promise.resolve() };
 * ```
 */
export interface ChainOptions {
  plan: readonly PlanEntry[];
  keyFor(providerId: string): string | Promise<string>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Epoch ms, for rate-limit cooldowns; absent ⇒ cooldowns never expire. */
  now?(): number;
  /** Pre-egress admission, called before every real attempt. */
  admit?(
    entry: { provider: string; model: string },
    request: LlmRequest,
  ): Admission;
  /** Each attempt's report, as it settles. */
  onAttempt?(report: AttemptReport): void;
}

/**
 * A chain for one turn: call {@linkcode Chain.stream} once per round.
 *
 * @example Shape
 * ```ts
 * import type { Chain } from "@relavium/session/llm";
 * type S = Chain["stream"];
 * ```
 */
export interface Chain {
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<ChainEvent>;
}
